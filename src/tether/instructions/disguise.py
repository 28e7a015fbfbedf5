"""Unicode disguises: text that reads one way to a person and another way to a program.

Four tricks defeat pattern matching on stored text while a reader (or a model) still
reads the instruction: lookalike letters from another script ("Ignоre" with a
Cyrillic "о"), compatibility forms (fullwidth, mathematical letters), invisible
characters (zero-width, soft hyphen, variation selectors, Unicode *tag* characters
that spell ASCII no screen shows) and bidi controls (a right-to-left override shows
stored ".knird ot efas" as "safe to drink.").

This module never rewrites stored text (citations are exact ranges of it). It gives
*views* for detection and comparison, and says which disguise a text carries:

- ``reading(text)``: what a person sees: NFKC, lookalikes folded to the Latin letter
  they imitate (the Unicode confusables data, ``confusable-homoglyphs``), invisible
  and bidi-control characters removed, override runs put in display order, tag
  characters dropped;
- ``smuggled(text)``: what tag characters spell (a model may read them), or "";
- ``disguises(text)``: the tricks present where they change the reading, by name
  (``DISGUISES``); the instruction detector flags them as ``disguised-text``.

    >>> reading("The \u0430ssistant")
    'The assistant'
    >>> disguises("The \u0430ssistant must answer.")
    ('mixed-script',)
    >>> disguises("Acetone boils at 56 \u00b0C.")
    ()
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["DISGUISES", "disguises", "reading", "smuggled"]

# Why a text is flagged ``disguised-text``, in the order they are reported.
DISGUISES: tuple[str, ...] = (
    "mixed-script",       # a word of Latin letters with a lookalike from another script
    "tag-characters",     # invisible Unicode tags (U+E0000 block) spelling text
    "bidi-override",      # a direction override or embedding that reorders Latin text
    "invisible-in-word",  # a zero-width or other invisible character inside a Latin word
)

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), tags included: nothing
# a reader sees. Bidi controls are among them (ALM, LRM/RLM, embeddings, isolates).
_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def _klass(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{lo:08x}-\\U{hi:08x}" if hi > lo else f"\\U{lo:08x}" for lo, hi in ranges)


_IGNORABLE = re.compile(f"[{_klass(_IGNORABLE_RANGES)}]+")
_TAGS = re.compile(r"[\U000e0000-\U000e007f]+")
# Overrides (LRO, RLO) and embeddings (LRE, RLE): they reorder or redirect what follows
# until PDF. Isolates and marks only place neutral characters; they are ignorable.
_OVERRIDE = "\u202d\u202e"
_EMBED = "\u202a\u202b"
_RLO_RUN = re.compile("\u202e([^\u202c\u2069\n]*)")
_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\U00010800-\U00010fff\U0001e800-\U0001efff]")
_WORD = re.compile(r"[^\W\d_]+")
# A Latin word broken by an invisible character: "Ign\u200bore". Soft hyphens are
# ordinary in web text ("con&shy;figure"), so they do not count.
_INVISIBLE_IN_WORD = re.compile(
    "[A-Za-z][\u200b-\u200d\u2060-\u2064\ufeff\u034f\u180e\u115f\u1160\u3164\uffa0]+[A-Za-z]"
)
# A tag sequence of a flag emoji (black flag, tag letters, cancel tag) is not a disguise.
_EMOJI_FLAG = re.compile("\U0001f3f4[\U000e0061-\U000e007a]{2,7}\U000e007f")


@functools.cache
def _lookalikes() -> dict[int, str]:
    """Non-ASCII character → the ASCII letter or digit it is confusable with (UTS #39
    confusables, as ``confusable-homoglyphs`` ships them); empty without the package."""
    try:
        from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]
    except ModuleNotFoundError:  # pragma: no cover - a core dependency
        return {}
    table: dict[int, str] = {}
    for char, homoglyphs in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_ones = [h["c"] for h in homoglyphs
                      if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalnum()]
        if ascii_ones:
            table[ord(char)] = ascii_ones[0]
    return table


@functools.cache
def _lookalike_chars() -> frozenset[str]:
    # A set, not a regex class: ``isdisjoint`` over a text runs in C at hashing speed,
    # where ``re`` spent ~2 ms on a 600-character passage searching a 1,300-member class.
    return frozenset(map(chr, _lookalikes()))


def _has_lookalike(text: str) -> bool:
    return not _lookalike_chars().isdisjoint(text)


@functools.cache
def _script(char: str) -> str:
    """The script of a letter, from its Unicode name ("CYRILLIC SMALL LETTER A")."""
    return unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]


def _display_order(text: str) -> str:
    """Right-to-left override runs as a screen shows them (reversed)."""
    if "\u202e" not in text:
        return text
    return _RLO_RUN.sub(lambda m: m.group(1)[::-1], text)


def reading(text: str) -> str:
    """``text`` as a person reads it: NFKC, lookalikes as the Latin letters they imitate,
    invisible and tag characters gone, right-to-left overrides in display order.
    Length changes: a view for detection and comparison, never for offsets."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", _display_order(text))
    text = _IGNORABLE.sub("", text)
    if _has_lookalike(text):
        text = text.translate(_lookalikes())
    return text


def smuggled(text: str) -> str:
    """What the tag characters of ``text`` spell (each stands for one ASCII character),
    runs joined by spaces; "" when there are none.

        >>> smuggled("Fine.\\U000e0048\\U000e0069")
        'Hi'
    """
    if text.isascii() or _TAGS.search(text) is None:
        return ""
    runs = _TAGS.findall(_EMOJI_FLAG.sub("", text))
    spelled = ("".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E) for run in runs)
    return " ".join(s for s in spelled if s.strip())


def disguises(text: str) -> tuple[str, ...]:
    """The disguises in ``text`` that change its reading, in ``DISGUISES`` order.

        >>> disguises("Fine.\\U000e0049\\U000e0067")
        ('tag-characters',)
        >>> disguises("\u202e.knird ot efas\u202c")
        ('bidi-override',)
    """
    if text.isascii():
        return ()
    found = []
    if _mixed_script(unicodedata.normalize("NFKC", text)):
        found.append("mixed-script")
    if smuggled(text):
        found.append("tag-characters")
    if _reorders(text):
        found.append("bidi-override")
    if _INVISIBLE_IN_WORD.search(text) is not None:
        found.append("invisible-in-word")
    return tuple(found)


def _reorders(text: str) -> bool:
    """An override anywhere, or an embedding in text with no right-to-left letter (where
    it has nothing of its own to do)."""
    if any(c in text for c in _OVERRIDE):
        return True
    return any(c in text for c in _EMBED) and _RTL.search(text) is None


def _mixed_script(text: str) -> bool:
    """A word with Latin letters and a lookalike of a Latin letter from another script."""
    if not _has_lookalike(text):
        return False
    for word in _WORD.findall(_IGNORABLE.sub("", text)):
        # Two letters are a pair, not a word ("ΑA" in a keyboard map).
        if len(word) < 3 or word.isascii() or not _has_lookalike(word):
            continue
        scripts = {_script(c) for c in word}
        if "LATIN" in scripts and any(
            _script(c) != "LATIN" and ord(c) in _lookalikes() for c in word
        ):
            return True
    return False
