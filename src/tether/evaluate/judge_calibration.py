"""Learning the reader's two thresholds from labelled lines, for one model file.

``tether calibrate`` reads the probe's lines (``{"question", "answerable"}``) and,
optionally, labelled pairs (``{"premise", "hypothesis", "label"}``). With a reader
configured (``judge = "gguf:PATH"``):

* each question is asked with the lexical gates only; where they let an answer
  through, the reader's P(yes) for "do the cited sentences answer the question as
  asked?" is read (the same text the answer-check gate shows it). The answers
  threshold is the cut-off that best separates answerable from unanswerable
  questions (``choose_threshold``, never refusing more than ``max_false_refusal``
  of the answerable ones that got this far);
* each pair gets P(yes) for "does the passage state this sentence?"; the support
  threshold separates entailments from the rest the same way (an entailment under
  it is withheld: that share is bounded by ``max_false_refusal``).

The result is keyed by the model's sha256 and stored in the store's metadata under
``judge.threshold.<sha256>``; ``save_judge_calibration`` refuses one learned for
another model file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..facade import Tether
from ..judges.base import Judge, Judgement
from ..judges.gguf import ReaderFailure
from ..judges.reader import (
    META_PREFIX,
    ReaderJudge,
    Thresholds,
    refuse_other_model,
)
from ..pipeline import stream
from ..pipeline.events import Done
from ..retrieve.calibrate import Threshold, choose_threshold
from ..store import Store

__all__ = ["JudgeCalibration", "calibrate_judge", "describe_judge", "save_judge_calibration"]


@dataclass(frozen=True, slots=True)
class JudgeCalibration:
    """The reader's thresholds learned for one model, with what they rest on."""

    thresholds: Thresholds
    answers_yes: tuple[float, ...]  # P(yes) of answerable questions the lexical gates passed
    answers_no: tuple[float, ...]  # ... and of unanswerable ones
    support_yes: tuple[float, ...]  # P(yes) of entailed pairs
    support_no: tuple[float, ...]  # ... and of the others
    failed: int  # reader calls that gave no label


class _Recording:
    """The reader as the answer check only: records P(yes) and lets the answer through.

    Support is not judged here (the error judgement leaves the lexical verdict), so
    the P(yes) is read on exactly what the lexical gates kept.
    """

    def __init__(self, reader: ReaderJudge) -> None:
        self.reader, self.checker = reader, reader.checker
        self.last: float | None = None
        self.failed = 0

    def judge(self, premise: str, hypothesis: str) -> Judgement:
        return Judgement.failed(self.checker, "support is not judged while calibrating")

    def answers(self, premise: str, question: str) -> Judgement:
        try:
            self.last, _ = self.reader.score("answers", premise, question)
        except ReaderFailure as exc:
            self.failed += 1
            return Judgement.failed(self.checker, str(exc))
        return Judgement("entailment", {"entailment": 1.0}, self.checker, (0, len(premise)))


class _Engine:
    """The tether's store and settings with the recording reader as its judge."""

    def __init__(self, tether: Tether, judge: _Recording) -> None:
        self.store, self.settings, self._t, self._j = tether.store, tether.settings, tether, judge

    def judge(self) -> Judge | None:
        return self._j  # type: ignore[return-value]

    def probe_threshold(self) -> Threshold:
        return self._t.probe_threshold()


def _answer_scores(
    tether: Tether, rec: _Recording, questions: Sequence[tuple[str, bool]],
    principals: Sequence[str] | None,
) -> tuple[list[float], list[float]]:
    engine = _Engine(tether, rec)
    yes: list[float] = []
    no: list[float] = []
    for question, answerable in questions:
        rec.last = None
        for event in stream(engine, question, generator=tether.generator(),
                            principals=principals, modes={"abstain": "on", "judge": "on"},
                            record=False):
            if isinstance(event, Done) and rec.last is not None and not event.answer.refused:
                (yes if answerable else no).append(rec.last)
    return yes, no


def _threshold(yes: list[float], no: list[float], max_false_refusal: float) -> float | None:
    if not yes or not no:
        return None
    return choose_threshold(yes, no, max_false_refusal=max_false_refusal)


def calibrate_judge(
    tether: Tether,
    reader: ReaderJudge,
    *,
    questions: Sequence[tuple[str, bool]] = (),
    pairs: Sequence[tuple[str, str, bool]] = (),
    principals: Sequence[str] | None = None,
    max_false_refusal: float = 0.05,
) -> JudgeCalibration:
    """Both thresholds of ``reader`` from labelled questions and pairs (nothing saved).

    A threshold without both kinds of example keeps the reader's current value.
    """
    rec = _Recording(reader)
    a_yes, a_no = _answer_scores(tether, rec, questions, principals)
    s_yes: list[float] = []
    s_no: list[float] = []
    failed = rec.failed
    for premise, hypothesis, entailed in pairs:
        try:
            p, _ = reader.score("support", premise, hypothesis)
        except ReaderFailure:
            failed += 1
            continue
        (s_yes if entailed else s_no).append(p)
    current = reader.thresholds
    answers = _threshold(a_yes, a_no, max_false_refusal)
    support = _threshold(s_yes, s_no, max_false_refusal)
    thresholds = Thresholds(
        reader.model_sha256,
        support=current.support if support is None else support,
        answers=current.answers if answers is None else answers,
        source="calibrated",
    )
    return JudgeCalibration(thresholds, tuple(sorted(a_yes)), tuple(sorted(a_no)),
                            tuple(sorted(s_yes)), tuple(sorted(s_no)), failed)


def save_judge_calibration(store: Store, calibration: JudgeCalibration, reader: ReaderJudge) -> None:
    """Store the thresholds under the model's sha256; refused for another model's."""
    learned = calibration.thresholds.model_sha256
    if learned != reader.model_sha256:
        raise refuse_other_model(learned, reader.model_sha256, "this calibration")
    store.set_meta(META_PREFIX + learned, calibration.thresholds.to_meta())


def _rates(yes: Sequence[float], no: Sequence[float], t: float) -> str:
    kept = sum(1 for p in yes if p >= t)
    caught = sum(1 for p in no if p < t)
    return (f"{len(yes)} positive, {len(no)} negative; at {t:g}: {kept}/{len(yes)} positives "
            f"kept, {caught}/{len(no)} negatives caught")


def describe_judge(cal: JudgeCalibration) -> list[str]:
    """The calibration in a few lines of text."""
    t = cal.thresholds
    lines = [f"judge model sha256: {t.model_sha256}"]
    for name, yes, no, value in (("answers", cal.answers_yes, cal.answers_no, t.answers),
                                 ("support", cal.support_yes, cal.support_no, t.support)):
        if yes and no:
            lines.append(f"{name} threshold: {value:g} ({_rates(yes, no, value)})")
        else:
            lines.append(f"{name} threshold: {value:g} (not learned: needs positive and "
                         f"negative examples; {len(yes)} and {len(no)} read)")
    if cal.failed:
        lines.append(f"reader calls that gave no label: {cal.failed}")
    return lines
