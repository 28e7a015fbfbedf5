"""Segmentation: passages as exact character ranges of a version's text.

Sentences come from ``tether.text.sentences`` (the one splitter every stage uses).
Every span returned here satisfies ``text[start:end] == piece`` by construction: we
only ever compute offsets, never rebuild strings. Passages are runs of whole
sentences, so a quote cut from a sentence never straddles a passage edge unless the
sentence itself does (attribution joins neighbours for that case).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..records import Region

# Sentences are the toolkit's; re-exported here for callers that still import them
# from ingest (the facade and the generators).
from ..text.sentences import Span, sentence_spans

__all__ = ["passage_spans", "region_label"]


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
