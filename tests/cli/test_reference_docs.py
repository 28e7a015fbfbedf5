"""The README's CLI reference names every command and option the code has.

The reference is the synopsis block of the README's "Command line" section plus the
synopsis block of its "HTTP service" section: lines starting with ``tether``, each
with its indented continuation lines. Every command of the click tree under
``tether.cli`` needs a synopsis line (``tether keys list|revoke`` covers both), and
every option of that command must appear on one of its synopsis lines. A new command
or option that is not documented fails here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from tether.cli import cli

README = Path(__file__).resolve().parents[2] / "README.md"
SYNOPSIS_SECTIONS = ("Command line", "HTTP service")


def _section(text: str, title: str) -> str:
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, f"README has no '## {title}' section"
    return found.group(1)


def _first_block(section: str) -> list[str]:
    found = re.search(r"^```[a-z]*\n(.*?)^```", section, re.M | re.S)
    assert found, "the section has no code block"
    return found.group(1).splitlines()


def synopses() -> list[str]:
    """Each ``tether …`` synopsis, continuation lines joined, comments dropped."""
    text = README.read_text(encoding="utf-8")
    entries: list[str] = []
    for title in SYNOPSIS_SECTIONS:
        for line in _first_block(_section(text, title)):
            code = line.split("  #", 1)[0].rstrip()
            if code.startswith("tether "):
                entries.append(code)
            elif code.startswith(" ") and entries and code.strip():
                entries[-1] += " " + code.strip()
    return entries


def commands(group: click.Command = cli, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    if isinstance(group, click.Group):
        for name, command in sorted(group.commands.items()):
            if not command.hidden:
                yield from commands(command, (*path, name))
    else:
        yield path, group


def options(command: click.Command) -> list[str]:
    """The long names of a command's visible options (``--help`` aside)."""
    found = []
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            names = [n for n in (*param.opts, *param.secondary_opts) if n.startswith("--")]
            found.extend(n for n in names if n != "--help")
    return found


def lines_for(path: tuple[str, ...], entries: list[str]) -> list[str]:
    """The synopsis lines naming the command ``path`` (alternatives as ``a|b``)."""
    matching = []
    for entry in entries:
        words = entry.split()[1:]
        if len(words) >= len(path) and all(
            name in words[i].split("|") for i, name in enumerate(path)
        ):
            matching.append(entry)
    return matching


def _mentions(option: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def test_the_reference_is_found_and_names_known_commands():
    entries = synopses()
    assert len(entries) >= 15, entries
    known = {path[0] for path, _ in commands()}
    for entry in entries:
        first = entry.split()[1].split("|")[0]
        assert first in known, f"the README documents 'tether {first}', which does not exist: {entry}"


@pytest.mark.parametrize("path,command", list(commands()), ids=lambda v: " ".join(v) if isinstance(v, tuple) else "")
def test_every_command_and_option_is_in_the_readme(path, command):
    matching = lines_for(path, synopses())
    assert matching, f"'tether {' '.join(path)}' is missing from the README's CLI reference"
    missing = [o for o in options(command) if not any(_mentions(o, line) for line in matching)]
    assert not missing, f"'tether {' '.join(path)}' options missing from the README's CLI reference: {missing}"


def test_every_documented_option_exists():
    """The other way round: an option the README shows on a synopsis line is real."""
    for entry in synopses():
        words = entry.split()[1:]
        path = tuple(w.split("|")[0] for w in words[:2])
        candidates = [c for p, c in commands() if p == path[: len(p)]]
        assert candidates, entry
        real = {o for c in candidates for o in options(c)}
        shown = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", entry))
        assert shown <= real, f"{entry}: not options of the command: {sorted(shown - real)}"


def test_global_options_are_documented():
    section = _section(README.read_text(encoding="utf-8"), "Command line")
    missing = [o for o in options(cli) if not _mentions(o, section)]
    assert not missing, f"global options missing from the README's 'Command line' section: {missing}"
