"""The seam every format sits behind: the ``Extracted`` record and the ``Extractor`` protocol.

An extractor turns one format's bytes into text, title and page regions. It is
handed bytes that already passed the size limit and must enforce its own format's
limits (depth, decompression, pages) before the expensive step. The caller
(``extract_bytes``) then applies the checks every format shares: trailing whitespace
cut, ``max_text_chars``, no empty text.

    >>> from tether.config import Settings
    >>> from tether.ingest.extract import EXTRACTORS
    >>> EXTRACTORS["text/plain"].extract(b"Hi", settings=Settings(), name="x", charset=None).text
    'Hi'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ...config import Settings
from ...records import Region

__all__ = ["Extracted", "Extractor", "cap_title"]

_TITLE_CHARS = 300


@dataclass(frozen=True, slots=True)
class Extracted:
    """What extraction hands to ingest: the text to store and cite, and how it was made."""

    text: str
    media_type: str
    # Tool and version, recorded on the Version: a parser upgrade changes the text,
    # and a stored citation must be able to say which parser its range belongs to.
    extractor: str
    # One Region per PDF page ("page 3"); empty for formats without pages.
    regions: tuple[Region, ...]
    title: str | None
    # Injection flags for text the reader never sees and extraction drops (HTML
    # comments, hidden elements): no passage can carry them, so ingest reports them
    # on its result. Observability only; empty for formats without hidden text.
    hidden_flags: tuple[str, ...] = ()
    # Text extraction dropped because no reader sees it, as (reason, pieces) pairs: PDF
    # text drawn white on white, invisible, too small or off the page (``pdfvisible``).
    dropped: tuple[tuple[str, int], ...] = ()


class Extractor(Protocol):
    """Reads one format. ``charset`` is the caller's declaration (an upload's
    ``Content-Type`` parameter), which wins over the document's own, or ``None``."""

    def extract(
        self, data: bytes, *, settings: Settings, name: str, charset: str | None
    ) -> Extracted:
        """The text of ``data``; raises a ``TetherError`` for input it refuses."""
        ...


def cap_title(title: str) -> str | None:
    """A title as stored: whitespace collapsed, at most 300 characters, never empty."""
    title = " ".join(title.split())
    return title[:_TITLE_CHARS] or None
