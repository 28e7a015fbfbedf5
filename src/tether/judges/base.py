"""The optional model layer of the support test: a judge and how its word counts.

A ``Judge`` reads a premise (a retrieved passage) and a hypothesis (a sentence of
the answer) and says ``entailment``, ``neutral`` or ``contradiction``. The lexical
checks stay the foundation; ``combine`` decides how far a judgement may move the
lexical outcome, and every result carries a reason that names what decided it.

    >>> j = Judgement("contradiction", {"contradiction": 0.9, "entailment": 0.05,
    ...               "neutral": 0.05}, checker="nli:tiny", window=(0, 40))
    >>> combine("supported", j, accept_paraphrase=False)[0]
    'contradicted'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

__all__ = ["EXACT_CHECKERS", "LABELS", "LIFTABLE_CHECKERS", "OUTCOMES", "Judge", "Judgement", "Label",
           "combine"]

Label = Literal["entailment", "neutral", "contradiction"]
LABELS: tuple[Label, ...] = ("entailment", "neutral", "contradiction")
# The four outcomes of the support test (docs/DESIGN.md), strongest claim first.
OUTCOMES = ("supported", "contradicted", "mentioned", "unsupported")


@dataclass(frozen=True, slots=True)
class Judgement:
    """What a judge said about one (premise, hypothesis) pair.

    ``window`` is the character range of the premise that decided the label (the
    whole premise when it fitted in one model input). A judge that could not
    judge returns ``error`` set, ``label`` "neutral" and empty ``probabilities``;
    ``combine`` then ignores the label.
    """

    label: Label
    probabilities: dict[str, float]
    checker: str
    window: tuple[int, int]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @classmethod
    def failed(cls, checker: str, error: str, *, window: tuple[int, int] = (0, 0)) -> Judgement:
        """An error judgement: the judge ran but could not give a verdict."""
        return cls("neutral", {}, checker, window, error)


@runtime_checkable
class Judge(Protocol):
    """A model that judges entailment. One main method; ``judge_many`` builds on it.

    Implementations that can batch (``OnnxNliJudge``) override ``judge_many``;
    subclassing ``Judge`` explicitly inherits the one-by-one default.

        >>> class Always(Judge):
        ...     def judge(self, premise: str, hypothesis: str) -> Judgement:
        ...         return Judgement("neutral", {"neutral": 1.0}, "always", (0, len(premise)))
        >>> [j.label for j in Always().judge_many([("a", "b"), ("c", "d")])]
        ['neutral', 'neutral']
    """

    def judge(self, premise: str, hypothesis: str) -> Judgement: ...

    def judge_many(self, pairs: Iterable[tuple[str, str]]) -> list[Judgement]:
        return [self.judge(premise, hypothesis) for premise, hypothesis in pairs]


def _said(judgement: Judgement) -> str:
    p = judgement.probabilities.get(judgement.label)
    prob = f" (p={p:.2f})" if p is not None else ""
    start, end = judgement.window
    return f"{judgement.checker} says {judgement.label}{prob} on premise chars {start}-{end}"


# The lexical checkers whose contradiction is exact, so no model overturns it: a
# figure, a year, a name, a negation.
EXACT_CHECKERS = frozenset({"figures", "years", "names", "polarity", "verbatim"})
# The lexical decisions a judge's entailment may lift (when the caller says which
# checker decided): plain coverage (a claim word the passage does not share: a
# paraphrase) and the modality reading ("must" against "is required to"). Structure
# checkers (relation, roles, predicate, context) are not liftable: measured with the
# shipped support model (bench/readers_support.py), lifting them let through swapped
# prepositions and roles and dropped qualifiers ("until 2000").
LIFTABLE_CHECKERS = frozenset({"lexical", "modality"})


def combine(
    lexical_outcome: str, judgement: Judgement | None, *, accept_paraphrase: bool,
    decided_by: str | None = None,
) -> tuple[str, str | None]:
    """Merge the lexical outcome with a judgement into (final outcome, reason).

    The judge is trusted asymmetrically. By default it may only take support
    away: a lexical ``supported`` becomes ``contradicted`` when the judge says
    contradiction and ``mentioned`` when it says neutral (the passage is on the
    subject but the model does not read the claim in it). With
    ``accept_paraphrase=True`` an entailment also lifts ``mentioned`` or
    ``unsupported`` to ``supported``, which is how paraphrases get through the
    guard. A lexical ``contradicted`` is never overturned — unless the caller says
    which checker decided (``decided_by``) and it is one of ``LIFTABLE_CHECKERS``
    (plain coverage, modality); then only those decisions may be lifted, never an
    exact checker's (``EXACT_CHECKERS``: figures, years, names, negation) nor a
    structure reading's. A judge error leaves the lexical outcome standing and says so.

    ``reason`` is None only when there was no judgement to record.

        >>> combine("mentioned", None, accept_paraphrase=True)
        ('mentioned', None)
    """
    if lexical_outcome not in OUTCOMES:
        raise ValueError(f"unknown lexical outcome {lexical_outcome!r}; expected one of {OUTCOMES}")
    lexical = lexical_outcome
    if judgement is None:
        return (lexical, None)
    if judgement.error is not None:
        failure = f"judge {judgement.checker} failed ({judgement.error})"
        return (lexical, f"{failure}; lexical outcome {lexical!r} stands")
    said = _said(judgement)
    if lexical == "supported":
        if judgement.label == "contradiction":
            return ("contradicted", f"{said}; downgraded from lexical 'supported'")
        if judgement.label == "neutral":
            return ("mentioned", f"{said}; downgraded from lexical 'supported'")
        return ("supported", f"{said}; confirms lexical 'supported'")
    if decided_by is None:
        upgradable = lexical in ("mentioned", "unsupported")
    else:
        upgradable = lexical != "supported" and decided_by in LIFTABLE_CHECKERS
    if accept_paraphrase and upgradable and judgement.label == "entailment":
        return ("supported", f"{said}; accepted as a paraphrase over lexical {lexical!r}")
    kept = _why_kept(lexical, accept_paraphrase)
    return (lexical, f"{said}; lexical {lexical!r} stands ({kept})")


def _why_kept(lexical: str, accept_paraphrase: bool) -> str:
    if lexical == "contradicted":
        return "the judge never overturns this check's contradiction"
    if not accept_paraphrase:
        return "the judge only downgrades support unless accept_paraphrase is on"
    return "only an entailment can upgrade it"

