"""The one sentence splitter: exact character ranges of the sentences of a text.

Ingest cuts passages from these sentences, the guard attributes an answer sentence by
sentence, and the verifier windows a passage by them; all three use this module, so
the same text is always cut the same way. Every span satisfies
``text[start:end] == piece`` by construction: only offsets are computed, strings are
never rebuilt.

    >>> split_sentences("Dr. Smith came. He left.")
    ['Dr. Smith came.', 'He left.']
    >>> sentence_ranges("Dr. Smith came. He left.")
    [(0, 15), (16, 24)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .english import MONTH_ABBREVIATIONS

__all__ = ["Span", "is_abbreviation", "sentence_ranges", "sentence_spans", "split_sentences"]

# Words whose trailing period does not end a sentence, and the months abbreviated
# ("Sept."), but "may": the verb ends sentences ("… if you may.").
_ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "etc", "vs", "cf", "approx", "ca", "no", "nos", "fig", "figs", "eq", "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "co", "corp", "dept", "est", "vol", "op", "p", "pp", "ed", "eds", "al", "mt", "ft", "gen", "col", "lt", "sgt", "rev", "u.s", "u.k", "a.m", "p.m"]
) | (frozenset(MONTH_ABBREVIATIONS) - {"may"})

# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) and
# whitespace, at CJK full stops, at a "word.Next" join left by careless concatenation
# (common in scraped snippets), at a blank line, or before a line that starts a list
# item or heading. Any other line break ends one unless it is a hard wrap inside a
# paragraph (``_wraps``, ``_wrapped``), which reads as a space. A stop run is tried
# only from its first character and never given back (possessive), so a run of 100,000
# dots costs one pass, not one pass per dot.
_BOUNDARY = re.compile(
    r"""(?P<stop>(?<![.!?])[.!?]++["'”’»)\]]*+)(?=\s)   # terminal punctuation before whitespace
      | (?P<cjk>[\u3002\uff01\uff1f]++)      # CJK full stops: no space follows them
      | (?P<join>(?<=[a-z]{2}[.!?])(?=[A-Z][a-z]+[\s,;:]))  # "century.First": a join
      | \n[ \t]*\n                         # blank line
      | \n(?=[ \t]*(?:[-*+•]|\d{1,3}[.)]|\#{1,6})\s)  # next line is a list item or heading
      | \n(?=[ \t]*\[\d{1,2}:\d{2})        # next line is a timestamp (transcripts)
      | (?P<line>\n)(?=[ \t]*\S)            # any other line break: decided in code
    """,
    re.VERBOSE,
)
# Where a _BOUNDARY match can start: every branch but ``join`` opens with one of these
# characters, and ``join`` is empty, right after a stop. Python's ``re`` cannot see
# that (the branches open with lookbehinds), so it tried the whole pattern at every
# character; ``_boundaries`` tries it only here (same matches, issue 20). A stop is
# tried only where a match can open at it or just after it: before another stop, a
# closing mark or a blank (``stop``), or before a capital (``join``); not inside
# "2.0", "e.g" or "www.gnu.org" (a CJK stop after it is tried on its own). One class
# opens the pattern, so ``re`` skips to each such character in C.
_CAN_START = re.compile(
    "[.!?\n\u3002\uff01\uff1f](?:(?<![.!?])|(?=[.!?\"'”’»)\\]A-Z\\s]))")
_BLANKS = re.compile(r"[ \t]*")
_SPACES = re.compile(r"\s*")  # \s is what str.isspace() says, character for character
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]{0,9})$")
# Bounded: looking past a long whitespace run from every stop in it would be
# quadratic; a word that far away does not continue the sentence anyway.
_NEXT_WORD = re.compile(r"[ \t]{0,64}+[\"'(]?(\w)")
# The word before a join, back to the last space: "store.busy.Retrying" is a dotted
# name in technical prose, not two sentences.
_JOINED_WORD = re.compile(r"\S{0,40}$")
# A line shorter than this that ends without punctuation is a unit of its own (a
# heading, a table row, "Boiling point: 64.7 °C"); longer ones are wrapped prose.
_SHORT_LINE = 60
# Longest stretch we allow without a break, so one huge unpunctuated line cannot
# become a single megabyte "sentence".
_MAX_SENTENCE = 2_000
# Hyphens a typesetter leaves at a line end when it splits a word: groff's U+2010,
# the soft hyphen, ASCII.
_HYPHENS = "\u2010\u00ad-"
# Words that leave a clause open: a line ending in one was cut mid-sentence (a hard
# wrap), whatever opens the next line ("configured with" / "SSLProxyCARevocationFile").
_OPEN_WORDS = frozenset(
    ["a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into",
     "as", "and", "or", "nor", "but", "than", "that", "which", "whose", "is", "are", "was",
     "were", "be", "been", "can", "could", "may", "might", "must", "shall", "should",
     "will", "would", "this", "these", "those", "its", "their", "your", "our", "if", "per",
     "via"]
)
_LOWER = re.compile(r"[a-z]")
_LAST_WORD = re.compile(r"(?<![\w.'-])[A-Za-z]{1,6}\Z")
# A column gap inside a line (a tab, or two blanks not after a sentence's end): the
# line is a table row or a hanging tag, a unit of its own, not wrapped prose.
_COLUMN_GAP = re.compile(r"\t|(?<![.!?:;])[ ]{2,}(?=\S)")


@dataclass(frozen=True, slots=True)
class Span:
    """A ``[start, end)`` character range of a text."""

    start: int
    end: int


# Abbreviations spelled like a unit, which a figure before them makes a unit ("2000 ms.").
_UNIT_SPELLED = frozenset(["ms", "ft", "st"])
_AFTER_NUMBER = re.compile(r"\d[ \u00a0]?$")


def is_abbreviation(text: str, stop_at: int) -> bool:
    """Whether the period at ``stop_at`` closes an abbreviation or an initial."""
    match = _WORD_BEFORE.search(text, max(0, stop_at - 10), stop_at)
    if not match:
        return False
    word = match.group(1).lower().rstrip(".")
    if word in _UNIT_SPELLED and _AFTER_NUMBER.search(text, max(0, match.start() - 2), match.start()):
        return False  # a unit after a figure ("defaults to 2000 ms."), not "Ms. Smith"
    if word in _ABBREVIATIONS:
        return True
    # A lone capital after a space is an initial ("J. Smith"); after a symbol it is a
    # unit ("64.7 °C.") and does end the sentence.
    before = text[match.start() - 1] if match.start() else " "
    return len(word) == 1 and text[match.start()].isupper() and before in " (\n"


def _continues(text: str, end: int) -> bool:
    """Whether a lower-case word follows on the same line ("approx. five", "D.C. in")."""
    nxt = _NEXT_WORD.match(text, end)
    return nxt is not None and nxt.group(1).islower()


def _dotted_name(text: str, at: int) -> bool:
    """Whether the join at ``at`` sits inside a dotted name ("http.server.Handler")."""
    word = _JOINED_WORD.search(text, max(0, at - 40), at)
    head = word.group()[:-1] if word else ""
    return any(c in head for c in "._()[]")


def _indent(text: str, at: int) -> int:
    """How many spaces and tabs open the line starting at ``at``."""
    return _BLANKS.match(text, at).end() - at  # type: ignore[union-attr]  # [ \t]* always matches


def _wraps(text: str, line_start: int, line_end: int, next_start: int) -> bool:
    """Whether the line at ``next_start`` continues the (long) line at ``line_start``:
    a hard wrap, as man pages and plain-text manuals are set. It does when both open at
    the same indent, or when the next line's indent is the text column of a hanging
    tag on this one (``-i     Ignore case…`` over ``       characters…``). A deeper
    or shallower line otherwise starts a unit of its own (an option's description, a
    quoted block)."""
    blanks = _BLANKS.match  # not _indent: this runs for every line of wrapped prose
    here = blanks(text, line_start).end() - line_start  # type: ignore[union-attr]  # always matches
    there = blanks(text, next_start).end() - next_start  # type: ignore[union-attr]
    if here == there:
        return True
    column = line_start + there
    return there > here and column < line_end and text[column - 1] == " " and not text[column].isspace()


def _wrapped(text: str, line_start: int, line_end: int, next_start: int) -> bool:
    """Whether the line break at ``line_end`` is a hard wrap inside a paragraph, read as
    a space: the next line opens with a lower-case letter, or this line ends with a word
    that leaves its clause open (``_OPEN_WORDS``) and the next opens with a word. Never
    after a colon, nor when this line is a Markdown heading or table row, holds no
    lower-case letter near its end (``DESCRIPTION``), or is set in columns
    (``_COLUMN_GAP``); a blank line, a list item or a heading next never gets
    here (``_BOUNDARY`` breaks there)."""
    last = text[line_end - 1]
    if last == ":" or last == "|":
        return False
    at = next_start + _indent(text, next_start)
    if at >= len(text):
        return False
    first = text[at]
    lower = first.islower()
    if not lower:
        word = _LAST_WORD.search(text, max(line_start, line_end - 7), line_end)
        if word is None or word.group() not in _OPEN_WORDS or not (
                first.isalnum() or first in "\"'(`$<"):
            return False
    opening = line_start + _indent(text, line_start)
    if text[opening] in "#|" or _LOWER.search(text, max(opening, line_end - 40), line_end) is None:
        return False  # a heading (``## Usage``, ``DESCRIPTION``) or a table row
    return _COLUMN_GAP.search(text, opening, line_end) is None


def _hyphenated(text: str, line_end: int, next_start: int) -> bool:
    """Whether a word was hyphenated across the line break (``com‐`` / ``pression``):
    a letter and a hyphen end the line, a lower-case letter opens the next."""
    if line_end < 2 or text[line_end - 1] not in _HYPHENS or not text[line_end - 2].isalpha():
        return False
    at = next_start + _indent(text, next_start)
    return at < len(text) and text[at].islower()


def _boundaries(text: str) -> Iterator[re.Match[str]]:
    """``_BOUNDARY.finditer(text)``, with the pattern tried only where a match can
    start (``_CAN_START``, or right after a stop for ``join``). A match after another
    starts at or after its end, as in ``finditer``; an empty one (``join``) is never
    followed by another at the same place (no branch can open with its letter)."""
    search, match = _CAN_START.search, _BOUNDARY.match
    pos = 0
    while True:
        found = search(text, pos)
        if found is None:
            return
        at = found.start()
        hit = match(text, at)
        if hit is None and text[at] in ".!?":
            at += 1
            hit = match(text, at)
        if hit is None:
            pos = at if at > found.start() else at + 1
            continue
        yield hit
        pos = hit.end() if hit.end() > at else at + 1


def _raw_breaks(text: str) -> Iterator[int]:
    """Offsets right after each sentence end (before the following whitespace)."""
    rfind = text.rfind  # bound once: this runs for every line break of a text
    for match in _boundaries(text):
        # The branch that matched: its named group (none nests another), or None for
        # the unnamed ones (a blank line, a list item or a timestamp next).
        branch = match.lastgroup
        if branch == "line":  # most matches: each line of wrapped prose
            at, after = match.span()
            if text[at - 1] in _HYPHENS and _hyphenated(text, at, after):
                continue
            line_start = rfind("\n", 0, at) + 1
            if text[at - 1] == "|" and text[line_start + _indent(text, line_start)] == "|":
                yield at  # a table row ends at its line's end, however long it is
                continue
            if ((at - line_start < _SHORT_LINE or not _wraps(text, line_start, at, after))
                    and not _wrapped(text, line_start, at, after)):
                yield at
        elif branch == "stop":
            stop_at, stop_end = match.span("stop")
            if text[stop_at] == "." and is_abbreviation(text, stop_at):
                continue
            if _continues(text, stop_end):
                continue
            yield stop_end
        elif branch == "cjk":
            yield match.end()
        elif branch == "join":
            if not _dotted_name(text, match.start()):
                yield match.start()
        else:
            yield match.start()


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    if start >= end:
        return None
    start = _SPACES.match(text, start, end).end()  # type: ignore[union-attr]  # \s* always matches
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def _cut_long(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while end - start > _MAX_SENTENCE:
        cut = text.rfind(" ", start + _MAX_SENTENCE // 2, start + _MAX_SENTENCE)
        cut = cut if cut > start else start + _MAX_SENTENCE
        piece = _trimmed(text, start, cut)
        if piece:
            yield piece
        start = cut
    piece = _trimmed(text, start, end)
    if piece:
        yield piece


def sentence_ranges(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence ranges ``(start, end)`` in ``text[start:end]`` (offsets into ``text``),
    whitespace-trimmed: the form the verifier indexes, and segmentation packs (pairs
    cost a fifth of what a ``Span`` does to make)."""
    end = len(text) if end is None else end
    ranges: list[tuple[int, int]] = []
    last = start
    for cut in [*map(start.__add__, _raw_breaks(text[start:end])), end]:
        piece = _trimmed(text, last, cut)
        if piece:
            # A trimmed piece is its own trim: only a long one needs cutting.
            if piece[1] - piece[0] > _MAX_SENTENCE:
                ranges.extend(_cut_long(text, *piece))
            else:
                ranges.append(piece)
        last = cut
    return ranges


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Sentence ranges in ``text[start:end]`` (offsets into ``text``), whitespace-trimmed."""
    return [Span(lo, hi) for lo, hi in sentence_ranges(text, start, end)]


def split_sentences(text: str) -> list[str]:
    """Sentences of free text (an answer to verify, a generator's draft)."""
    return [text[lo:hi] for lo, hi in sentence_ranges(text)]
