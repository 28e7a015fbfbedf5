"""Commands are imported on demand (``COMMAND_MODULES``): a command whose module is
not listed there would silently not exist, and a listed name must be what its module
registers."""

from __future__ import annotations

import importlib
import pkgutil

import tether.cli
from tether.cli._common import COMMAND_MODULES
from tether.cli._common import cli as group


def _registered_by(module: str) -> set[str]:
    before = set(group.commands)
    importlib.import_module(f"tether.cli.{module}")
    # A module imported earlier registered its commands then: find them by callback.
    return {name for name, command in group.commands.items()
            if name not in before or command.callback.__module__ == f"tether.cli.{module}"}


def test_every_command_module_is_listed_under_the_names_it_registers() -> None:
    modules = [m.name for m in pkgutil.iter_modules(tether.cli.__path__) if not m.name.startswith("_")]
    registered = {name: module for module in modules for name in _registered_by(module)}
    assert registered == COMMAND_MODULES


def test_a_command_is_found_by_name_and_help_lists_every_one() -> None:
    from click.testing import CliRunner

    out = CliRunner().invoke(group, ["--help"]).output
    assert all(name in out for name in COMMAND_MODULES)
    assert group.get_command(None, "ingest") is not None  # type: ignore[arg-type]
    assert group.get_command(None, "no-such-command") is None  # type: ignore[arg-type]
