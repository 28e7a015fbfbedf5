"""Content terms of a text, folded so that a question and a passage can be compared.

The probe and the answer check ask "does this passage (or sentence) state the
question's terms?". That needs the same words on both sides: ``stem`` strips the
common English inflections ("replaced" / "replace", "paralyses" / "paralyse",
"owner" / "owns") so a plain inflection is not mistaken for an absent subject.
It is deliberately light — no dictionary — and applied identically to both sides,
so a rough stem costs nothing as long as it is consistent.

    >>> [t.stem for t in content_terms("Who owns the replaced Norvale policies?")]
    ['own', 'replac', 'norval', 'policy']
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..retrieve.search import STOPWORDS

__all__ = ["Term", "content_terms", "stem", "stems"]

# Words, with inner digit groups kept whole ("64.7", "62,500", "1980s") and a
# possessive "'s" attached so it can be stripped.
_WORD = re.compile(r"[^\W_]+(?:[.,][0-9]+)*(?:['’]s\b)?", re.UNICODE)
# (suffix, replacement), first match wins; the stem must keep at least 3 letters.
_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("sses", "ss"),
    ("ies", "y"),
    ("ied", "y"),
    ("ation", "at"),
    ("ings", ""),
    ("ing", ""),
    ("ers", ""),
    ("ed", ""),
    ("es", ""),
    ("er", ""),
    ("ly", ""),
    ("s", ""),
)


def _fold_accents(word: str) -> str:
    # "Hervé" and "Herve" are one name to a reader; to a comparison only without marks.
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, dictionary-free stem: lower case, no possessive, no common suffix."""
    w = _fold_accents(word.lower())
    if w.endswith(("'s", "’s")):
        w = w[:-2]
    if any(c.isdigit() for c in w):
        return w
    for suffix, repl in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) + len(repl) >= 3:
            if suffix == "s" and w.endswith(("ss", "us", "is")):
                break
            w = w[: len(w) - len(suffix)] + repl
            # "shipping" -> "shipp" -> "ship"; "ll", "ss", "zz" are kept ("spill").
            doubled = len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz"
            if doubled and suffix in ("ing", "ings", "ed", "er", "ers"):
                w = w[:-1]
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


@dataclass(frozen=True, slots=True)
class Term:
    """One content word: its stem, where it starts, and what kind of word it is."""

    stem: str
    word: str
    start: int
    capitalised: bool
    numeric: bool


def content_terms(text: str) -> list[Term]:
    """Content words of ``text`` in order (stopwords and single letters left out)."""
    return list(_content_terms(text))


# Every question is checked against the same retrieved passages several times (probe,
# generator, answer check): tokenise each text once.
@lru_cache(maxsize=4096)
def _content_terms(text: str) -> tuple[Term, ...]:
    out = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        low = word.lower()
        if low.endswith(("'s", "’s")):
            low = low[:-2]
        if not low or low in STOPWORDS or (len(low) < 2 and not low.isdigit()):
            continue
        out.append(
            Term(
                stem=stem(word),
                word=word,
                start=match.start(),
                capitalised=word[0].isupper(),
                numeric=any(c.isdigit() for c in word),
            )
        )
    return tuple(out)


def stems(text: str) -> set[str]:
    """The set of content stems of ``text``."""
    return {t.stem for t in _content_terms(text)}
