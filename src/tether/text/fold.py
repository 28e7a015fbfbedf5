"""Length-preserving folding: the one place quotes, dashes, spaces and case are unified.

Folding keeps one character per original character, so any offset found in the folded
text is an offset in the original string; only the verbatim form (``collapse``) changes
length, and it carries the breakpoints needed to map back. ``loose_fold`` is the
containment form (evaluation, citation look-up) where offsets do not matter.

    >>> loose_fold("  The \u201cFlash\u201d  Point ")
    "the 'flash' point"
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

__all__ = [
    "tolerant_pattern",
    "DOUBLE_QUOTES", "SINGLE_QUOTES", "Collapsed", "collapse", "fold", "loose_fold", "translate",
]

# Every character a quoted text may use for a single or a double quote mark, the
# straight ones first; the citation look-up opens a quote to any of its style.
SINGLE_QUOTES = "'\u2018\u2019\u201a\u201b\u2032\u0060\u00b4\u02bc\uff07"
DOUBLE_QUOTES = '"\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\u301d\u301e\uff02'
_QUOTE_MARK = re.compile(f"([{re.escape(SINGLE_QUOTES + DOUBLE_QUOTES)}])")


def tolerant_pattern(quote: str, *, space: str = r"\s+", line_break: str = r"\s+") -> re.Pattern[str]:
    """``quote`` as a pattern with any quote-mark style left open and each whitespace
    run read as ``space`` (``line_break`` for a run holding a line break): a quote
    found again though its text was re-spaced or its quotes restyled.

        >>> bool(tolerant_pattern("it's  done").fullmatch("it\u2019s done"))
        True
    """
    parts: list[str] = []
    for token in re.split(r"(\s+)", quote):
        if token.isspace():
            parts.append(line_break if "\n" in token else space)
            continue
        for piece in _QUOTE_MARK.split(token):
            if piece and piece in SINGLE_QUOTES:
                parts.append(f"[{re.escape(SINGLE_QUOTES)}]")
            elif piece and piece in DOUBLE_QUOTES:
                parts.append(f"[{re.escape(DOUBLE_QUOTES)}]")
            elif piece:
                parts.append(re.escape(piece))
    return re.compile("".join(parts))
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
# Every whitespace and control character becomes a plain space: text pasted from PDFs
# and web pages differs from the stored passage mostly in these.
_SPACES = (
    "".join(chr(c) for c in range(0x00, 0x20))
    + "\x7f"
    + "".join(chr(c) for c in range(0x80, 0xA1))
    + "\u1680\u2028\u2029\u202f\u205f\u3000\u200b\u2060\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)

_TABLE: dict[int, str] = {}
_TABLE.update({ord(c): "'" for c in SINGLE_QUOTES[1:]})
# Single and double, straight and curly: one quote character, since answers re-quote freely.
_TABLE.update({ord(c): "'" for c in DOUBLE_QUOTES})
_TABLE.update({ord(c): "-" for c in _DASHES})
_TABLE.update({ord(c): " " for c in _SPACES})
# Dotless i ("Topkapı") upper-cases to a plain I; folding it keeps case-only copies equal.
_TABLE[ord("\u0131")] = "i"


def translate(text: str) -> str:
    """Unify quotes, dashes, whitespace and control characters; case and length kept."""
    return text.translate(_TABLE)


def fold(translated: str) -> str:
    """Lower-case ``translated`` without changing its length (offsets stay valid)."""
    low = translated.lower()
    if len(low) == len(translated):
        return low
    # A few characters ('İ') lower to two; keep those as they are so offsets hold.
    return "".join(lc if len(lc := c.lower()) == 1 else c for c in translated)


def loose_fold(text: str) -> str:
    """Case-, width-, quote-, dash- and whitespace-insensitive form for containment tests.

    Unlike ``fold`` it changes length (NFKC, ``casefold``, squeezed spaces), so an
    offset in it means nothing in the original.
    """
    return collapse(translate(unicodedata.normalize("NFKC", text)).casefold()).text.strip()


class Collapsed:
    """Folded text with runs of spaces squeezed to one, and the map back to offsets."""

    __slots__ = ("text", "_breaks", "_shifts")

    def __init__(self, text: str, breaks: list[int], shifts: list[int]) -> None:
        self.text = text
        self._breaks = breaks
        self._shifts = shifts

    def original(self, pos: int) -> int:
        """Offset in the uncollapsed string of collapsed offset ``pos``."""
        k = bisect_right(self._breaks, pos)
        return pos + (self._shifts[k - 1] if k else 0)


_MULTISPACE = re.compile(r" {2,}")


def collapse(folded: str) -> Collapsed:
    """Squeeze runs of spaces (folded text has no other whitespace) to single spaces."""
    parts: list[str] = []
    breaks: list[int] = []
    shifts: list[int] = []
    last = 0
    shift = 0
    for m in _MULTISPACE.finditer(folded):
        s, e = m.span()
        parts.append(folded[last : s + 1])
        breaks.append(s - shift + 1)
        shift += e - s - 1
        shifts.append(shift)
        last = e
    if not breaks:
        return Collapsed(folded, breaks, shifts)
    parts.append(folded[last:])
    return Collapsed("".join(parts), breaks, shifts)
