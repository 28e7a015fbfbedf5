"""Ctrl-C typed into a real terminal (a pty) while ``tether ingest``, ``verify`` and
``serve`` run their other processes: exit 130, the one line ``error: interrupted``,
no traceback or ``KeyboardInterrupt`` from any process, no process left running and,
for ingest, a consistent store (issue 35 §3). Each phase is tried a few times here;
bench/ctrl_c.py tries each 20 times.

Ctrl-C is typed once the phase is reached (a worker in /proc, the server's
``serving`` line, a request's child of the forkserver), never after a fixed sleep.
"""

from __future__ import annotations

import sys

import pytest
from ctrl_c_cases import CASES

TRIES = 3

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, needs a pty")


@pytest.mark.parametrize("name", sorted(CASES))
def test_ctrl_c_is_one_line_exit_130_and_leaves_nothing_behind(name, tmp_path):
    case = CASES[name](tmp_path)
    case.setup()
    for attempt in range(TRIES):
        run, found = case.check()
        assert not found, (attempt, found, run.shown[-3000:])
