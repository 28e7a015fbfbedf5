"""Whether the support test's verdicts depend on the interpreter's hash seed.

Every pair of the development sets (SICK, WiCE, HealthVer, negated SNLI) is checked
in one subprocess per ``PYTHONHASHSEED``; the outcome, the reasons and the span of
each pair are compared across the seeds. A set's iteration order follows the seed, so
any verdict that reads a set in order (a float sum over it, the first of a tie) shows
up here as a pair whose verdict changes between runs of the same input.

    python bench/verifier_determinism.py [--data ../shared/data] [--seeds 1,2,3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from verifier_sets import SETS, default_data

_SETS = ("SICK", "WiCE", "HealthVer", "negated SNLI")


def verdicts(data: Path) -> list[list[object]]:
    """[set, pair number, outcome, reasons, span] for every pair, in this process."""
    from tether.config import Settings
    from tether.verify import check

    settings = Settings()
    out: list[list[object]] = []
    for name in _SETS:
        for i, (premise, claim, _) in enumerate(SETS[name](data)):
            result = check(claim, premise, settings=settings)
            out.append([name, i, result.outcome, list(result.reasons), result.span])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a child's run
    args = ap.parse_args()
    if args.one:
        json.dump(verdicts(args.data), sys.stdout)
        return
    runs = {}
    for seed in args.seeds.split(","):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, __file__, "--one", "--data", str(args.data)],
                              capture_output=True, text=True, env=env, check=True)
        runs[seed] = json.loads(done.stdout)
    first, *others = runs.values()
    changed = [i for i in range(len(first)) if any(run[i] != first[i] for run in others)]
    outcome = [i for i in changed if any(run[i][2] != first[i][2] for run in others)]
    print(f"{len(first)} pairs under seeds {args.seeds}: {len(changed)} verdicts differ "
          f"({len(outcome)} in outcome, the rest in reasons or span)")
    for i in changed[:10]:
        print("  ", *first[i][:2], *(run[i][2:4] for run in runs.values()))


if __name__ == "__main__":
    main()
