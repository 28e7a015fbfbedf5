"""The default generator: verbatim sentences from the retrieved passages, fully offline.

It cannot fabricate: every draft is a slice of a passage. What it decides is which
sentences answer the question: coverage of the question's content terms, whether
the sentence carries the kind of answer asked for (a figure for "how much", a date
for "when", a name for "who"), retrieval rank, and no repeats.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..guard.answercheck import anchors, sentence_answers
from ..guard.answertype import answer_type, has_answer_type
from ..ingest.segment import sentence_spans
from ..records import Draft, Hit
from ..retrieve.search import query_terms
from ..text.instructions import is_instruction_like

__all__ = ["ExtractiveGenerator", "answer_type", "has_answer_type"]

_LIST_MARKER = re.compile(r"[-*+•]\s+|\d{1,3}[.)]\s+|\[\d{1,2}:\d{2}(?::\d{2})?\]\s*")
_SUFFIX = re.compile(r"(ies|es|s|ing|ed)$")
_MIN_COVERAGE = 0.3


def _stem(word: str) -> str:
    return _SUFFIX.sub("", word) if len(word) > 4 else word


def _stems(text: str) -> set[str]:
    return {_stem(t) for t in query_terms(text)}


@dataclass(frozen=True, slots=True)
class _Candidate:
    text: str
    passage_id: str
    order: tuple[int, int]  # (first rank of its document, offset in passage)
    stems: frozenset[str]
    score: float
    coverage: float
    typed: bool


class ExtractiveGenerator:
    name = "extractive"

    def __init__(self, *, max_sentences: int = 3) -> None:
        self.max_sentences = max_sentences

    def _candidates(self, question: str, hits: Sequence[Hit]) -> list[_Candidate]:
        wanted = _stems(question)
        kind = answer_type(question)
        texts = [h.passage.text for h in hits] + [h.document.title for h in hits]
        asked = anchors(question, texts)
        doc_rank: dict[str, int] = {}
        out = []
        for hit in hits:
            doc_rank.setdefault(hit.passage.doc_id, hit.rank)
            # A fact sheet states its subject once, in the title ("Boiling point: 64.7 °C"
            # under "Methanol"): title terms count toward coverage, sentence terms must too.
            title = _stems(hit.document.title)
            text = hit.passage.text
            previous = ""
            for span in sentence_spans(text):
                start = span.start
                marker = _LIST_MARKER.match(text, start, span.end)
                if marker:
                    start = marker.end()
                sentence = text[start : span.end]
                context, previous = f"{hit.document.title}\n{previous}", sentence
                if (
                    len(sentence) < 15
                    or sentence.startswith("#")
                    or sentence.rstrip().endswith("?")
                    or is_instruction_like(sentence)
                ):
                    continue
                stems = frozenset(_stems(sentence))
                if not wanted & stems:
                    continue
                coverage = len(wanted & (stems | title)) / len(wanted)
                # "Answers" = gives a new value of the asked kind and names the
                # question's names and figures (tether.answercheck, which the
                # answer is held to after the guard).
                lacks = sentence_answers(
                    question, sentence, context, section=text, passages=texts, anchor_terms=asked
                )
                typed = lacks is None or not lacks.startswith("gives no")
                # A sentence without the question's names answers another question.
                weight = (1.5 if typed and kind else 1.0) * (0.5 if lacks and typed else 1.0)
                # Rank decays gently: BM25 order is a good prior but not the answer.
                score = coverage * weight / (1 + 0.1 * hit.rank)
                out.append(
                    _Candidate(
                        sentence,
                        hit.passage.passage_id,
                        (doc_rank[hit.passage.doc_id], hit.passage.start + start),
                        stems,
                        score,
                        coverage,
                        typed,
                    )
                )
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
            # Near-repeats (the same fact in two documents) add length, not content.
            if any(
                len(cand.stems & c.stems) / max(1, len(cand.stems | c.stems)) > 0.6 for c in chosen
            ):
                continue
            chosen.append(cand)
        for cand in sorted(chosen, key=lambda c: c.order):
            yield Draft(cand.text, (cand.passage_id,))
