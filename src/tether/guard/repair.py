"""Repair: a generated sentence the guard did not accept, replaced by the passage
sentence that states its claim (ADR 0058).

A model writing its own sentences (``generator_answers = "free"``) often reads the
passages right and rewords them past what the rules accept. Rather than drop such a
sentence, the guard asks the shipped support model which retrieved passage sentence
states its claim; when one does (its likeliest reading, ``REPAIR_AT``), and that
passage sentence is itself a verbatim quote the guard verifies, it is shown in the
model's place, cited at its stored range and marked repaired. What it replaces stays
in the answer's trace: the model's words are never shown.

No repair when a reading that can be trusted says the claim is wrong: an exact check
(a figure, a year, a name, a negation), a negated verb or a judge contradicted it
against the passage, an exact check contradicts it against the chosen sentence (read
with the wording rules out of the way), or the model finds a candidate contradicting
it more surely than any states it. A contradiction only a wording rule found (a
quantifier, a modal, a converse or exclusive word) does not bar it: those misread
paraphrase, and the model reads the claim in their place (ADR 0080). Negation is the
exact polarity check's to read (``citation.carries_negation``), so a claim or a
candidate carrying one is never repaired. Each candidate is read under its title and
headings, as the answer gate reads it. Whether the quote answers the question is the
pipeline's gate to decide (the answer check the extractive path passes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache

from ..config import Settings
from ..judges.base import Judge
from ..judges.trained import TrainedSupportJudge
from ..readers.windows import sentence_path
from ..records import REPAIRED, AnswerSentence, Draft, Dropped, Verdict
from ..text.sentences import sentence_spans
from ..text.terms import stems
from ..verify import check
from ..verify.rules import rules_off_setting
from .attribute import Evidence
from .citation import carries_negation, judge_draft

__all__ = ["CANDIDATES", "REPAIR_AT", "WORDING_CONTRADICTIONS", "Repair", "repair_draft", "support_judge"]

# Passage sentences the support model reads for one claim (each with the sentence
# before it, as it was trained to read them): those sharing the most
# content words with it. The statement of a claim shares its words; reading every
# sentence of every passage would cost a model call each for nothing.
CANDIDATES = 6

# The support model points at the quote; it does not vouch for the model's words,
# which are never shown: its likeliest reading chooses (P(entailment) at least this,
# and above every candidate's P(contradiction)). What is shown is the quote, verified
# word for word, and only when it answers the question (ADR 0075).
REPAIR_AT = 0.5

# The rules whose contradiction reads wording — a quantifier, a modal, an exclusive or
# converse word, roles, relation words — and misreads paraphrase ("the most important …",
# "brother" for "sister of"). Their contradiction does not bar a repair: the support
# model reads the claim in their place, and what is shown is the quote (ADR 0080). The
# exact checks' (figures, years, names, negation), a judge's and a negated verb's do.
WORDING_CONTRADICTIONS = frozenset({"exclusive-substitution", "reversed-roles", "relation-words",
                                    "quantifier", "modality"})

# (?<!\s): a match starts where its whitespace run starts, so a long run is read once,
# not once per position.
_MARKERS = re.compile(r"(?<!\s)\s*\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")


@dataclass(frozen=True, slots=True)
class Repair:
    """A dropped generated sentence and the verified quotes shown in its place: one
    passage sentence, or two in a row when only both together state the claim."""

    original: str  # the model's sentence, as it wrote it (trace only)
    sentences: tuple[AnswerSentence, ...]  # the passage sentences, verified and marked repaired
    entailment: float  # the support model's P(entailment) of the claim given the quotes


@dataclass(frozen=True, slots=True)
class _Candidate:
    unit: Evidence
    sentence: tuple[int, int]  # the sentence, in unit.text
    before: tuple[int, int] | None  # the sentence before it in its passage, if any

    @property
    def text(self) -> str:
        return self.unit.text[self.sentence[0]:self.sentence[1]]

    @property
    def window(self) -> str:
        """What the model reads: the sentence with the one before it, which "It …" or
        "They …" leans on (the shape it was trained on, ``readers.windows``), under
        where it stands."""
        return self._placed((self.before or self.sentence)[0])

    @property
    def alone(self) -> str:
        """The sentence without the one before it, under where it stands."""
        return self._placed(self.sentence[0])

    def _placed(self, start: int) -> str:
        # Documentation states a default under its option's heading, not beside its name
        # ("default: 65536 bytes" under "stack = BYTES"): the sentence is read under its
        # title path, as the answer gate reads it (``readers.windows.sentence_path``).
        assert self.unit.document is not None  # candidates come from stored passages
        path = sentence_path(self.unit.document.title, self.unit.passages[0].heading,
                             self.unit.text, self.sentence[0])
        text = self.unit.text[start:self.sentence[1]]
        return f"{path}: {text}" if path else text

    def previous(self) -> _Candidate | None:
        return None if self.before is None else _Candidate(self.unit, self.before, None)


@cache
def _shipped() -> TrainedSupportJudge:
    return TrainedSupportJudge()


def support_judge(judge: Judge | None = None) -> TrainedSupportJudge:
    """The shipped support model as a judge: the guard's own when it is that model,
    else one loaded once per process."""
    return judge if isinstance(judge, TrainedSupportJudge) else _shipped()


def repair_draft(
    draft: Draft,
    dropped: Dropped,
    evidence: Sequence[Evidence],
    *,
    settings: Settings,
    modes: Mapping[str, str] | None,
    judge: Judge | None,
    reader: TrainedSupportJudge,
) -> Repair | None:
    """The quote that states ``draft``'s claim, verified, or None (it stays dropped).

    ``judge`` is the guard's own judge (it verifies the quote as any draft);
    ``reader`` is the support model that finds the sentence stating the claim.
    """
    claim = _MARKERS.sub("", draft.text).strip()
    if _surely_wrong(dropped.verdict) or carries_negation(claim):
        return None
    found = _stating(claim, evidence, settings=settings, modes=modes, reader=reader)
    if found is None:
        return None
    candidates, entailment = found
    shown = [_verified(c, evidence, settings=settings, modes=modes, judge=judge) for c in candidates]
    if None in shown:
        return None
    return Repair(draft.text.strip(), tuple(s for s in shown if s is not None), round(entailment, 4))


def _verified(
    candidate: _Candidate,
    evidence: Sequence[Evidence],
    *,
    settings: Settings,
    modes: Mapping[str, str] | None,
    judge: Judge | None,
) -> AnswerSentence | None:
    """The candidate as a quote the guard verifies word for word, marked repaired."""
    quote = " ".join(candidate.text.split())
    passage_id = candidate.unit.passages[0].passage_id
    outcome, _ = judge_draft(Draft(quote, (passage_id,)), evidence, settings=settings,
                             modes=modes, judge=judge)
    if not isinstance(outcome, AnswerSentence) or outcome.verdict.checker != "verbatim":
        return None  # the quote must pass the guard word for word, as a chosen id does
    if " ".join(outcome.citations[0].quote.split()) != quote:
        return None
    marked = replace(outcome.verdict, reasons=(*outcome.verdict.reasons, REPAIRED))
    return replace(outcome, verdict=marked)


def _stating(
    claim: str,
    evidence: Sequence[Evidence],
    *,
    settings: Settings,
    modes: Mapping[str, str] | None,
    reader: TrainedSupportJudge,
) -> tuple[tuple[_Candidate, ...], float] | None:
    """The candidate sentences the support model reads as stating ``claim`` (one, or a
    sentence with the one before it), with its P(entailment); None when none reaches
    ``REPAIR_AT`` or the claim reads as wrong."""
    pool = _candidates(claim, evidence)
    if not pool:
        return None
    judgements = reader.judge_many([(c.window, claim) for c in pool])
    entailments = [j.probabilities.get("entailment", 0.0) for j in judgements]
    contradiction = max(j.probabilities.get("contradiction", 0.0) for j in judgements)
    best = max(range(len(pool)), key=lambda i: (entailments[i], -i))
    if entailments[best] < REPAIR_AT or contradiction > entailments[best]:
        return None
    chosen, entailment = pool[best], entailments[best]
    quotes: tuple[_Candidate, ...] = (chosen,)
    # Read with the sentence before it, a sentence is credited with what that one
    # states: of the two, the one that states more of the claim on its own is it, and
    # when neither does alone, both are the quote ("At Saint Evroul, a tradition of
    # singing had developed …" before "… several monks of Saint-Evroul fled …") —
    # unless the one before carries a negation, which is the polarity check's to read.
    previous = chosen.previous()
    if previous is not None:
        own, alone = (j.probabilities.get("entailment", 0.0) for j in
                      reader.judge_many([(chosen.alone, claim), (previous.alone, claim)]))
        if alone >= REPAIR_AT and alone > own:
            quotes, entailment = (previous,), alone
        elif own < REPAIR_AT and not carries_negation(previous.text):
            quotes = (previous, chosen)
    if any(carries_negation(q.text) for q in quotes):
        return None
    # The exact checks read the claim against the quote with the wording rules out of
    # the way: a quantifier that fires first must not hide a figure that disagrees.
    off = WORDING_CONTRADICTIONS | rules_off_setting(settings.support_rules_off)
    exact = replace(settings, support_rules_off=",".join(sorted(off)))
    if check(claim, quotes[-1].window, settings=exact, modes=modes).outcome == "contradicted":
        return None  # an exact check (a figure, a name) says the claim is not this one's
    return quotes, entailment


def _candidates(claim: str, evidence: Sequence[Evidence]) -> list[_Candidate]:
    """The stored passage sentences sharing the most content words with ``claim``
    (at least one), best first."""
    wanted = stems(claim)
    scored: list[tuple[int, int, _Candidate]] = []
    # Single passages only: a join of neighbours repeats their sentences.
    units = [u for u in evidence if u.document is not None and len(u.passages) == 1]
    for unit in units:
        spans = sentence_spans(unit.text)
        for i, span in enumerate(spans):
            shared = len(wanted & stems(unit.text[span.start:span.end]))
            if shared:
                before = (spans[i - 1].start, spans[i - 1].end) if i else None
                candidate = _Candidate(unit, (span.start, span.end), before)
                scored.append((-shared, len(scored), candidate))
    scored.sort(key=lambda item: item[:2])
    return [candidate for _, _, candidate in scored[:CANDIDATES]]


def _surely_wrong(verdict: Verdict) -> bool:
    """A contradiction that no wording rule decided."""
    return verdict.outcome == "contradicted" and not WORDING_CONTRADICTIONS.intersection(verdict.rules)
