"""The guard's side of the reader: which judge reads an answer, and what its refusal says.

A judge that can be calibrated (the GGUF reader) is bound to the thresholds the store
holds for its model file before it reads (``bound_judge``); the refusal it gives
names the probability it read and the threshold it fell under, so a user can see
how close the call was.

    >>> from tether.judges.base import Judgement
    >>> j = Judgement("neutral", {"entailment": 0.21, "neutral": 0.79}, "gguf:m", (0, 9))
    >>> reader_refusal(j, threshold=0.5)
    'gguf:m finds that no supported sentence answers the question as asked (P(yes) 0.21 < 0.5)'
"""

from __future__ import annotations

from collections.abc import Callable

from ..judges.base import Judge, Judgement
from .answercheck import judged_refusal

__all__ = ["bound_judge", "reader_refusal"]


def bound_judge(judge: Judge | None, get_meta: Callable[[str], str | None]) -> Judge | None:
    """``judge`` under the store's calibration for its model, when it can be calibrated."""
    bind = getattr(judge, "calibrated", None)
    return bind(get_meta) if callable(bind) else judge  # type: ignore[no-any-return]


def reader_refusal(judgement: Judgement | None, *, threshold: float | None) -> str | None:
    """``judged_refusal``'s reason, with P(yes) and the threshold when the judge gave one."""
    why = judged_refusal(judgement)
    if why is None or judgement is None or threshold is None:
        return why
    p = judgement.probabilities.get("entailment")
    return why if p is None else f"{why} (P(yes) {p:.2f} < {threshold:g})"
