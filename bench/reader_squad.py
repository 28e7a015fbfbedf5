"""The reader's answer check on SQuAD 2.0 "Normans": abstain recall against answer accuracy.

    python3 bench/reader_squad.py --model /work/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
        [--tuning-every 2] [--threads 2]

The same store, questions and split as ``bench/squad_abstain.py`` (every 4th question
held out; the probe threshold calibrated on the tuning split). Each question is asked
once with the abstain gate on and the reader wired in only as the answer check: its
P(yes) for "do the cited sentences answer the question as asked?" is recorded, and
the gate's decision is recomputed offline for every threshold — the lexical gates
(probe + answer check) refuse first, the reader refuses an answer they let through
when P(yes) < t. So one model call per answered question gives the whole curve, and
``lexical only`` (t = 0) is the baseline of the same run. The threshold is chosen on
the tuning split (the highest abstain recall keeping accuracy >= 0.7, else the best
Youden J) and reported on the held-out split. ``--tuning-every N`` samples every
N-th tuning question to save time; the held-out split is always complete.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from squad_abstain import DEFAULT_DATA, Question, answered, load

from tether.config import Settings
from tether.facade import Tether
from tether.judges.base import Judgement
from tether.judges.gguf import ReaderFailure
from tether.judges.reader import ReaderJudge, gguf_judge
from tether.retrieve.calibrate import calibrate, save_calibration


class Recorder:
    """The reader as the answer check only: records P(yes), never refuses itself."""

    def __init__(self, reader: ReaderJudge) -> None:
        self.reader, self.last, self.checker = reader, None, reader.checker
        self.seconds: list[float] = []

    def judge(self, premise: str, hypothesis: str) -> Judgement:
        return Judgement.failed(self.checker, "support not judged in this bench")

    def answers(self, premise: str, question: str) -> Judgement:
        t = time.perf_counter()
        try:
            self.last, _ = self.reader.score("answers", premise, question)
        except ReaderFailure as exc:
            self.last = None
            return Judgement.failed(self.checker, str(exc))
        finally:
            self.seconds.append(time.perf_counter() - t)
        return Judgement("entailment", {"entailment": 1.0}, self.checker, (0, len(premise)))


def rows_for(tether: Tether, rec: Recorder, questions: list[Question]) -> list[dict]:
    rows = []
    for q in questions:
        rec.last = None
        ans = tether.ask(q.text, modes={"abstain": "on", "judge": "on"}, record=False)
        rows.append({"i": q.index, "answerable": q.answerable, "held_out": q.held_out,
                     "refused": ans.refused, "correct": answered(q, ans), "p": rec.last})
    return rows


def score(rows: list[dict], t: float) -> dict[str, float]:
    ans = [r for r in rows if r["answerable"]]
    una = [r for r in rows if not r["answerable"]]
    def refused(r: dict) -> bool:
        return r["refused"] or (r["p"] is not None and r["p"] < t)
    n_ref = sum(refused(r) for r in rows)
    return {
        "accuracy": sum(r["correct"] and not refused(r) for r in ans) / max(1, len(ans)),
        "recall": sum(refused(r) for r in una) / max(1, len(una)),
        "precision": sum(refused(r) for r in una) / n_ref if n_ref else 0.0,
    }


def choose(rows: list[dict]) -> float:
    grid = sorted({0.0, *(round(r["p"] + 1e-6, 6) for r in rows if r["p"] is not None)})
    keep = [t for t in grid if score(rows, t)["accuracy"] >= 0.7]
    if keep:
        return max(keep, key=lambda t: (score(rows, t)["recall"], -t))
    return max(grid, key=lambda t: score(rows, t)["recall"] - (1 - score(rows, t)["accuracy"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--tuning-every", type=int, default=1)
    ap.add_argument("--out", type=Path, help="write the rows as JSON")
    args = ap.parse_args(argv)
    settings = Settings(judge_threads=args.threads)
    with tempfile.TemporaryDirectory(prefix="tether-reader-squad-") as tmp, \
            Tether(Path(tmp) / "squad.db", settings=settings) as tether:
        questions = load(args.data, tether)
        tuning = [q for q in questions if not q.held_out]
        cal = calibrate(tether.store, [(q.text, q.answerable) for q in tuning], settings=settings)
        save_calibration(tether.store, cal)
        rec = Recorder(gguf_judge(args.model, settings))
        tether._judge = rec  # the bench's answer-check-only reader
        sample = [q for q in questions if q.held_out or tuning.index(q) % args.tuning_every == 0]
        started = time.perf_counter()
        rows = rows_for(tether, rec, sample)
        took = time.perf_counter() - started
    secs = sorted(rec.seconds)
    print(f"{len(rows)} questions ({sum(r['held_out'] for r in rows)} held out) in {took:.0f} s; "
          f"{len(secs)} reader calls, p50 {secs[len(secs) // 2]:.2f} s" if secs else "no calls")
    tune = [r for r in rows if not r["held_out"]]
    held = [r for r in rows if r["held_out"]]
    t = choose(tune)
    print(f"threshold chosen on tuning ({len(tune)} questions): {t:.3f}")
    print(f"{'split':<9} {'config':<18} {'accuracy':>8} {'abst.prec':>9} {'abst.rec':>8}")
    for name, part in (("tuning", tune), ("held-out", held)):
        for label, th in (("lexical only", 0.0), (f"+ reader t={t:.2f}", t)):
            m = score(part, th)
            print(f"{name:<9} {label:<18} {m['accuracy']:>8.3f} {m['precision']:>9.3f} "
                  f"{m['recall']:>8.3f}")
    print("\nheld-out curve (t: accuracy, abstain recall):")
    for th in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95):
        m = score(held, th)
        print(f"  t={th:.2f}: {m['accuracy']:.3f}, {m['recall']:.3f}")
    if args.out:
        args.out.write_text(json.dumps(rows), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
