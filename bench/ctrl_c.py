"""Ctrl-C through a real terminal (a pty), ``--tries`` times each into ``tether
ingest``, ``tether verify`` and ``tether serve`` while their worker processes run
(issue 35 §3): how many tries exited 130 with the one line ``error: interrupted``,
no traceback or ``KeyboardInterrupt`` from any process, no process left behind and,
for ingest, a consistent store.

    PYTHONPATH=src python bench/ctrl_c.py [--tries 20] [--case ingest --case verify ...]
                                          [--src OTHER_CHECKOUT/src]

The cases are tests/ctrl_c_cases.py's (tests/cli/test_ctrl_c.py runs a few tries of
each). A failed try's problems and last lines are printed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import ctrl_c_cases  # noqa: E402
from ctrl_c_cases import CASES  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    parser.add_argument("--src", help="the tether to run (default: this checkout's src)")
    args = parser.parse_args()
    if args.src:  # e.g. an older checkout's, for a before/after
        ctrl_c_cases.SRC = str(Path(args.src).resolve())
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.case or list(CASES):
            case = CASES[name](Path(tmp) / name)
            case.setup()
            clean = 0
            started = time.monotonic()
            for n in range(args.tries):
                run, found = case.check()
                if found:
                    if "Traceback" in run.shown:
                        start = run.shown.index("Traceback")
                        print(run.shown[max(0, start - 300):start + 3000], flush=True)
                    print(f"{name} try {n + 1}: {'; '.join(found)}\n    last lines: {run.lines[-4:]!r}",
                          flush=True)
                else:
                    clean += 1
            failed += args.tries - clean
            print(f"{name}: {clean}/{args.tries} clean ({time.monotonic() - started:.0f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
