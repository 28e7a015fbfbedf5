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

__all__ = ["Span", "is_abbreviation", "sentence_ranges", "sentence_spans", "split_sentences"]

# Words whose trailing period does not end a sentence.
_ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "etc", "vs", "cf", "approx", "ca", "no", "nos", "fig", "figs", "eq", "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "co", "corp", "dept", "est", "vol", "op", "p", "pp", "ed", "eds", "al", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mt", "ft", "gen", "col", "lt", "sgt", "rev", "u.s", "u.k", "a.m", "p.m"]
)

# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) and
# whitespace, at CJK full stops, at a "word.Next" join left by careless concatenation
# (common in scraped snippets), at a blank line, or before a line that starts a list
# item or heading. A stop run is tried only from its first character and never given
# back (possessive), so a run of 100,000 dots costs one pass, not one pass per dot.
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


@dataclass(frozen=True, slots=True)
class Span:
    """A ``[start, end)`` character range of a text."""

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
    end = at
    while end < len(text) and text[end] in " \t":
        end += 1
    return end - at


def _wraps(text: str, line_start: int, line_end: int, next_start: int) -> bool:
    """Whether the line at ``next_start`` continues the (long) line at ``line_start``:
    a hard wrap, as man pages and plain-text manuals are set. It does when both open at
    the same indent, or when the next line's indent is the text column of a hanging
    tag on this one (``-i     Ignore case…`` over ``       characters…``). A deeper
    or shallower line otherwise starts a unit of its own (an option's description, a
    quoted block)."""
    here, there = _indent(text, line_start), _indent(text, next_start)
    if here == there:
        return True
    column = line_start + there
    return there > here and column < line_end and text[column - 1] == " " and not text[column].isspace()


def _hyphenated(text: str, line_end: int, next_start: int) -> bool:
    """Whether a word was hyphenated across the line break (``com‐`` / ``pression``):
    a letter and a hyphen end the line, a lower-case letter opens the next."""
    if line_end < 2 or text[line_end - 1] not in _HYPHENS or not text[line_end - 2].isalpha():
        return False
    at = next_start + _indent(text, next_start)
    return at < len(text) and text[at].islower()


# ADR 0043, a deliberate change since 51c928b, written out plainly: a hard wrap
# inside a paragraph reads as a space. (ADR 0076, the other, is in ``_raw_breaks``.)
_OPEN_WORDS_0043 = {
    "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into",
    "as", "and", "or", "nor", "but", "than", "that", "which", "whose", "is", "are", "was",
    "were", "be", "been", "can", "could", "may", "might", "must", "shall", "should",
    "will", "would", "this", "these", "those", "its", "their", "your", "our", "if", "per",
    "via"}


def _wrapped_0043(line: str, rest: str) -> bool:
    """Whether the break after ``line`` (``rest`` follows it) is a wrap inside a paragraph."""
    body, following = line.lstrip(" \t"), rest.lstrip(" \t")
    if not following or line.endswith((":", "|")) or body.startswith(("#", "|")):
        return False
    if not any("a" <= c <= "z" for c in line[-40:][-(len(body)):]):
        return False
    if "\t" in body or re.search(r"(?<![.!?:;])  +(?=\S)", body):
        return False
    if following[0].islower():
        return True
    word = re.search(r"(?<![\w.'-])[A-Za-z]{1,6}$", line[-7:])
    return (word is not None and word.group() in _OPEN_WORDS_0043
            and (following[0].isalnum() or following[0] in "\"'(`$<"))


def _raw_breaks(text: str) -> Iterator[int]:
    """Offsets right after each sentence end (before the following whitespace)."""
    for match in _BOUNDARY.finditer(text):
        if match.group("stop"):
            stop_at = match.start("stop")
            if text[stop_at] == "." and is_abbreviation(text, stop_at):
                continue
            if _continues(text, match.end("stop")):
                continue
            yield match.end("stop")
        elif match.group("cjk"):
            yield match.end()
        elif match.group("join") is not None:
            if not _dotted_name(text, match.start()):
                yield match.start()
        elif match.group("line"):
            line_start = text.rfind("\n", 0, match.start()) + 1
            line = text[line_start : match.start()]
            if line.endswith("|") and line.lstrip(" \t").startswith("|"):
                yield match.start()  # ADR 0076: a table row ends at its line's end
                continue
            if _hyphenated(text, match.start(), match.end()):
                continue
            if (match.start() - line_start < _SHORT_LINE or not _wraps(
                text, line_start, match.start(), match.end()
            )) and not _wrapped_0043(text[line_start : match.start()], text[match.end():]):
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


def sentence_ranges(text: str) -> list[tuple[int, int]]:
    """``sentence_spans`` as ``(start, end)`` pairs, the form the verifier indexes."""
    return [(s.start, s.end) for s in sentence_spans(text)]


def split_sentences(text: str) -> list[str]:
    """Sentences of free text (an answer to verify, a generator's draft)."""
    return [text[s.start : s.end] for s in sentence_spans(text)]
