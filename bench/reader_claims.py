"""The reader as the support judge on the claims sets: precision and recall of ``supported``.

    python3 bench/reader_claims.py --model /work/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
        [--per-set 40] [--threads 2] [--only WiCE ...]

For a fixed sample of each set (every k-th pair, ``--per-set`` pairs; the loaders of
``bench/verifier_sets.py``), each pair is checked by the lexical support test
(``check``) and, unless that found a contradiction (which the judge never
overturns), the reader's P(yes) for "does the passage state this sentence?" is read
once. The outcomes are then combined offline for each threshold t exactly as
``judges.base.combine`` does:

* ``lexical only``: the baseline of the same run;
* ``+ reader (withhold)``: a lexical ``supported`` stays only if P(yes) >= t;
* ``+ reader (paraphrase)``: with ``judge_accepts_paraphrase``, P(yes) >= t also lifts a
  lexical ``mentioned`` / ``unsupported`` to ``supported``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

from verifier_sets import SETS, default_data

from tether.config import Settings
from tether.evaluate.verifier import normalise_label
from tether.judges.gguf import ReaderFailure
from tether.judges.reader import gguf_judge
from tether.verify import check

THRESHOLDS = (0.3, 0.5, 0.7, 0.8, 0.9, 0.95)


def sample(name: str, data: Path, n: int) -> list[tuple[str, str, str]]:
    pairs = [(p, h, normalise_label(g)) for p, h, g in SETS[name](data)]
    step = max(1, len(pairs) // n)
    return list(itertools.islice(pairs[::step], n))


def figures(rows: list[dict], mode: str, t: float) -> tuple[float | None, float | None, int]:
    def supported(r: dict) -> bool:
        p = r["p"]
        if mode == "lexical" or p is None:
            return r["lexical"] == "supported"
        if r["lexical"] == "supported":
            return p >= t
        return mode == "paraphrase" and r["lexical"] in ("mentioned", "unsupported") and p >= t
    chosen = [r for r in rows if supported(r)]
    entailed = [r for r in rows if r["gold"] == "entailment"]
    hit = sum(1 for r in chosen if r["gold"] == "entailment")
    precision = hit / len(chosen) if chosen else None
    recall = hit / len(entailed) if entailed else None
    return precision, recall, len(chosen)


def _f(x: float | None) -> str:
    return "  n/a" if x is None else f"{x:.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--per-set", type=int, default=40)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per reader call")
    ap.add_argument("--only", choices=sorted(SETS), action="append")
    args = ap.parse_args(argv)
    settings = Settings(judge_threads=args.threads, judge_timeout=args.timeout)
    reader = gguf_judge(args.model, settings)
    print(f"reader: {reader.describe()}")
    for name in args.only or SETS:
        rows, calls, failed, took = [], 0, 0, time.perf_counter()
        why: set[str] = set()
        for premise, hypothesis, gold in sample(name, args.data, args.per_set):
            lexical = check(hypothesis, premise, settings=settings).outcome
            p = None
            if lexical != "contradicted":
                calls += 1
                try:
                    p, _ = reader.score("support", premise, hypothesis)
                except ReaderFailure as exc:
                    failed += 1
                    why.add(str(exc)[:80])
            rows.append({"gold": gold, "lexical": lexical, "p": p})
        took = time.perf_counter() - took
        n_ent = sum(r["gold"] == "entailment" for r in rows)
        print(f"\n{name}: {len(rows)} pairs sampled ({n_ent} entailed), {calls} reader calls "
              f"({failed} failed{': ' + '; '.join(sorted(why)) if why else ''}) in {took:.0f} s"
              f" = {took / max(1, calls):.2f} s/call")
        lp, lr, ln = figures(rows, "lexical", 0.0)
        print(f"  lexical only             precision {_f(lp)} ({ln:>3} supported)  recall {_f(lr)}")
        for t in THRESHOLDS:
            wp, wr, wn = figures(rows, "withhold", t)
            pp, pr, pn = figures(rows, "paraphrase", t)
            print(f"  t={t:.2f} withhold         precision {_f(wp)} ({wn:>3})  recall {_f(wr)}"
                  f"   | paraphrase precision {_f(pp)} ({pn:>3})  recall {_f(pr)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
