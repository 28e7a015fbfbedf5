"""The default generator: verbatim sentences from the retrieved passages, fully offline.

It cannot fabricate: every draft is a slice of a passage. What it decides is which
sentences answer the question, with its own ranking (``rank``): weighted coverage of
the question's content terms, whether the sentence carries the kind of answer asked
for (a figure for "how much", a date for "when", a name for "who"), whether it names
the question's names, retrieval rank, and no repeats. It never asks the answer check
that later gates its output (docs/DESIGN.md: the guard and the generators are independent).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..config import default_reader
from ..instructions.detect import addresses_reader, is_instruction_like
from ..records import Draft, Hit
from ..text.focus import (
    GENERIC,
    frame,
    is_field,
    is_fragment,
    is_usage,
    mentions,
    read_focus,
    states_value,
    unit_default,
    unit_term,
)
from ..text.sentences import sentence_spans
from ..text.terms import stems
from .lists import list_items, wants_list
from .reading import qualifies, read_sentences
from .rank import (
    Question,
    coverage,
    defines,
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
# A sentence after the first under one term or heading: a definition's later lines
# qualify what its first line says, so they rank a little lower.
_LATER = 0.85
# A sentence in the unit the question names ("-v, --invert-match" for "-v") is about
# what was asked, whatever words it uses.
_NAMED_UNIT = 1.5
_GENERIC = frozenset(stems(" ".join(GENERIC)))
_ANNOUNCES = 2.0
_DEFINES = 1.5


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
    framing: frozenset[str]  # stems of its frame: its unit's term line, headings over it
    lead: bool  # the first sentence under its frame (a definition's first line)
    names_focus: bool  # its frame (its unit) names the question's options and identifiers
    unit: frozenset[str]  # stems of the first sentence under its frame (its definition)
    hit: Hit
    end: int  # offset of its end in the passage


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
    source: _Sentence


def _is_content(sentence: str, framing: tuple[str, ...] = ()) -> bool:
    """Whether a sentence can be answer content: not a fragment, a short piece (unless
    a field states its value: "Default: 128"), a heading (unless it states its term's
    value), a question, usage line (a SYNOPSIS) or instruction (an imperative in a
    document is never offered as a fact)."""
    return not (
        (len(sentence) < 15 and not is_field(sentence))
        or (sentence.startswith("#") and not states_value(sentence))
        or sentence.rstrip().endswith("?")
        or is_fragment(sentence)
        or is_usage(sentence, framing)
        or is_instruction_like(sentence)
    )


def _sentences(question: Question, hits: Sequence[Hit]) -> list[_Sentence]:
    focus = read_focus(question.text)
    # A subject with a page of its own among the hits (bzip2(1)) is answered there,
    # or by a sentence or under a heading naming it (zip's "The default compression
    # level is -6." is about zip; the site notes' "The yard gate of the Harlow Bend
    # site is painted green" is about Harlow Bend, whose manual is a page of its own).
    pages = {h.document.doc_id for h in hits if focus.subjects
             and all(mentions(h.document.title, s) for s in focus.subjects)}
    doc_rank: dict[str, int] = {}
    out = []
    for hit in hits:
        doc_rank.setdefault(hit.passage.doc_id, hit.rank)
        # A fact sheet states its subject once, in the title ("Boiling point: 64.7 °C"
        # under "Methanol"): title terms count toward coverage, sentence terms must too.
        title = frozenset(stems(hit.document.title))
        text = hit.passage.text
        previous: frozenset[str] = frozenset()
        last_frame: tuple[str, ...] | None = None
        unit: frozenset[str] = frozenset()
        spoken_to = False  # the sentence before addressed an automated reader ("Hello AI!")
        for span in sentence_spans(text):
            after_address, spoken_to = spoken_to, addresses_reader(text[span.start : span.end])
            start = span.start
            marker = _LIST_MARKER.match(text, start, span.end)
            if marker:
                start = marker.end()
            sentence = text[start : span.end]
            own = frozenset(stems(sentence))
            framing = (*hit.passage.heading, *frame(text, span.start))
            # "It was commissioned by Odo" names the tapestry of the sentence before.
            context, previous = title | previous, own
            if after_address or not _is_content(sentence, framing):
                continue
            lead, last_frame = framing != last_frame, framing
            # Later lines of a definition lean on its first ("Select a compression
            # preset level." over "The default is -6.").
            unit = own if lead else unit
            framed = frozenset(stems(" ".join(framing)))
            named = focus.names(sentence, framing)
            if not (named or question.stems & (own | framed)):
                continue
            # The question names an option or an identifier: a sentence nothing binds
            # to it is about something else ("Default: false." under another option).
            # Its subject is one of the question's names, preferred, not required here.
            if focus.exact and not named:
                continue
            if pages and hit.passage.doc_id not in pages and not all(
                    any(mentions(f, s) for f in (*framing, sentence)) for s in focus.subjects):
                continue
            out.append(
                _Sentence(sentence, hit.passage.passage_id,
                          (doc_rank[hit.passage.doc_id], hit.passage.start + start),
                          hit.rank, own, title, context, framed, lead, focus.names("", framing),
                          unit, hit, span.end)
            )
    return out


def _repeats(own: frozenset[str], chosen: Iterable[frozenset[str]]) -> bool:
    """Whether a sentence nearly repeats one already chosen (the same fact in two
    documents): that adds length, not content."""
    return any(len(own & c) / max(1, len(own | c)) > 0.6 for c in chosen)


# The trained reader (ADR 0044): sentences the answerability model reads, and how
# close to the best a further sentence must score to be proposed beside it.
_READ_LIMIT = 32
_PROPOSE_FLOOR = 0.05
_CLOSE = 0.5


class ExtractiveGenerator:
    name = "extractive"

    def __init__(self, *, max_sentences: int = 3, reader: str = "") -> None:
        self.max_sentences = max_sentences
        self.reader = reader or default_reader()

    def _generate_read(self, question: str, hits: Sequence[Hit]) -> Iterator[Draft]:
        """The trained reader's choice: the sentences the answerability model reads as
        answering, best first; each shown with its successor when that qualifies it,
        and after the term line of the unit it opens."""
        reads = read_sentences(question, hits, keep=_is_content, limit=_READ_LIMIT)
        if not reads or reads[0].score < _PROPOSE_FLOOR:
            return
        best = reads[0]
        chosen = [best]
        for read in reads[1:]:
            if len(chosen) >= self.max_sentences or read.score < max(_PROPOSE_FLOOR,
                                                                     _CLOSE * best.score):
                break
            if _repeats(frozenset(stems(read.text)), (frozenset(stems(c.text)) for c in chosen)):
                continue
            chosen.append(read)
        items = list_items(best.hit.passage.text, best.end) if wants_list(question) else []
        if items:
            for text in items:
                yield Draft(text, (best.hit.passage.passage_id,))
            return
        shown: set[str] = set()
        for read in sorted(chosen, key=lambda r: (r.hit.rank, r.start)):
            # A unit's first sentence comes after the term it describes ("-v,
            # --invert-match", "### kiln_vent"): without it, it says not what it is about.
            text_of = read.hit.passage.text
            term, default = unit_term(text_of, read.start), unit_default(text_of, read.start, read.end)
            term_line = text_of[term[0]:term[1]] if term else ""
            # ... and before its default, when its unit states one a few sentences on.
            stated = text_of[default[0]:default[1]] if default else ""
            for text in (term_line, read.text, read.following if qualifies(read.following) else "",
                         stated):
                if text and text not in shown:
                    shown.add(text)
                    yield Draft(text, (read.hit.passage.passage_id,))

    def _candidates(self, question: str, hits: Sequence[Hit]) -> list[_Candidate]:
        q = read_question(question)
        found = _sentences(q, hits)
        several = wants_list(question)
        weights = idf_weights(q, (s.stems | s.framing | (s.title & q.names) for s in found))
        out = []
        for s in found:
            # A title names the subject ("Methanol" over "Boiling point: 64.7 °C"): it
            # supplies the question's names in full, its other words count half (a
            # title is over every sentence of the document, so it tells them apart less).
            # The unit's term and headings state what the sentence is about
            # ("-v, --invert-match" over "Invert the sense of matching").
            present = s.stems | s.framing | (s.title & q.names)
            if s.names_focus:  # the unit *is* the option the question calls "option"
                present |= q.stems & _GENERIC
            typed = supplies(s.text, q)
            named = name_share(q, present | s.context) == 1.0
            score = sentence_score(
                weighted=overlap(weights, present, s.title | s.unit), typed=typed, named=named,
                kind=q.kind,
                rank=s.rank,
            ) * (1.0 if s.lead or not s.framing else _LATER) * (
                _NAMED_UNIT if s.names_focus else 1.0)
            # Asked for several things, a sentence that announces a list of them is
            # worth more than one that names them in passing.
            if several and list_items(s.hit.passage.text, s.end):
                score *= _ANNOUNCES
            if defines(question, s.text):  # "What is Memcheck?": "Memcheck is a …"
                score *= _DEFINES
            out.append(_Candidate(s.text, s.passage_id, s.order, s.stems, score,
                                  coverage(q, present | s.title), typed, named, s))
        return out

    def generate(
        self, question: str, hits: Sequence[Hit], *, steering: str | None = None
    ) -> Iterator[Draft]:
        if self.reader == "trained":
            yield from self._generate_read(question, hits)
            return
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
            if _repeats(cand.stems, (c.stems for c in chosen)):
                continue
            chosen.append(cand)
        # "What are the rules?" over "Keep these rules in mind:" and its list: the
        # items answer, each on its own, not the sentence that announces them.
        items = list_items(best.source.hit.passage.text, best.source.end) if wants_list(
            question) else []
        if items:
            for text in items:
                yield Draft(text, (best.passage_id,))
            return
        for cand in sorted(chosen, key=lambda c: c.order):
            yield Draft(cand.text, (cand.passage_id,))
