"""The default generator: verbatim sentences from the retrieved passages, fully offline.

It cannot fabricate: every draft is a slice of a passage. What it decides is which
sentences answer the question, with its own ranking (``rank``): weighted coverage of
the question's content terms, whether the sentence carries the kind of answer asked
for (a figure for "how much", a date for "when", a name for "who"), whether it names
the question's names, retrieval rank, and no repeats. It never asks the answer check
that later gates its output (DESIGN.md: the guard and the generators are independent).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..records import Draft, Hit
from ..text.instructions import is_instruction_like
from ..text.sentences import sentence_spans
from ..text.terms import stems
from .rank import (
    Question,
    coverage,
    idf_weights,
    name_share,
    overlap,
    read_question,
    sentence_score,
    supplies,
)

__all__ = ["ExtractiveGenerator"]

_LIST_MARKER = re.compile(r"[-*+•]\s+|\d{1,3}[.)]\s+|\[\d{1,2}:\d{2}(?::\d{2})?\]\s*")
_MIN_COVERAGE = 0.3


@dataclass(frozen=True, slots=True)
class _Sentence:
    """A sentence cut from a retrieved passage, before it is scored."""

    text: str
    passage_id: str
    order: tuple[int, int]  # (first rank of its document, offset in passage)
    rank: int
    stems: frozenset[str]
    title: frozenset[str]
    context: frozenset[str]  # what it may lean on: its title and the sentence before


@dataclass(frozen=True, slots=True)
class _Candidate:
    text: str
    passage_id: str
    order: tuple[int, int]
    stems: frozenset[str]
    score: float
    coverage: float
    typed: bool
    named: bool  # names all of the question's names and figures (or leans on them)


def _is_content(sentence: str) -> bool:
    """Whether a sentence can be answer content: not a fragment, heading, question or
    instruction (an imperative in a document is never offered as a fact)."""
    return not (
        len(sentence) < 15
        or sentence.startswith("#")
        or sentence.rstrip().endswith("?")
        or is_instruction_like(sentence)
    )


def _sentences(question: Question, hits: Sequence[Hit]) -> list[_Sentence]:
    doc_rank: dict[str, int] = {}
    out = []
    for hit in hits:
        doc_rank.setdefault(hit.passage.doc_id, hit.rank)
        # A fact sheet states its subject once, in the title ("Boiling point: 64.7 °C"
        # under "Methanol"): title terms count toward coverage, sentence terms must too.
        title = frozenset(stems(hit.document.title))
        text = hit.passage.text
        previous: frozenset[str] = frozenset()
        for span in sentence_spans(text):
            start = span.start
            marker = _LIST_MARKER.match(text, start, span.end)
            if marker:
                start = marker.end()
            sentence = text[start : span.end]
            own = frozenset(stems(sentence))
            # "It was commissioned by Odo" names the tapestry of the sentence before.
            context, previous = title | previous, own
            if not _is_content(sentence) or not question.stems & own:
                continue
            out.append(
                _Sentence(sentence, hit.passage.passage_id,
                          (doc_rank[hit.passage.doc_id], hit.passage.start + start),
                          hit.rank, own, title, context)
            )
    return out


class ExtractiveGenerator:
    name = "extractive"

    def __init__(self, *, max_sentences: int = 3) -> None:
        self.max_sentences = max_sentences

    def _candidates(self, question: str, hits: Sequence[Hit]) -> list[_Candidate]:
        q = read_question(question)
        found = _sentences(q, hits)
        weights = idf_weights(q, (s.stems for s in found))
        out = []
        for s in found:
            # A title names the subject ("Methanol" over "Boiling point: 64.7 °C"): it
            # supplies the question's names in full, its other words count half (a
            # title is over every sentence of the document, so it tells them apart less).
            present = s.stems | (s.title & q.names)
            typed = supplies(s.text, q)
            named = name_share(q, s.stems | s.context) == 1.0
            score = sentence_score(
                weighted=overlap(weights, present, s.title), typed=typed, named=named, kind=q.kind,
                rank=s.rank,
            )
            out.append(_Candidate(s.text, s.passage_id, s.order, s.stems, score,
                                  coverage(q, present | s.title), typed, named))
        return out

    def generate(
        self, question: str, hits: Sequence[Hit], *, steering: str | None = None
    ) -> Iterator[Draft]:
        candidates = sorted(self._candidates(question, hits), key=lambda c: -c.score)
        if not candidates or candidates[0].coverage < _MIN_COVERAGE:
            return
        best = candidates[0]
        chosen = [best]
        for cand in candidates[1:]:
            if len(chosen) >= self.max_sentences or cand.score < 0.7 * best.score:
                break
            if cand.coverage < _MIN_COVERAGE or (best.typed and not cand.typed):
                continue
            # A sentence without the question's names answers a neighbouring question.
            if best.named and not cand.named:
                continue
            # Near-repeats (the same fact in two documents) add length, not content.
            if any(
                len(cand.stems & c.stems) / max(1, len(cand.stems | c.stems)) > 0.6 for c in chosen
            ):
                continue
            chosen.append(cand)
        for cand in sorted(chosen, key=lambda c: c.order):
            yield Draft(cand.text, (cand.passage_id,))
