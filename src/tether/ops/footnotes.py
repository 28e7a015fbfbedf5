"""Numbered citation markers, for faces that hand an answer over as plain text.

A chat window or a model reading a tool's result sees text, not records: each verified
sentence is followed by the numbers of the passages that support it (``[1]``, ``[2][3]``),
numbered in order of first use, and a source list maps each number to the exact range it
cites. ``Footnotes`` numbers sentences one at a time, so a streamed answer gets the same
numbers as the whole one.

>>> from tether.records import AnswerSentence, Citation, Verdict
>>> cite = Citation("d1", "v1", 0, 22, "Water boils at 100 °C.", "h", "p1",
...                 "https://example.org/water", "Water", "CC0", "2026-01-05")
>>> notes = Footnotes()
>>> notes.mark(AnswerSentence("Water boils at 100 °C.", (cite,), Verdict("supported", 1.0)))
'Water boils at 100 °C. [1]'
>>> print(notes.sources_text())
Sources:
[1] Water — https://example.org/water, characters 0–22: “Water boils at 100 °C.”
"""

from __future__ import annotations

from typing import Any

from ..records import Answer, AnswerSentence, Citation, to_json

__all__ = ["Footnotes", "answer_text", "refusal_text"]

# A citation's identity for numbering: the same range of the same version is one source.
CitedRange = tuple[str, str, int, int]


def _range_of(citation: Citation) -> CitedRange:
    return citation.doc_id, citation.version, citation.start, citation.end


class Footnotes:
    """Numbers for the citations of an answer's sentences, in order of first use."""

    def __init__(self) -> None:
        self._numbers: dict[CitedRange, int] = {}
        self.cited: list[Citation] = []  # cited[n - 1] is source [n]

    def numbers(self, sentence: AnswerSentence) -> list[int]:
        found = []
        for citation in sentence.citations:
            key = _range_of(citation)
            if key not in self._numbers:
                self.cited.append(citation)
                self._numbers[key] = len(self.cited)
            found.append(self._numbers[key])
        return list(dict.fromkeys(found))

    def mark(self, sentence: AnswerSentence) -> str:
        """The sentence followed by its markers: ``"… [1][2]"``."""
        markers = "".join(f"[{n}]" for n in self.numbers(sentence))
        return f"{sentence.text} {markers}" if markers else sentence.text

    def sources_text(self) -> str:
        """``Sources:`` and one line per number: title, source, range and quote."""
        lines = ["Sources:"]
        for n, c in enumerate(self.cited, start=1):
            lines.append(f"[{n}] {c.title} — {c.source}, characters {c.start}–{c.end}: “{c.quote}”")
        return "\n".join(lines)

    def sources_json(self) -> list[dict[str, Any]]:
        """The numbered sources as data: what a marker points at, exactly, and the whole
        citation record (``citation``), which ``resolve`` takes as it is."""
        return [
            {"index": n, "source": c.source, "title": c.title, "doc_id": c.doc_id,
             "version": c.version, "range": {"start": c.start, "end": c.end},
             "quote": c.quote, "citation": to_json(c)}
            for n, c in enumerate(self.cited, start=1)
        ]


def refusal_text(answer: Answer) -> str:
    """A refusal as one sentence naming its reason (as ``tether ask`` prints it)."""
    return f"No answer: {answer.refusal_reason or 'nothing in the documents supports an answer'}."


def answer_text(answer: Answer, notes: Footnotes | None = None) -> str:
    """The whole answer as text: marked sentences, then the sources; or the refusal."""
    if answer.refused:
        return refusal_text(answer)
    notes = notes or Footnotes()
    body = " ".join(notes.mark(sentence) for sentence in answer.sentences)
    return f"{body}\n\n{notes.sources_text()}"
