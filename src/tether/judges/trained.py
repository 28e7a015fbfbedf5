"""The shipped support model as a ``Judge``: does the passage state this sentence?

The model was trained on a claim against the one to three passage sentences it is
about (with the sentence before, which "It …" leans on), not on whole passages, where
a small model reads poorly (the trial in issue 31: passage-level AUC ~0.5). So the
judge first aligns: it picks the passage sentences sharing the most content words with
the claim, and reads the claim against a few short windows around them.

Aggregation rule, the reader's own (``readers.crossencoder.speaking_window``): the
window with the highest P(entailment) speaks, unless some window's P(contradiction) is
higher than every window's P(entailment); then that one. Its label is ``entailment`` at P(entailment) >= ``CONFIRM``, ``contradiction`` when
P(contradiction) is the largest of the three, else ``neutral``. Two bars, because the
two moves differ in risk: a lexically supported sentence keeps its support when the
model reads it as more likely stated than not (``CONFIRM``), while a sentence the word
test refused is lifted only at ``ACCEPT`` (``lift_at``; both chosen on held-out pairs
for precision, MODEL_CARD.md).

The exact checks stay in front (``judges.base.combine``): a lexical ``contradicted``
(a figure, a negation, a name) is never overturned by this judge.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import readers
from ..readers.crossencoder import speaking_window
from ..readers.windows import support_premise
from ..text.sentences import sentence_spans
from ..text.terms import stems
from .base import Judge, Judgement, Label

__all__ = ["ACCEPT", "CONFIRM", "TrainedSupportJudge"]

# P(entailment) from which the model's word is "entailment": it confirms lexical support.
CONFIRM = 0.5
# P(entailment) a paraphrase the word test refused needs to be lifted to supported.
ACCEPT = 0.9
# Passage sentences read around: the best aligned ones, each with the sentence before.
_ALIGNED = 2


def _aligned_windows(premise: str, claim: str) -> list[tuple[int, int]]:
    """Character ranges of the premise to read the claim against, best aligned first."""
    spans = sentence_spans(premise)
    if len(spans) <= 2:
        return [(0, len(premise))]
    wanted = stems(claim)
    shared = [len(wanted & stems(premise[s.start:s.end])) for s in spans]
    best = sorted(range(len(spans)), key=lambda i: (-shared[i], i))[:_ALIGNED]
    windows: list[tuple[int, int]] = []
    for i in best:
        windows.append((spans[max(0, i - 1)].start, spans[i].end))
        if i + 1 < len(spans):  # a claim may join a sentence and the one after it
            windows.append((spans[max(0, i - 1)].start, spans[i + 1].end))
    return list(dict.fromkeys(windows))


class TrainedSupportJudge(Judge):
    """Tether's own support model, shipped in the package (``tether.readers``)."""

    # The trained reader may lift a lexically unsupported paraphrase (combine's
    # accept_paraphrase): that is what it was trained for; exact checks still refuse.
    accepts_paraphrase = True
    lift_at = ACCEPT

    def __init__(self) -> None:
        self.model = readers.support()
        self.checker = f"support-model:{self.model.info.sha256[:12]}"

    def judge(self, premise: str, hypothesis: str) -> Judgement:
        return self.judge_many([(premise, hypothesis)])[0]

    def judge_many(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        windows = [_aligned_windows(premise, claim) for premise, claim in pairs]
        inputs = [(support_premise([premise[s:e]]), claim)
                  for (premise, claim), spans in zip(pairs, windows) for s, e in spans]
        probabilities = iter(self.model.predict(inputs))
        out = []
        for spans in windows:
            scored = [(span, next(probabilities)) for span in spans]
            out.append(self._decide(scored))
        return out

    def _decide(self, scored: list[tuple[tuple[int, int], tuple[float, ...]]]) -> Judgement:
        labels = self.model.info.labels
        ent, contra = labels.index("entailment"), labels.index("contradiction")
        # The aligned windows are aggregated as the reader aggregates a long pair's.
        span, probs = scored[speaking_window([p for _, p in scored], self.model.info)]
        named = dict(zip(labels, probs))
        label: Label = "neutral"
        if probs[ent] >= CONFIRM:
            label = "entailment"
        elif probs[contra] == max(probs):
            label = "contradiction"
        return Judgement(label, named, self.checker, span)
