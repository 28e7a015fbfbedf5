"""Prints how many inputs each fuzz target was given (see ``fuzzhelp``)."""

from __future__ import annotations

from typing import Any

from .fuzzhelp import TRIED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if TRIED:
        terminalreporter.write_sep("-", f"fuzz inputs tried: {sum(TRIED.values())}")
        for target, count in sorted(TRIED.items()):
            terminalreporter.write_line(f"{count:8d}  {target}")
