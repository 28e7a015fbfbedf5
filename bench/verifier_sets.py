"""The support test on the development sets: precision of ``supported`` first.

For each set (SICK train/trial, WiCE dev, HealthVer dev, negated SNLI) the sentence is
checked against its premise with ``check(hypothesis, premise)`` — what ``tether
eval-verifier`` does — and the bench prints, beside the figures recorded before the
structural support test (``verifier_sets_before.json``, measured with the lexical-loose
test of commit 65442bc):

- precision of ``supported``: the share of ``supported`` verdicts whose pair is an
  entailment, with the count of ``supported`` verdicts (target >= 0.95);
- recall of entailed pairs: the share of entailment pairs judged ``supported``;
- contradictions named: the share of contradiction pairs judged ``contradicted``.

SICK is also given by its SemEval split: the licences of ADR 0025 were developed on
TRAIN misses only, so TRIAL shows whether they carry over.

    python bench/verifier_sets.py [--data ../shared/data] [--record before.json] [--show N] [--misses]

The data is read in place and never copied into the repository.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tether.config import Settings
from tether.evaluate.verifier import evaluate_pairs, normalise_label
from tether.verify import check

Pairs = Iterator[tuple[str, str, str]]
BEFORE = Path(__file__).with_name("verifier_sets_before.json")


def default_data() -> Path:
    env = os.environ.get("TETHER_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


def sick_pairs(data: Path, split: str | None = None) -> Pairs:
    """SICK pairs, all or one SemEval split ("TRAIN": developed on; "TRIAL": held out)."""
    with (data / "sick_train_trial.txt").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if split is None or row["SemEval_set"] == split:
                yield row["sentence_A"], row["sentence_B"], row["entailment_label"]


def sick_train(data: Path) -> Pairs:
    return sick_pairs(data, "TRAIN")


def sick_trial(data: Path) -> Pairs:
    return sick_pairs(data, "TRIAL")


def wice_pairs(data: Path) -> Pairs:
    with (data / "wice_claim_dev.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                obj = json.loads(line)
                yield " ".join(obj["evidence"]), obj["claim"], obj["label"]


def healthver_pairs(data: Path) -> Pairs:
    with (data / "healthver_dev.csv").open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            yield row["evidence"], row["claim"], row["label"]


def snli_pairs(data: Path) -> Pairs:
    with (data / "negnli_hossain2020_SNLI.txt").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            yield row["Text"], row["Hypothesis"], row["gold_label"]


SETS: dict[str, Callable[[Path], Pairs]] = {
    "SICK": sick_pairs, "SICK TRAIN": sick_train, "SICK TRIAL": sick_trial,
    "WiCE": wice_pairs, "HealthVer": healthver_pairs, "negated SNLI": snli_pairs,
}  # fmt: skip


def figures(result: dict) -> dict[str, float | int | None]:
    c = result["confusion"]
    supported = sum(c[g]["supported"] for g in c)
    n_ent = result["counts"]["entailment"]
    n_con = result["counts"]["contradiction"]
    return {
        "precision": c["entailment"]["supported"] / supported if supported else None,
        "supported": supported,
        "recall": c["entailment"]["supported"] / n_ent if n_ent else None,
        "entailed": n_ent,
        "contradicted": c["contradiction"]["contradicted"] / n_con if n_con else None,
        "contradictions": n_con,
    }


def _show_false_supports(name: str, pairs: Pairs, settings: Settings, limit: int) -> None:
    shown = 0
    for premise, hypothesis, label in pairs:
        if shown >= limit:
            break
        if normalise_label(label) == "entailment":
            continue
        r = check(hypothesis, premise, settings=settings)
        if r.outcome == "supported":
            shown += 1
            print(f"  [{name}, gold {label}] {hypothesis!r}\n    from {premise[:300]!r}")


# The class of an entailed pair left unsupported, from the reasons ``check`` gives
# (docs/adr/0032): the first that applies.
_MISS_CLASSES = (
    ("a substitution among the reasons", lambda kinds: "substitution" in kinds),
    ("an added word (no substitution)", lambda kinds: "added" in kinds),
    ("structure only (roles, relation words)", lambda kinds: bool(kinds) and kinds <= {"roles", "relation"}),
    ("coverage below the floor, nothing else", lambda kinds: not kinds),
    ("other (predicate, negation, names, figures)", lambda kinds: True),
)


def _count_misses(name: str, pairs: Pairs, settings: Settings) -> None:
    counts = dict.fromkeys((label for label, _ in _MISS_CLASSES), 0)
    for premise, hypothesis, label in pairs:
        if normalise_label(label) != "entailment":
            continue
        r = check(hypothesis, premise, settings=settings)
        if r.outcome == "supported":
            continue
        kinds = {x.split(":", 1)[0] for x in r.reasons} - {"overlap"}
        counts[next(c for c, applies in _MISS_CLASSES if applies(kinds))] += 1
    print(f"  [{name}] entailed pairs not supported, by the reasons given:")
    for cls, n in counts.items():
        print(f"    {n:>5}  {cls}")


def _f(x: float | int | None) -> str:
    return "   n/a" if x is None else f"{x:6.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=default_data())
    ap.add_argument("--record", type=Path, help="write today's figures to this JSON file")
    ap.add_argument("--only", choices=sorted(SETS), action="append")
    ap.add_argument("--show", type=int, default=0, metavar="N",
                    help="print up to N false supports per set (the pairs to work from)")
    ap.add_argument("--misses", action="store_true",
                    help="count the entailed pairs not supported by the class of their reasons")
    args = ap.parse_args(argv)
    if not (args.data / "README.md").is_file():
        print(f"data not found at {args.data} (set --data or TETHER_DATA)", file=sys.stderr)
        return 2
    before = json.loads(BEFORE.read_text(encoding="utf-8")) if BEFORE.is_file() else {}
    settings = Settings()
    now: dict[str, dict] = {}
    print(f"{'set':<13}{'':>6}{'precision (n supported)':>30}{'entailed recall':>22}"
          f"{'contradictions named':>24}{'time':>8}")  # fmt: skip
    for name in args.only or SETS:
        t = time.perf_counter()
        fig = figures(evaluate_pairs(SETS[name](args.data), settings=settings))
        if args.show:
            _show_false_supports(name, SETS[name](args.data), settings, args.show)
        if args.misses:
            _count_misses(name, SETS[name](args.data), settings)
        took = time.perf_counter() - t
        now[name] = fig
        for label, row in (("before", before.get(name)), ("after", fig)):
            if row is None:
                continue
            print(
                f"{name:<13}{label:>6}{_f(row['precision']):>22} ({row['supported']:>5})"
                f"{_f(row['recall']):>15} of {row['entailed']:<4}"
                f"{_f(row['contradicted']):>16} of {row['contradictions']:<4}"
                + (f"{took:>7.1f}s" if label == "after" else "")
            )
    if args.record:
        args.record.write_text(json.dumps(now, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
