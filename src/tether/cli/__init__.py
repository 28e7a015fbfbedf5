"""The ``tether`` command line.

Each command lives in its own module and registers itself on ``cli`` when imported,
which ``main`` does for the command it runs only. Errors become
one line on stderr and a non-zero exit; a traceback appears only with ``--debug``.
"""

from __future__ import annotations

import _thread
import ctypes
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from ..config import batch_collector
from ..errors import TetherError
from ._common import COMMAND_MODULES, BrokenPipe
from ._common import cli as _group
from .render import printable

__all__ = ["cli", "main"]


def __getattr__(name: str) -> object:
    """``cli``, every command on it: who asks for the group itself (the reference
    docs test, a script) sees all of them. ``main`` imports only the one it runs."""
    if name == "cli":
        import importlib

        for module in COMMAND_MODULES.values():
            importlib.import_module(f"{__name__}.{module}")
        return _group
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _fail(message: str, code: int) -> NoReturn:
    # A message may quote a file name or an option: no control or undecodable byte
    # of it reaches the terminal (``printable``).
    click.echo(f"error: {printable(_one_line(message))}", err=True)
    sys.exit(code)


def _one_line(message: object) -> str:
    """Errors are one line each: a multi-line message (a driver's) is joined up."""
    return " ".join(str(message).split())


def _is_store_failure(exc: Exception) -> bool:
    """A database driver's own error (sqlite3, psycopg) that no store call translated:
    a read-only file, a full disk, a dropped connection."""
    return type(exc).__module__.split(".")[0] in {"sqlite3", "psycopg", "psycopg_pool"}


def _interrupt_again(unraisable: Any) -> None:
    """A Ctrl-C that arrived while Python ran a finalizer or an at-fork hook, where it
    can only be printed and dropped (the command would go on, and exit 0), is raised
    again at the main thread's next line; any other such error is reported as ever."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        _thread.interrupt_main()
    else:
        sys.__unraisablehook__(unraisable)


def _handled_interrupt() -> None:
    """CPython 3.11 marks an interrupt that passed out of an ``exec`` of a string (as
    dataclasses and named tuples run the code they generate) as never handled, even
    once caught, and then ends the process by SIGINT instead of its exit status: the
    mark is cleared where the interpreter exposes it."""
    try:
        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (ValueError, AttributeError):  # another version keeps it elsewhere
        pass


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point."""
    batch_collector()
    if sys.unraisablehook is sys.__unraisablehook__:  # the process's own (not a test runner's)
        sys.unraisablehook = _interrupt_again
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    try:
        code = _group.main(args=args, prog_name="tether", standalone_mode=False)
        sys.exit(code or 0)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
        sys.exit(0)  # `tether` alone asks for help; that is not an error
    except click.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "tether"
        _fail(f"{exc.format_message()} (see '{where} --help')", 2)
    except click.ClickException as exc:
        _fail(exc.format_message(), exc.exit_code)
    except (click.Abort, KeyboardInterrupt):
        _handled_interrupt()
        _fail("interrupted", 130)
    except BrokenPipe as exc:
        if not exc.output:
            _internal_failure(exc.error, debug)
        # `tether ... | head` is not an error. What is still buffered for the pipe goes
        # nowhere, instead of failing once more (a traceback) when Python exits.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except TetherError as exc:
        if debug:
            raise
        _fail(str(exc), exc.exit_code)
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        _internal_failure(exc, debug)


def _internal_failure(exc: Exception, debug: bool) -> NoReturn:
    if debug:
        raise exc
    if _is_store_failure(exc):  # a database refused mid-command: a store problem
        _fail(f"the store failed: {_one_line(exc)}", 3)
    _fail(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for details)", 70)
