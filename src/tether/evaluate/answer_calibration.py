"""The trained reader's answer threshold, calibrated on a store from labelled questions.

Each labelled question is answered with the abstain gate in shadow, so that nothing is
refused and the answer gate (``guard.answerable``) still reads the verified sentences;
the best of its scores, from the answer's trace, is one point of the distribution (an
answer with no verified sentence scores 0). The threshold that best separates answerable from
unanswerable questions (``retrieve.calibrate.choose_threshold``: Youden's J, never
refusing more than ``max_false_refusal`` of the answerable ones) is stored under the
model's hash, so a rebuilt model is calibrated anew.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..facade import Tether
from ..guard.answerable import meta_key
from ..retrieve.calibrate import choose_threshold

__all__ = ["AnswerCalibration", "calibrate_answers", "save_answer_calibration"]


@dataclass(frozen=True, slots=True)
class AnswerCalibration:
    threshold: float
    answerable: tuple[float, ...]
    unanswerable: tuple[float, ...]

    def describe(self) -> list[str]:
        kept = sum(s >= self.threshold for s in self.answerable)
        refused = sum(s < self.threshold for s in self.unanswerable)
        return [
            f"answer threshold (trained reader): {self.threshold:g}",
            f"  answerable questions answered: {kept} of {len(self.answerable)}",
            f"  unanswerable questions refused: {refused} of {len(self.unanswerable)}",
        ]


def _best_score(tether: Tether, question: str, principals: Sequence[str] | None) -> float:
    # In shadow the gates decide without refusing, and the answer gate's scores of the
    # verified sentences are in the trace (an answer with none scores 0).
    answer = tether.ask(question, principals=principals, modes="abstain=shadow", record=False)
    return max(answer.trace.get("answerability", ()), default=0.0)


def calibrate_answers(
    tether: Tether, items: Sequence[tuple[str, bool]], *,
    principals: Sequence[str] | None = None, max_false_refusal: float = 0.05,
) -> AnswerCalibration:
    """The answer threshold these labelled questions imply on ``tether``'s store."""
    answerable: list[float] = []
    unanswerable: list[float] = []
    for question, is_answerable in items:
        (answerable if is_answerable else unanswerable).append(
            _best_score(tether, question, principals))
    threshold = choose_threshold(answerable, unanswerable, max_false_refusal=max_false_refusal)
    return AnswerCalibration(threshold, tuple(sorted(answerable)), tuple(sorted(unanswerable)))


def save_answer_calibration(tether: Tether, cal: AnswerCalibration) -> None:
    tether.store.set_meta(meta_key(), repr(cal.threshold))
