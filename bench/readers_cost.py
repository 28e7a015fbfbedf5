"""What the trained reader costs an answer: ask latency beside the lexical reader's, same store.

    python bench/readers_cost.py --db STORE [--golden ../shared/data/realdocs-dev/golden.jsonl]
                                 [--every 6]

Every ``--every``-th question of the golden file is asked once per reader (after one
warm-up ask that loads the models), recording nothing; prints p50 / p95 of
``timings_ms.total_ms``. Run it on a quiet machine: it measures wall time.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from tether import Tether
from tether.config import load_settings

HERE = Path(__file__).resolve().parent
GOLDEN = HERE.parent.parent / "shared" / "data" / "realdocs-dev" / "golden.jsonl"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--golden", type=Path, default=GOLDEN)
    ap.add_argument("--every", type=int, default=6)
    args = ap.parse_args()
    lines = args.golden.read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()][:: args.every]
    for reader in ("lexical", "trained"):
        with Tether(args.db, settings=load_settings(reader=reader), create=False) as t:
            t.ask("warm up", record=False)
            ms = sorted(t.ask(q, record=False).timings_ms["total_ms"] for q in questions)
        print(f"{reader:8s} {len(ms)} questions  p50 {statistics.median(ms):.0f} ms"
              f"  p95 {ms[max(0, int(0.95 * len(ms)) - 1)]:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
