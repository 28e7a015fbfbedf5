"""Segmentation: sentences and passages as exact character ranges of a version's text.

Every span returned here satisfies ``text[start:end] == piece`` by construction: we
only ever compute offsets, never rebuild strings. Passages are runs of whole
sentences, so a quote cut from a sentence never straddles a passage edge unless the
sentence itself does (attribution joins neighbours for that case).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..records import Region

__all__ = [
    "Span", "is_abbreviation", "passage_spans", "region_label", "sentence_spans", "split_sentences",
]

# Words whose trailing period does not end a sentence.
_ABBREVIATIONS = frozenset(
    """
    e.g i.e etc vs cf approx ca no nos fig figs eq dr mr mrs ms prof st jr sr inc ltd co corp
    dept est vol p pp ed eds al jan feb mar apr jun jul aug sep sept oct nov dec mt ft
    u.s u.k a.m p.m
    """.split()
)

# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) and
# whitespace; also at a blank line or before a line that starts a list item or
# heading. A stop run is tried only from its first character and never given back
# (possessive), so a run of 100,000 dots costs one pass, not one pass per dot.
_BOUNDARY = re.compile(
    r"""(?P<stop>(?<![.!?])[.!?]++["'”’)\]]*+)(?=\s)   # terminal punctuation before whitespace
      | \n[ \t]*\n                         # blank line
      | \n(?=[ \t]*(?:[-*+•]|\d{1,3}[.)]|\#{1,6})\s)  # next line is a list item or heading
      | \n(?=[ \t]*\[\d{1,2}:\d{2})        # next line is a timestamp (transcripts)
      | (?P<line>\n)(?=[ \t]*\S)            # any other line break: decided in code
    """,
    re.VERBOSE,
)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]{0,9})$")
# A line shorter than this that ends without punctuation is a unit of its own (a
# heading, a table row, "Boiling point: 64.7 °C"); longer ones are wrapped prose.
_SHORT_LINE = 60
# Longest stretch we allow without a break, so one huge unpunctuated line cannot
# become a single megabyte "sentence".
_MAX_SENTENCE = 2_000


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int


def is_abbreviation(text: str, stop_at: int) -> bool:
    """Whether the period at ``stop_at`` closes an abbreviation or an initial."""
    match = _WORD_BEFORE.search(text, max(0, stop_at - 10), stop_at)
    if not match:
        return False
    word = match.group(1).lower().rstrip(".")
    if word in _ABBREVIATIONS:
        return True
    # A lone capital after a space is an initial ("J. Smith"); after a symbol it is a
    # unit ("64.7 °C.") and does end the sentence.
    before = text[match.start() - 1] if match.start() else " "
    return len(word) == 1 and text[match.start()].isupper() and before in " (\n"


def _raw_breaks(text: str) -> Iterator[int]:
    """Offsets right after each sentence end (before the following whitespace)."""
    for match in _BOUNDARY.finditer(text):
        if match.group("stop"):
            stop_at = match.start("stop")
            if text[stop_at] == "." and is_abbreviation(text, stop_at):
                continue
            yield match.end("stop")
        elif match.group("line"):
            line_start = text.rfind("\n", 0, match.start()) + 1
            indented = text[match.end() : match.end() + 1] in (" ", "\t")
            if indented or match.start() - line_start < _SHORT_LINE:
                yield match.start()
        else:
            yield match.start()


def _trimmed(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end) if end > start else None


def _cut_long(text: str, span: Span) -> Iterator[Span]:
    start = span.start
    while span.end - start > _MAX_SENTENCE:
        cut = text.rfind(" ", start + _MAX_SENTENCE // 2, start + _MAX_SENTENCE)
        cut = cut if cut > start else start + _MAX_SENTENCE
        piece = _trimmed(text, start, cut)
        if piece:
            yield piece
        start = cut
    piece = _trimmed(text, start, span.end)
    if piece:
        yield piece


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Sentence ranges in ``text[start:end]`` (offsets into ``text``), whitespace-trimmed."""
    end = len(text) if end is None else end
    spans: list[Span] = []
    last = start
    window = text[start:end]
    for cut in _raw_breaks(window):
        piece = _trimmed(text, last, start + cut)
        if piece:
            spans.extend(_cut_long(text, piece))
        last = start + cut
    piece = _trimmed(text, last, end)
    if piece:
        spans.extend(_cut_long(text, piece))
    return spans


def split_sentences(text: str) -> list[str]:
    """Sentences of free text (an answer to verify, a generator's draft)."""
    return [text[s.start : s.end] for s in sentence_spans(text)]


def passage_spans(
    text: str, *, max_chars: int, breaks: Sequence[int] = ()
) -> list[Span]:
    """Greedy runs of whole sentences up to ``max_chars``; never across a hard break.

    ``breaks`` are offsets a passage must not straddle (page boundaries), so a
    passage's region is always a single page.
    """
    bounds = sorted({0, len(text), *(b for b in breaks if 0 < b < len(text))})
    passages: list[Span] = []
    for lo, hi in zip(bounds, bounds[1:]):
        current: Span | None = None
        for sentence in sentence_spans(text, lo, hi):
            # A blank line before this sentence is a paragraph edge: prefer to cut
            # there once the passage is reasonably full.
            paragraph_edge = current is not None and "\n\n" in text[current.end : sentence.start]
            if current is None:
                current = sentence
            elif sentence.end - current.start > max_chars or (
                paragraph_edge and current.end - current.start > max_chars // 2
            ):
                passages.append(current)
                current = sentence
            else:
                current = Span(current.start, sentence.end)
        if current is not None:
            passages.append(current)
    return passages


def region_label(regions: Sequence[Region], start: int) -> str | None:
    """Label of the region (page) holding offset ``start``, if the version has regions."""
    for region in regions:
        if region.start <= start < region.end:
            return region.label
    return None
