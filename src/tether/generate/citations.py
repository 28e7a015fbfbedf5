"""Cited answers: Claude cites the passages, Tether shows the stored sentences it cited.

Each retrieved passage is sent as a plain-text ``document`` block with citations
enabled (ADR 0057); the reply's text comes with ``char_location`` citations —
document index, ``[start, end)`` into that document's text, and the cited words. A
citation is mapped onto the stored passage:

- ``exact``: the cited range of the passage text holds the cited words;
- ``relocated``: it does not, but the words are in the passage — verbatim, else up to
  whitespace and quote style (the occurrence nearest the cited offset wins);
- otherwise it is ignored (``not_in_passage``), as is one naming a document that was
  not sent (``out_of_range``): a ``Remark`` for the trace, never shown.

The stored sentences the mapped range overlaps — cut with ``text.sentences``, numbered
as the quote-bound prompt numbers them, so ``quoted`` is ``"p.s"`` there too — become
``Draft``s the moment the citation arrives, each word for word as stored. The model's
own text is never shown: before the first citation it is the lead-in (or the decline,
``DECLINE_PATTERNS``), after it stray text, both kept in the trace. A sentence cited
twice, or a citation after a decline, is ignored as a repeated or late id is.

    >>> from tether.records import Document, Hit, Passage
    >>> from tether.providers.anthropic import DocumentCitation
    >>> doc = Document("d", "file:///a.md", "Sheet", "CC0", "2026-01-01", "text/markdown")
    >>> text = "Alpha weighs 5 kg. Beta weighs 7 kg."
    >>> hit = Hit(Passage("p1", "d", "v", 0, len(text), text), doc, 1.0, 0)
    >>> reader = CitationReader(CitationPrompt.build("How heavy is Beta?", [hit]))
    >>> reader.feed("Beta weighs 7 kg.")
    []
    >>> for item in reader.feed(DocumentCitation(0, "Beta weighs 7 kg.", 19, 36)): print(item)
    Remark(kind='lead_in', text='Beta weighs 7 kg.', detail='')
    Draft(text='Beta weighs 7 kg.', hints=('p1',), ignored_markers=(), quoted='1.2')
    >>> reader.feed(DocumentCitation(3, "Gamma.", 0, 6))[0].detail
    'out_of_range'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..providers.anthropic import DocumentCitation, SourceDocument
from ..records import Draft, Hit, Remark
from ..text.fold import tolerant_pattern
from ..text.sentences import sentence_spans
from .prompt import INJECTION_LINE
from .quotes import KEPT_CHARS, kept, opening

__all__ = ["CITATION_IGNORED", "CITATION_SYSTEM_PROMPT", "CitationPrompt", "CitationReader", "map_citation"]

CITATION_SYSTEM_PROMPT = f"""\
You answer a question using only the documents in the user's message, citing them.

{INJECTION_LINE}

Rules:
- Answer with citations to the sentences of the documents that answer the question, \
as few as answer it fully, usually one or two.
- Only the sentences you cite are shown, word for word; the words you write around \
them are not shown. Keep them to a few.
- If no sentence of the documents answers the question, reply: NO ANSWER, then say in \
one short sentence what is missing, and cite nothing.

Each sentence you cite is checked against the question; a sentence that does not \
answer it is removed before anyone sees it."""

# Why a citation was ignored (a ``Remark``'s ``detail``), as the trace records it.
CITATION_IGNORED = {
    "out_of_range": "names a document that was not sent",
    "not_in_passage": "the cited words are not in the passage",
    "duplicate": "cites only sentences cited already",
    "after_decline": "written after the model said the passages do not answer",
}

Mapped = Literal["exact", "relocated"]
Proposal = Draft | Remark
_SPACES = re.compile(r"\s+")


def _fold(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence of a sent passage: its range in the passage text and its id."""

    start: int
    end: int
    label: str  # "p.s", as the quote-bound prompt would number it
    text: str  # the stored text, whitespace folded


def _sentences(number: int, text: str) -> tuple[Sentence, ...]:
    """The passage's sentences as ``quotes.number_sentences`` cuts and numbers them."""
    spans = [s for s in sentence_spans(text) if any(c.isalnum() for c in text[s.start : s.end])]
    return tuple(Sentence(s.start, s.end, f"{number}.{n}", _fold(text[s.start : s.end]))
                 for n, s in enumerate(spans, 1))


def _title(hit: Hit) -> str:
    title = " › ".join(part for part in (hit.document.title, *hit.passage.heading) if part)
    return f"{title} · {hit.passage.region}" if hit.passage.region else title


def map_citation(text: str, citation: DocumentCitation) -> tuple[int, int, Mapped] | None:
    """Where in the passage ``text`` the citation's words are: ``(start, end, how)``.

        >>> c = DocumentCitation(0, "weighs 7 kg.", 0, 12)
        >>> map_citation("Beta weighs 7 kg.", c)
        (5, 17, 'relocated')
        >>> map_citation("Beta weighs 7 kg.", DocumentCitation(0, "weighs 7 kg.", 5, 17))
        (5, 17, 'exact')
    """
    quote = citation.cited_text.strip()
    if not quote:
        return None
    start, end = citation.start, citation.end
    if 0 <= start < end <= len(text) and text[start:end].strip() == quote:
        lead = len(text[start:end]) - len(text[start:end].lstrip())
        return start + lead, start + lead + len(quote), "exact"
    found = [(m.start(), m.end()) for m in re.finditer(re.escape(quote), text)]
    found = found or [(m.start(), m.end()) for m in tolerant_pattern(quote).finditer(text)]
    if not found:
        return None
    at, to = min(found, key=lambda r: (abs(r[0] - start), r[0]))
    return at, to, "relocated"


@dataclass(frozen=True, slots=True)
class CitationPrompt:
    """What is sent (rules, one document per passage, the question) and what each
    document index stands for."""

    system: str
    documents: tuple[SourceDocument, ...]
    question: str
    hits: tuple[Hit, ...]  # document i is hits[i]
    sentences: tuple[tuple[Sentence, ...], ...]

    @classmethod
    def build(cls, question: str, hits: Sequence[Hit], *, steering: str | None = None) -> CitationPrompt:
        system = CITATION_SYSTEM_PROMPT
        if steering and steering.strip():
            system += "\n\nAbout the passages retrieved for this question: " + steering.strip()
        documents = tuple(SourceDocument(_title(hit), hit.passage.text) for hit in hits)
        sentences = tuple(_sentences(n, hit.passage.text) for n, hit in enumerate(hits, 1))
        return cls(system, documents, question.strip(), tuple(hits), sentences)


class CitationReader:
    """Feed the reply's parts (text, citations) as they stream; get back drafts and
    remarks as soon as each citation arrives. ``close`` after the stream, whether it
    finished or failed (a citation arrives whole, so nothing is ever half-read)."""

    def __init__(self, prompt: CitationPrompt) -> None:
        self.prompt = prompt
        self._lead = ""  # text before the first citation
        self._stray = ""  # text after it
        self._started = False
        self._declined = False
        self._chosen: set[str] = set()

    def feed(self, part: str | DocumentCitation) -> list[Proposal]:
        if isinstance(part, str):
            if self._started:
                self._stray = (self._stray + part)[: 4 * KEPT_CHARS]
            else:
                self._lead = (self._lead + part)[: 4 * KEPT_CHARS]
            return []
        return [*self._begin(), *self._cited(part)]

    def close(self) -> list[Proposal]:
        out = self._begin()
        if self._stray.strip():
            out.append(Remark("stray_text", kept(self._stray)))
        self._stray = ""
        return out

    def _begin(self) -> list[Proposal]:
        """At the first citation (or the end): the lead-in, and whether it declined."""
        if self._started:
            return []
        self._started = True
        self._declined, remarks = opening(self._lead)
        return remarks

    def _cited(self, citation: DocumentCitation) -> list[Proposal]:
        index = citation.document_index
        label = kept(f"[document {index + 1}: {citation.cited_text}]")
        if self._declined:
            return [Remark("ignored_id", label, "after_decline")]
        if not 0 <= index < len(self.prompt.hits):
            return [Remark("ignored_id", label, "out_of_range")]
        mapped = map_citation(self.prompt.hits[index].passage.text, citation)
        if mapped is None:
            return [Remark("ignored_id", label, "not_in_passage")]
        start, end, _how = mapped
        passage_id = self.prompt.hits[index].passage.passage_id
        covered = [s for s in self.prompt.sentences[index] if s.start < end and start < s.end]
        fresh = [s for s in covered if s.label not in self._chosen]
        if not fresh:
            return [Remark("ignored_id", label, "duplicate" if covered else "not_in_passage")]
        self._chosen.update(s.label for s in fresh)
        return [Draft(s.text, (passage_id,), quoted=s.label) for s in fresh]
