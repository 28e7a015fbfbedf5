"""Prints how many inputs each fuzz target was given (see ``fuzzhelp``) when asked
with ``TETHER_FUZZ_REPORT=1``: by default pytest's own result line stays the last line."""

from __future__ import annotations

import os
from typing import Any

from .fuzzhelp import TRIED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if TRIED and os.environ.get("TETHER_FUZZ_REPORT"):
        terminalreporter.write_sep("-", f"fuzz inputs tried: {sum(TRIED.values())}")
        for target, count in sorted(TRIED.items()):
            terminalreporter.write_line(f"{count:8d}  {target}")
