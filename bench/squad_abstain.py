"""Abstention on SQuAD 2.0 "Normans": answer accuracy, abstain precision and recall.

    python bench/squad_abstain.py [--data ../shared/data] [--show]
    python bench/squad_abstain.py --judge openai:MODEL --judge-url http://127.0.0.1:8000/v1

Each paragraph is ingested as one document into a temporary store (see
shared/data/README.md); the data is read in place, never copied. An answerable
question counts as answered when a rendered sentence contains one of its gold
answers (case-insensitive); an unanswerable one when Tether refuses. A refusal of
an answerable question counts against answer accuracy.

Configurations, each against the baseline measured in the same run:

* ``baseline``     — abstain gate off: only the citation guard (which never refuses
                     a verbatim sentence), so refusals are near zero.
* ``probe``        — the retrieval probe alone (read from a shadow-mode run).
* ``probe+guard``  — the abstain gate on: probe and answer check.

The probe threshold is calibrated on the tuning split only (three questions in
four); every fourth question (fixed, by position) is held out to show overfitting.
Rows are printed with the uncalibrated default threshold too. With ``--judge``, the
answer check also asks that model whether the cited sentences answer the question
(``answercheck.judge_answers``), so ``probe+guard`` includes it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.config import Settings
from tether.facade import Tether
from tether.ingest.files import Metadata
from tether.ingest.write import ingest_bytes
from tether.records import Answer
from tether.retrieve.calibrate import calibrate, describe, save_calibration
from tether.retrieve.probe import DEFAULT_THRESHOLD

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data"


@dataclass(frozen=True)
class Question:
    index: int
    text: str
    answerable: bool
    answers: tuple[str, ...]

    @property
    def held_out(self) -> bool:
        return self.index % 4 == 3


def load(data: Path, tether: Tether) -> list[Question]:
    raw = json.loads((data / "squad2-dev-normans.json").read_text(encoding="utf-8"))
    questions: list[Question] = []
    for article in raw["data"]:
        for i, paragraph in enumerate(article["paragraphs"]):
            meta = Metadata(
                source=f"squad2:{article['title']}:{i}", title=article["title"],
                license="CC BY-SA 4.0",
            )
            ingest_bytes(tether.store, paragraph["context"].encode("utf-8"),
                         media_type="text/plain", meta=meta, settings=tether.settings)
            for qa in paragraph["qas"]:
                questions.append(
                    Question(len(questions), qa["question"], not qa["is_impossible"],
                             tuple(a["text"] for a in qa["answers"]))
                )
    return questions


def answered(q: Question, answer: Answer) -> bool:
    shown = " ".join(s.text for s in answer.sentences).lower()
    return any(a.lower() in shown for a in q.answers)


def shadow_layers(answer: Answer) -> set[str]:
    return {e["layer"] for e in answer.trace.get("shadow", []) if e.get("gate") == "abstain"}


def scores(rows: list[tuple[Question, bool, bool]]) -> dict[str, float]:
    """rows: (question, refused, correct-if-shown)."""
    ans = [r for r in rows if r[0].answerable]
    una = [r for r in rows if not r[0].answerable]
    refused = [r for r in rows if r[1]]
    def ratio(a: int, b: int) -> float:
        return a / b if b else 0.0  # a refusal-free run has no precision: 0, never NaN
    return {
        "accuracy": ratio(sum(1 for q, ref, ok in ans if ok and not ref), len(ans)),
        "abstain_precision": ratio(sum(1 for q, *_ in refused if not q.answerable), len(refused)),
        "abstain_recall": ratio(sum(1 for r in una if r[1]), len(una)),
        "refused": float(len(refused)),
        "n": float(len(rows)),
    }


def run(tether: Tether, questions: list[Question], label: str, show: bool) -> dict[str, Any]:
    results: dict[str, list[tuple[Question, bool, bool]]] = {
        "baseline": [], "probe": [], "probe+guard": [],
    }
    started = time.perf_counter()
    judged = failed = 0
    for q in questions:
        off = tether.ask(q.text, modes={"abstain": "off"}, record=False)
        shadow = tether.ask(q.text, modes={"abstain": "shadow"}, record=False)
        on = tether.ask(q.text, modes={"abstain": "on"}, record=False)
        results["baseline"].append((q, off.refused, answered(q, off)))
        results["probe"].append((q, shadow.refused or "probe" in shadow_layers(shadow),
                                 answered(q, shadow)))
        results["probe+guard"].append((q, on.refused, answered(q, on)))
        if "answer_judge" in on.trace:
            judged += 1
            failed += on.trace["answer_judge"]["error"] is not None
        if show and (q.answerable == on.refused):
            what = "refused answerable" if q.answerable else "answered unanswerable"
            print(f"  [{what}] {q.text!r}: {on.refusal_reason or on.sentences[0].text[:90]}")
    elapsed = time.perf_counter() - started
    print(f"\n{label}  ({len(questions)} questions x 3 runs in {elapsed:.1f} s)")
    if judged:  # a judge that failed left the lexical decision: say how often
        print(f"answer judge asked {judged} times, failed {failed}")
    print(f"{'config':<12} {'split':<9} {'accuracy':>8} {'abst.prec':>9} {'abst.rec':>8} "
          f"{'refused':>7}  vs baseline (acc ratio, recall gain)")
    out: dict[str, Any] = {}
    for name, rows in results.items():
        for split in ("tuning", "held-out"):
            part = [r for r in rows if r[0].held_out == (split == "held-out")]
            m = scores(part)
            base = scores([r for r in results["baseline"] if r[0].held_out == (split == "held-out")])
            ratio = m["accuracy"] / base["accuracy"] if base["accuracy"] else 0.0
            print(f"{name:<12} {split:<9} {m['accuracy']:>8.3f} {m['abstain_precision']:>9.3f} "
                  f"{m['abstain_recall']:>8.3f} {int(m['refused']):>7}  "
                  f"x{ratio:.2f}, +{m['abstain_recall'] - base['abstain_recall']:.3f}")
            out[f"{name}/{split}"] = m
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--show", action="store_true", help="list the questions handled wrongly")
    parser.add_argument("--judge", default="", help="a judge setting, e.g. openai:MODEL")
    parser.add_argument("--judge-url", default="", help="the judge's server (OpenAI-compatible)")
    args = parser.parse_args(argv)
    if not (args.data / "squad2-dev-normans.json").is_file():
        print(f"error: no squad2-dev-normans.json in {args.data}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tether-squad-") as tmp:
        settings = Settings(judge=args.judge, generator_base_url=args.judge_url)
        with Tether(Path(tmp) / "squad.db", settings=settings) as tether:
            questions = load(args.data, tether)
            print(f"SQuAD 2.0 Normans: {len(questions)} questions "
                  f"({sum(q.answerable for q in questions)} answerable), "
                  f"{tether.store.counts()['passages']} passages; held out: every 4th question")
            run(tether, questions, f"default probe threshold {DEFAULT_THRESHOLD:g} (uncalibrated)",
                args.show)
            tuning = [(q.text, q.answerable) for q in questions if not q.held_out]
            cal = calibrate(tether.store, tuning, settings=tether.settings)
            save_calibration(tether.store, cal)
            print("\ncalibrated on the tuning split:\n  " + "\n  ".join(describe(cal)))
            tether._threshold = None  # pick up the calibration just saved
            run(tether, questions, f"calibrated probe threshold {cal.threshold:g}", args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
