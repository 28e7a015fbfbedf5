"""Plain text and Markdown: kept verbatim (we cite the source text itself), decoded strictly.

    >>> from tether.config import Settings
    >>> MARKDOWN_EXTRACTOR.extract(b"Intro\\n=====\\nBody", settings=Settings(), name="x",
    ...                            charset=None).title
    'Intro'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ...config import Settings
from ...errors import UnsupportedInput
from .base import Extracted, cap_title
from .limits import check_chars
from .sniff import MARKDOWN, TEXT, clean, decode, lookup, refuse_binary, split_bom

__all__ = ["MARKDOWN_EXTRACTOR", "TEXT_EXTRACTOR", "TextExtractor", "first_line",
           "markdown_title"]

_ATX = re.compile(r"[ ]{0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*")
_SETEXT = re.compile(r"[ ]{0,3}(?:=+|-+)[ \t]*")
_FENCE = re.compile(r"[ ]{0,3}(?:```|~~~)")


@dataclass(frozen=True, slots=True)
class TextExtractor:
    """Text read as-is; only the title rule differs between plain text and Markdown."""

    media_type: str
    title: Callable[[str], str | None]

    def extract(
        self, data: bytes, *, settings: Settings, name: str, charset: str | None
    ) -> Extracted:
        text = decode_text(data, settings, name, charset)
        return Extracted(text=text, media_type=self.media_type, extractor="text", regions=(),
                         title=self.title(text))


def decode_text(data: bytes, settings: Settings, name: str, charset: str | None) -> str:
    """``data`` as text: BOM, else ``charset``, else UTF-8; binary-looking bytes refused."""
    bom_encoding, body = split_bom(data)
    encoding = bom_encoding or (lookup(charset, name) if charset else "utf-8")
    if not encoding.startswith("utf-16"):
        refuse_binary(body, name)
    text = decode(data, len(data) - len(body), encoding, name)
    if "\x00" in text:  # a UTF-16 file can still smuggle one in
        raise UnsupportedInput(f"{name}: looks binary, not text (NUL characters)")
    check_chars(len(text), settings, name)
    return clean(text)


def first_line(text: str) -> str | None:
    """The first non-blank line (of the first 200), as a title."""
    for line in text.split("\n", 200)[:200]:
        if line.strip():
            return cap_title(line)
    return None


def markdown_title(text: str) -> str | None:
    """First ATX (``# Title``) or setext (``Title`` over ``===``) heading, else the first line."""
    lines = text.split("\n", 2000)[:2000]
    in_fence = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        atx = _ATX.fullmatch(line)
        if atx:
            return cap_title(atx.group(1))
        if line.strip() and i + 1 < len(lines) and _SETEXT.fullmatch(lines[i + 1]):
            return cap_title(line)
    return first_line(text)


TEXT_EXTRACTOR = TextExtractor(TEXT, first_line)
MARKDOWN_EXTRACTOR = TextExtractor(MARKDOWN, markdown_title)
