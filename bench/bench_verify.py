"""Throughput of the support test on one core, against a substring baseline.

Pairs are built the way the guard makes them: every sentence of a paragraph (as is, with
a negation, with a changed figure) against its own paragraph and against seven other
paragraphs, i.e. top_k = 8 retrieved passages per sentence. Three runs of ``check``:

- warm:     passages already tokenised (the cache the guard relies on);
- guard:    cache cleared before the run, so each passage is tokenised on first use;
- no cache: cache cleared before every pair (worst case, every pair from scratch).

The baseline is ``sentence.lower() in passage.lower()`` over the same pairs in the
same process; the ratio says how many baseline tests one check costs. Times are CPU
time of this process (best of ``--repeat``). Target: at least 2,000 checks per second.

    python bench/bench_verify.py [--data ../shared/data] [--pairs 4000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

from tether.config import Settings
from tether.text.sentences import sentence_ranges
from tether.verify import check
from tether.verify.lexical import clear_cache

_FALLBACK = [
    "The harbour bridge opened in 1932 after six years of work. It carries 160,000 vehicles "
    "a day. Engineers replaced its cables in 2019, at a cost of $41 million.",
    "Rollo, a Viking leader, agreed to swear fealty to King Charles III in 911. His "
    "descendants ruled Normandy for two centuries. The duchy was not part of France then.",
    "The vaccine reduced hospital admissions by 62% among adults over 65. It was less "
    "effective in children. The trial enrolled 4,200 volunteers in three countries.",
    "Most glaciers in the Alps have lost a third of their volume since 1980. Some may "
    "vanish by 2100. The Rhone glacier retreated 1.4 km over the last century.",
]


def _paragraphs(data: Path | None) -> list[str]:
    if data is None or not (data / "squad2-dev-normans.json").is_file():
        return _FALLBACK
    squad = json.loads((data / "squad2-dev-normans.json").read_text(encoding="utf-8"))
    out = [p["context"] for a in squad["data"] for p in a["paragraphs"]]
    with (data / "halueval-qa-dev.jsonl").open(encoding="utf-8") as fh:
        out += [json.loads(line)["knowledge"] for line in fh if line.strip()]
    return out


def build_pairs(paragraphs: list[str], limit: int, seed: int = 5) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs: list[tuple[str, str]] = []
    for i, para in enumerate(paragraphs):
        others = [p for j, p in enumerate(paragraphs) if j != i]
        for a, b in sentence_ranges(para):
            sentence = para[a:b]
            variants = [sentence, sentence.replace(" was ", " was not ", 1)]
            variants.append("".join(str((int(c) + 1) % 10) if c.isdigit() else c for c in sentence))
            for v in variants:
                for passage in [para] + rng.sample(others, min(7, len(others))):
                    pairs.append((v, passage))
                    if len(pairs) >= limit:
                        return pairs
    return pairs


def _time(fn: Callable[[], None], repeat: int) -> float:
    # CPU time of this process, best of ``repeat``: "per second on one core" should not
    # depend on what else the machine is doing.
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("TETHER_DATA", default)))
    ap.add_argument("--pairs", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as promised
    settings = Settings()
    pairs = build_pairs(_paragraphs(args.data), args.pairs)
    n = len(pairs)

    def baseline() -> None:
        for s, p in pairs:
            _ = s.lower() in p.lower()

    def run() -> None:
        for s, p in pairs:
            check(s, p, settings=settings)

    def guard() -> None:
        clear_cache()
        run()

    def no_cache() -> None:
        for s, p in pairs:
            clear_cache()
            check(s, p, settings=settings)

    run()  # warm the cache and the interpreter
    base = _time(baseline, args.repeat)
    timings = {"warm": _time(run, args.repeat), "guard": _time(guard, args.repeat),
               "no cache": _time(no_cache, args.repeat)}  # fmt: skip
    passages = len({p for _, p in pairs})
    print(f"{n} sentence-passage pairs ({passages} distinct passages), one core")
    print(f"  substring baseline  {n / base:>11,.0f} pairs/s")
    for name, took in timings.items():
        rate = n / took
        flag = "ok" if rate >= 2000 else "BELOW 2,000/s"
        ratio = took / base
        print(f"  check, {name:<10}  {rate:>11,.0f} checks/s   {ratio:>6.0f}x baseline   {flag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
