"""Shared pieces of the CLI: the command group, common options, JSON input."""

from __future__ import annotations

import difflib
import importlib
import logging
import select
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click
from click.types import StringParamType

from ..config import Settings, default_db_path, load_settings
from ..errors import InputError
from ..text.jsonin import loads_strict

if TYPE_CHECKING:  # imported by the commands that open a store (``open_tether``)
    from ..facade import Tether

F = TypeVar("F", bound=Callable[..., Any])

# Each command's module (under ``tether.cli``), imported when that command is looked
# up: ``tether ingest`` then imports ingest's code, not the answer pipeline, the
# evaluator and the server of the other commands (most of its start-up, issue 20).
COMMAND_MODULES = {
    "ask": "ask", "calibrate": "calibrate", "check": "check", "demo": "demo",
    "documents": "documents", "eval": "eval", "eval-verifier": "eval_verifier", "gc": "gc",
    "ingest": "ingest", "keys": "keys", "mcp": "mcp", "migrate": "migrate",
    "reindex": "reindex", "resolve": "resolve", "serve": "serve", "shadow-log": "shadow_log",
    "stats": "stats", "verify": "verify",
}


class _CommandsOnDemand(click.Group):
    """A group whose commands register themselves (``@cli.command``) when their
    module is imported, which happens when one is looked up by name; listing them
    (``tether --help``) imports them all."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(f"{__package__}.{COMMAND_MODULES[cmd_name]}")
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *COMMAND_MODULES})

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            # A typo ("tether aks") is answered with the nearest commands' names.
            near = difflib.get_close_matches(args[0], self.list_commands(ctx), n=2,
                                             cutoff=0.6) if args else []
            if near and exc.message.startswith("No such command"):
                exc.message += f" Did you mean {' or '.join(repr(n) for n in near)}?"
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise BrokenPipe(exc) from exc


class BrokenPipe(Exception):
    """A ``BrokenPipeError`` carried past click's main, which makes every EPIPE a
    silent exit 1 (``tether ask``'s refusal). ``output``: it was standard output whose
    reader had gone (``tether ... | head``), not a worker's or a server's pipe."""

    def __init__(self, error: BrokenPipeError) -> None:
        super().__init__(str(error))
        self.error = error
        self.output = _stdout_closed()


def _stdout_closed() -> bool:
    """Whether standard output is a pipe or socket nobody reads any more (poll says
    POLLERR or POLLHUP on a pipe whose reader has gone)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & (select.POLLERR | select.POLLHUP) for _, event in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll, no descriptor (captured)
        return False


@click.group(cls=_CommandsOnDemand, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="TOML settings file (default: $TETHER_CONFIG or ./tether.toml).")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.version_option(package_name="tether")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, debug: bool) -> None:
    """Answers from your documents, every sentence tied to the passage that supports it."""
    ctx.obj = {"config": config_path, "debug": debug}
    if not debug:
        # The PDF reader logs what it repairs ("EOF marker not found") through Python's
        # last-resort handler, straight to the terminal; a failed file is reported on
        # one line of ours instead (``ingest --verbose`` shows what the reader said).
        reader = logging.getLogger("pypdf")
        if not any(isinstance(h, logging.NullHandler) for h in reader.handlers):
            reader.addHandler(logging.NullHandler())


def encodable(text: str) -> bool:
    """Whether ``text`` is UTF-8 text: no lone surrogate, which is how Python hands
    over bytes of argv or a file name that are not UTF-8 (surrogateescape)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Utf8Text(StringParamType):
    """A text option or argument (a title, a source, a principal, a question): its
    bytes must be UTF-8. Python hands other bytes over as lone surrogates
    (surrogateescape), which no store, JSON document or HTTP header can carry: they
    are refused here, exit 2, before anything is read or written. Paths (files to
    ingest, ``--db``) are not text and keep their bytes."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = super().convert(value, param, ctx)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(text[exc.start])  # U+DC80..U+DCFF: the byte the shell passed
            what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code < 0xDD00 else f"U+{code:04X}"
            self.fail(f"not valid text ({what} at character {exc.start} is not UTF-8)", param, ctx)
        return text


UTF8_TEXT = Utf8Text()


def db_option(func: F) -> F:
    return click.option(
        "--db",
        type=click.Path(dir_okay=False),
        default=None,
        help=f"Store: a SQLite file or a postgresql:// URL (default: $TETHER_DB or {default_db_path()}).",
    )(func)


def judge_option(func: F) -> F:
    return click.option(
        "--judge", "judge", metavar="KIND:TARGET", default=None,
        help="Model judge behind the lexical test: gguf:PATH (a local GGUF reader), "
             "nli:DIR, openai:MODEL or anthropic:MODEL (default: $TETHER_JUDGE or the "
             "judge setting).",
    )(func)


def command_settings(ctx: click.Context, **options: Any) -> Settings:
    """The settings file and environment, with what this command's options override
    (an option left unset, None, overrides nothing)."""
    overrides = {name: value for name, value in options.items() if value is not None}
    return load_settings(ctx.obj.get("config") if ctx.obj else None, **overrides)


def open_tether(
    ctx: click.Context, db: str | None, *, create: bool = False, **options: Any
) -> Tether:
    """The facade on ``db`` under this command's settings (``options``: settings its
    flags override, e.g. ``judge``)."""
    # Imported by the commands that open a store, not by every command (the facade
    # itself imports the answer pipeline only when a command asks).
    from ..facade import Tether

    return Tether(db, settings=command_settings(ctx, **options), create=create)


def read_json_lines(stream: IO[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Numbered JSON objects, one per non-blank line; a bad line is an InputError."""
    number = 0
    lines = iter(stream)
    while True:
        try:
            line = next(lines)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:
            raise InputError(f"line {number + 1}: not valid UTF-8") from exc
        number += 1
        if not line.strip():
            continue
        yield number, parse_json_object(line, where=f"line {number}")


def read_text(stream: IO[str], *, where: str = "stdin") -> str:
    """All of ``stream``; bytes that are not UTF-8 are bad input, not a crash."""
    try:
        return stream.read()
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not valid UTF-8 (byte at offset {exc.start})") from exc


def _json_limits() -> tuple[int, int]:
    """``max_json_depth`` and ``max_json_number_chars`` of this command's settings."""
    ctx = click.get_current_context(silent=True)
    obj = ctx.find_root().obj if ctx is not None else None
    if not isinstance(obj, dict):
        settings = load_settings()
        return settings.max_json_depth, settings.max_json_number_chars
    if "json_limits" not in obj:
        settings = load_settings(obj.get("config"))
        obj["json_limits"] = (settings.max_json_depth, settings.max_json_number_chars)
    limits: tuple[int, int] = obj["json_limits"]
    return limits


def parse_json_object(text: str, *, where: str) -> dict[str, Any]:
    """One JSON object, decoded strictly (``tether.text.jsonin``): invalid UTF-8, an
    unpaired surrogate, deep nesting or a huge number is an InputError (exit 2)."""
    depth, number_chars = _json_limits()
    value = loads_strict(text, where=where, max_depth=depth, max_number_chars=number_chars)
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(value).__name__}")
    return value


def require(obj: dict[str, Any], key: str, kind: type, *, where: str) -> Any:
    if key not in obj:
        raise InputError(f"{where}: missing key {key!r}")
    if not isinstance(obj[key], kind):
        raise InputError(f"{where}: {key!r} must be a {kind.__name__}")
    return obj[key]


def open_input(path: str) -> IO[str]:
    if path == "-":
        return sys.stdin  # text as Python decodes it (click.get_text_stream is going in Click 9)
    try:
        return Path(path).open(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
