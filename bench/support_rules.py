"""The support test's rules on the development sets: how often each decides, and how well.

For each rule of ``tether.verify.rules.RULES`` and each set (SICK train+trial, WiCE
dev, HealthVer dev, negated SNLI; read by ``verifier_sets``), the bench prints:

- fires: the verdicts the rule decided — those whose ``Check.rules`` name it (a licence
  of a ``supported`` verdict, the check that capped or contradicted it); a licence
  that keeps a check from firing (``rules.UNNAMED``) decides the pairs whose outcome
  changes when it is switched off;
- precision: the share of those verdicts that agree with the gold label (``supported``
  an entailment, ``contradicted`` a contradiction, ``mentioned``/``unsupported`` not
  an entailment).

``--off NAME`` (repeatable) prints each set's figures with those rules switched off
(``Settings.support_rules_off``) beside all on: precision of ``supported`` (count),
recall of entailed pairs, contradictions named.

    python bench/support_rules.py [--data ../shared/data] [--cap 300] [--off NAME ...]

The data is read in place and never copied into the repository.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections import Counter
from pathlib import Path

from verifier_sets import SETS, default_data, figures

from tether.config import Settings
from tether.evaluate.verifier import GOLD_LABELS, normalise_label
from tether.records import OUTCOMES
from tether.verify import Check, check
from tether.verify.rules import RULES, UNNAMED, rules_off

SET_NAMES = ("SICK", "WiCE", "HealthVer", "negated SNLI")
Pair = tuple[str, str, str]  # (claim, passage, gold)


def _pairs(data: Path, name: str, cap: int | None) -> list[Pair]:
    rows = itertools.islice(SETS[name](data), cap)
    return [(hypothesis, premise, normalise_label(label)) for premise, hypothesis, label in rows]


def _right(outcome: str, gold: str) -> bool:
    if outcome == "supported":
        return gold == "entailment"
    if outcome == "contradicted":
        return gold == "contradiction"
    return gold != "entailment"


def _run(pairs: list[Pair], off: str = "") -> list[Check]:
    settings = Settings(support_rules_off=off)
    return [check(claim, passage, settings=settings) for claim, passage, _ in pairs]


def _set_figures(pairs: list[Pair], results: list[Check]) -> dict:
    confusion = {g: dict.fromkeys(OUTCOMES, 0) for g in GOLD_LABELS}
    for (_, _, gold), r in zip(pairs, results, strict=True):
        confusion[gold][r.outcome] += 1
    counts = {g: sum(row.values()) for g, row in confusion.items()}
    return figures({"confusion": confusion, "counts": counts})


def _rule_counts(pairs: list[Pair], results: list[Check]) -> tuple[Counter, Counter]:
    """(fires, right) per rule named by the verdicts, once per verdict."""
    fires: Counter = Counter()
    right: Counter = Counter()
    for (_, _, gold), r in zip(pairs, results, strict=True):
        for name in {u.rule for u in r.rules} & RULES.keys():
            fires[name] += 1
            right[name] += _right(r.outcome, gold)
    return fires, right


def _unnamed_counts(pairs: list[Pair], results: list[Check], fires: Counter, right: Counter) -> None:
    """Fires of the licences no verdict names: the pairs whose outcome they change."""
    for name in sorted(UNNAMED):
        for (_, _, gold), on, off in zip(pairs, results, _run(pairs, name), strict=True):
            if on.outcome != off.outcome:
                fires[name] += 1
                right[name] += _right(on.outcome, gold)


def _f(x: float | int | None) -> str:
    return "  n/a" if x is None else f"{x:5.3f}"


def _print_rules(per_set: dict[str, tuple[Counter, Counter]], sizes: dict[str, int]) -> None:
    head = "".join(f"{f'{name} ({sizes[name]})':>24}" for name in per_set)
    print(f"{'rule':<24}{head}\n{'':<24}" + "".join(f"{'fires  precision':>24}" for _ in per_set))
    for rule in RULES:
        cells = []
        for fires, right in per_set.values():
            n = fires[rule]
            cells.append(f"{n:>13}  {_f(right[rule] / n) if n else '    -'}")
        print(f"{rule:<24}" + "".join(f"{c:>24}" for c in cells))


def _print_figures(name: str, label: str, fig: dict, took: float | None) -> None:
    print(f"{name:<13}{label:>22}{_f(fig['precision']):>10} ({fig['supported']:>4})"
          f"{_f(fig['recall']):>9} of {fig['entailed']:<4}{_f(fig['contradicted']):>9} of {fig['contradictions']:<4}"
          + (f"{took:>7.1f}s" if took is not None else ""))  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--cap", type=int, default=None, metavar="N", help="read at most N pairs of each set")
    ap.add_argument("--off", action="append", default=[], metavar="NAME",
                    help="print the set figures with this rule switched off beside all on")  # fmt: skip
    args = ap.parse_args(argv)
    if not (args.data / "README.md").is_file():
        print(f"data not found at {args.data} (set --data or TETHER_DATA)", file=sys.stderr)
        return 2
    off = ",".join(sorted(rules_off(args.off)))  # an unknown name fails here, naming it
    per_set: dict[str, tuple[Counter, Counter]] = {}
    sizes: dict[str, int] = {}
    rows: list[tuple[str, str, dict, float | None]] = []
    for name in SET_NAMES:
        t = time.perf_counter()
        pairs = _pairs(args.data, name, args.cap)
        results = _run(pairs)
        fires, right = _rule_counts(pairs, results)
        _unnamed_counts(pairs, results, fires, right)
        per_set[name], sizes[name] = (fires, right), len(pairs)
        rows.append((name, "all rules on", _set_figures(pairs, results), time.perf_counter() - t))
        if off:
            rows.append((name, "rules off", _set_figures(pairs, _run(pairs, off)), None))
    _print_rules(per_set, sizes)
    print(f"\n{'set':<13}{'':>22}{'precision (n)':>17}{'entailed recall':>17}{'contradictions':>16}"
          + (f"\n(rules off: {off})" if off else ""))  # fmt: skip
    for row in rows:
        _print_figures(*row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
