"""Segmentation: passages as exact character ranges of a version's text, cut along its
structure, each carrying its heading path.

The text's blocks come from ``structure`` (headings, man-page option blocks, list
items, table rows, code); a passage is a run of whole blocks under one heading path,
so it never mixes two options or two sections, and its ``heading`` says where it
stands (``grep(1) › OPTIONS › Matching Control › -v, --invert-match``). A block
longer than a passage is cut at sentence ends (``tether.text.sentences``, the one
splitter every stage uses). Every span satisfies ``text[start:end] == piece`` by
construction: only offsets are computed, strings are never rebuilt.

    >>> text = "# Gloves\\nWear nitrile gloves.\\n## Eyes\\nWear goggles."
    >>> [(text[c.start:c.end], c.heading) for c in passage_spans(text, max_chars=200)]
    [('# Gloves\\nWear nitrile gloves.', ('Gloves',)), ('## Eyes\\nWear goggles.', ('Gloves', 'Eyes'))]
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import NamedTuple

from ..records import Region

# Sentences are the toolkit's; re-exported here for callers that still import them
# from ingest (the facade and the generators).
from ..text.sentences import Span, sentence_ranges, sentence_spans
from .structure import Block, man_name, outline

__all__ = ["Cut", "Span", "passage_spans", "region_label", "sentence_spans"]

# Markdown structure (or HTML, which extraction marks the Markdown way) in the
# first 100,000 characters: a heading, a fence, front matter. Searched in the text
# after a newline: opening on a newline rather than a multiline "^", the pattern is
# tried only at line starts (``re`` tried "^" at every character: most of the sniff).
_MARKDOWN = re.compile(r"\n(?:[ ]{0,3}#{1,6}[ \t]+\S|[ ]{0,3}(?:```|~~~)|---[ \t]*$|\+\+\+[ \t]*$)",
                       re.MULTILINE)
_SNIFF = 100_000


class Cut(NamedTuple):
    """A passage's range ``[start, end)``, its heading path (outermost first) and its
    blocks' kind: the kind when all its blocks share one (``synopsis``, ``term``…), else
    ``mixed``. A named tuple: one is made per passage, at half a frozen dataclass's cost."""

    start: int
    end: int
    heading: tuple[str, ...] = ()
    kind: str = "prose"


def passage_spans(
    text: str, *, max_chars: int, breaks: Sequence[int] = (), markdown: bool | None = None
) -> list[Cut]:
    """Runs of whole blocks up to ``max_chars`` under one heading path; never across a
    hard break.

    ``breaks`` are offsets a passage must not straddle (page boundaries), so a
    passage's region is always a single page. ``markdown`` says how to read the
    structure; ``None`` reads it from the text (a man page's header line, Markdown
    headings or fences).
    """
    root = man_name(text)
    if markdown is None:
        markdown = root is None and _MARKDOWN.search("\n" + text[:_SNIFF]) is not None
    bounds = sorted({0, len(text), *(b for b in breaks if 0 < b < len(text))})
    passages: list[Cut] = []
    for lo, hi in itertools.pairwise(bounds):
        blocks = outline(text, lo, hi, markdown=markdown, root=root)
        passages.extend(_Packer(text, max_chars).pack(blocks))
    return passages


class _Packer:
    """Greedy packing of blocks into passages (one section's blocks at a time)."""

    def __init__(self, text: str, max_chars: int) -> None:
        self.text, self.max_chars = text, max(1, max_chars)
        self.out: list[Cut] = []
        self.start = self.end = -1
        self.heading: tuple[str, ...] = ()
        self.kind: str | None = None  # the passage's blocks' one kind, or "mixed"
        self.pending: list[Block] = []  # heading lines waiting for their first content

    def pack(self, blocks: Sequence[Block]) -> list[Cut]:
        for block in blocks:
            if block.kind == "heading":
                self.flush()
                self.pending.append(block)
                continue
            self.place(block)
        self.flush()
        if self.pending:  # headings with nothing under them: one passage of their own
            last = self.pending[-1]
            self._emit(self.pending[0].start, last.end, last.heading, "heading")
            self.pending = []
        return self.out

    def place(self, block: Block) -> None:
        start = block.start
        if self.pending:
            start = self.pending[0].start
            self.pending = []
        if self.start >= 0 and (
            block.heading != self.heading
            or block.end - self.start > self.max_chars
            or self._paragraph_edge(block)
        ):
            self.flush()
        if block.end - start > self.max_chars:
            self._cut_long(start, block)
            return
        if self.start < 0:
            self.start, self.heading = start, block.heading
        self.end = block.end
        if self.kind != block.kind:
            self.kind = block.kind if self.kind is None else "mixed"

    def _paragraph_edge(self, block: Block) -> bool:
        """A blank line before a prose block, once the passage is reasonably full."""
        return (block.kind == "prose" and self.end - self.start > self.max_chars // 2
                and "\n\n" in self.text[self.end : block.start])

    def _cut_long(self, start: int, block: Block) -> None:
        """A block longer than a passage: greedy runs of its whole sentences."""
        lo = hi = -1
        for sentence_start, sentence_end in sentence_ranges(self.text, start, block.end):
            if lo < 0:
                lo, hi = sentence_start, sentence_end
            elif sentence_end - lo > self.max_chars:
                self._emit(lo, hi, block.heading, block.kind)
                lo, hi = sentence_start, sentence_end
            else:
                hi = sentence_end
        if lo >= 0:
            self.start, self.end, self.heading = lo, hi, block.heading
            self.kind = block.kind

    def _emit(self, lo: int, hi: int, heading: tuple[str, ...], kind: str) -> None:
        """A passage, trimmed of every kind of blank (structure reads lines by spaces
        and tabs; a no-break space must not start or make up a passage)."""
        while lo < hi and self.text[lo].isspace():
            lo += 1
        while hi > lo and self.text[hi - 1].isspace():
            hi -= 1
        if lo < hi:
            self.out.append(Cut(lo, hi, heading, kind))

    def flush(self) -> None:
        if self.start >= 0:
            self._emit(self.start, self.end, self.heading, self.kind or "mixed")
        self.start = self.end = -1
        self.kind = None


def region_label(regions: Sequence[Region], start: int) -> str | None:
    """Label of the region (page) holding offset ``start``, if the version has regions."""
    for region in regions:
        if region.start <= start < region.end:
            return region.label
    return None
