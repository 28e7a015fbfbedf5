"""Assemble a model's token stream into sentences, each with the ``[n]`` markers it carries.

A sentence is released as soon as its end is certain, so the guard can verify it
while the model is still writing the next one. An end is certain when terminal
punctuation (with any closing quotes and trailing ``[n]`` markers) is followed by
whitespace and then something that starts a sentence; until that next character
arrives the sentence is held. Decimals (``64.7``), abbreviations (``e.g.``,
``approx.``), initials (``J. Smith``) and a marker still arriving (``°C. [1`` …)
never end a sentence early.

    >>> a = SentenceAssembler()
    >>> a.feed("Methanol boils at 64.")
    []
    >>> [s.text for s in a.feed("7 °C [1]. It is toxic.[2] ")]
    ['Methanol boils at 64.7 °C.']
    >>> [(s.text, s.markers) for s in a.close()]
    [('It is toxic.', (2,))]

Markers are parsed into numbers (``[1, 2]``, ``[1][3]``, ``[2-4]``) and removed from
the text; what they point at is decided by the caller (``prompt.Prompt.hints``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.sentences import is_abbreviation

__all__ = ["AssembledSentence", "SentenceAssembler", "parse_markers"]

_CANDIDATE = re.compile(r"[.!?…]|\n")
_STOP_RUN = re.compile(r"[.!?…]+[\"'”’)]*")
_MARKER_BODY = r"\d{1,3}(?:\s*(?:,|;|–|-|and)\s*\d{1,3})*"
_MARKER = re.compile(r"\[\s*(" + _MARKER_BODY + r")\s*\]")
_TRAILING_MARKERS = re.compile(r"(?:[ \t]*\[\s*" + _MARKER_BODY + r"\s*\])*")
# A "[" at the end of the buffer that may still grow into a marker: wait for it.
_MARKER_PREFIX = re.compile(r"\[[\d\s,;–\-and]*$")
_LEAD = re.compile(r"^(?:\s*(?:[-*+•>]|\d{1,3}[.)])\s+)+")
_EMPHASIS = re.compile(r"\*\*|__|`")
_SPACE_BEFORE_PUNCT = re.compile(r"(?<!\s)\s++([.,;:!?…])")  # from a run's start only
_SPACES = re.compile(r"\s+")
# A model that never punctuates must not hold the guard back forever.
MAX_SENTENCE_CHARS = 2_000
# "[1-100]" is a typo or an attack, not a hundred citations.
_MAX_RANGE = 20
_RANGE = re.compile(r"(\d{1,6})\s*[–-]\s*(\d{1,6})")
# Between marker numbers; tried only where a whitespace run starts, so a long run
# is scanned once, not once per character.
_SEPARATOR = re.compile(r"(?<!\s)\s*+(?:,|;|\band\b)\s*")
# A marker number; longer digit runs are no source number (and int() of a
# 5,000-digit run raises), so they are skipped.
_NUMBER = re.compile(r"(?<!\d)\d{1,6}(?!\d)")


@dataclass(frozen=True, slots=True)
class AssembledSentence:
    """One finished sentence: clean ``text``, the marker numbers, and the raw piece."""

    text: str
    markers: tuple[int, ...]
    raw: str


def parse_markers(body: str) -> list[int]:
    """Numbers in one marker body: ``"1, 2"`` → [1, 2]; ``"2-4"`` → [2, 3, 4]."""
    out: list[int] = []
    for part in _SEPARATOR.split(body.strip()):
        span = _RANGE.fullmatch(part)
        if span and 0 <= int(span.group(2)) - int(span.group(1)) < _MAX_RANGE:
            out.extend(range(int(span.group(1)), int(span.group(2)) + 1))
        else:
            out.extend(int(n) for n in _NUMBER.findall(part))
    return out


def _clean(raw: str) -> AssembledSentence | None:
    """Markers out, list bullets and emphasis off, whitespace folded; None if no sentence."""
    piece = raw.strip()
    if not piece or piece.startswith("#"):
        return None  # a heading is layout, not a claim
    markers: list[int] = []
    for match in _MARKER.finditer(piece):
        markers.extend(parse_markers(match.group(1)))
    text = _MARKER.sub(" ", piece)
    text = _LEAD.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = _SPACES.sub(" ", text).strip()
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    if not any(ch.isalnum() for ch in text):
        return None
    return AssembledSentence(text, tuple(dict.fromkeys(markers)), piece)


class SentenceAssembler:
    """Feed text as it streams in; get back the sentences whose end is now certain.

    ``close`` releases what is left once the stream has ended normally. After a
    failed stream, call ``discard`` instead: an unfinished sentence is never released
    (a cut can fall before the word that changes its meaning).
    """

    def __init__(self) -> None:
        self._buf = ""
        self._scan = 0  # nothing before this offset of _buf can be a sentence end

    @property
    def pending(self) -> str:
        """Text received but not yet released as a sentence."""
        return self._buf

    def feed(self, text: str) -> list[AssembledSentence]:
        # A huge chunk is taken in sentence-sized pieces: the buffer is re-sliced per
        # released sentence, which over one 100,000-character chunk was quadratic.
        out: list[AssembledSentence] = []
        for at in range(0, len(text), MAX_SENTENCE_CHARS):
            self._buf += text[at : at + MAX_SENTENCE_CHARS]
            out += self._release(final=False)
        return out

    def close(self) -> list[AssembledSentence]:
        out = self._release(final=True)
        last = _clean(self._buf)
        self._buf, self._scan = "", 0
        return out + ([last] if last else [])

    def discard(self) -> str:
        """Drop the unfinished tail and return it (for the record)."""
        tail, self._buf, self._scan = self._buf.strip(), "", 0
        return tail

    def _release(self, *, final: bool) -> list[AssembledSentence]:
        out: list[AssembledSentence] = []
        while True:
            end = self._boundary(final=final)
            if end is None:
                if len(self._buf) <= MAX_SENTENCE_CHARS:
                    return out
                cut = self._buf.rfind(" ", MAX_SENTENCE_CHARS // 2, MAX_SENTENCE_CHARS)
                end = cut if cut > 0 else MAX_SENTENCE_CHARS
            piece, self._buf, self._scan = self._buf[:end], self._buf[end:], 0
            sentence = _clean(piece)
            if sentence:
                out.append(sentence)

    def _boundary(self, *, final: bool) -> int | None:
        """End offset of the first sentence in the buffer, or None while undecided."""
        buf = self._buf
        pos = self._scan
        while True:
            match = _CANDIDATE.search(buf, pos)
            if match is None:
                self._scan = len(buf)
                return None
            at = match.start()
            if buf[at] == "\n":
                cut = self._newline(buf, at, final=final)
                if cut is None:
                    self._scan = at
                    return None
                if cut:
                    return at + 1
                pos = at + 1
                continue
            stop = _STOP_RUN.match(buf, at)
            trailing = _TRAILING_MARKERS.match(buf, stop.end()) if stop else None
            assert stop is not None and trailing is not None  # both match at a candidate
            end = trailing.end()
            decided = self._decide(buf, at, stop.end(), end, final=final)
            if decided is None:
                self._scan = at  # undecided: look here again when more text arrives
                return None
            if decided:
                return end
            pos = stop.end()

    @staticmethod
    def _newline(buf: str, at: int, *, final: bool) -> bool | None:
        """Does the line break at ``at`` end a sentence? A wrapped line continues in
        lower case ("is not\nflammable"): cutting there could split off a negation."""
        nxt = at + 1
        while nxt < len(buf) and buf[nxt] in " \t":
            nxt += 1
        if nxt >= len(buf):
            return True if final else None
        return not buf[nxt].islower()

    @staticmethod
    def _decide(buf: str, at: int, stop_end: int, end: int, *, final: bool) -> bool | None:
        """Is the stop at ``at`` a sentence end? None: cannot tell until more text comes."""
        if end >= len(buf):
            return True if final else None
        if buf[end] == "[" and _MARKER_PREFIX.match(buf, end) and not final:
            return None  # "ppm.[1" may become "ppm.[1]": a marker glued to the stop
        if not buf[end].isspace():
            return False  # "64.7", "e.g.x", "Fig.2"
        nxt = end
        while nxt < len(buf) and buf[nxt].isspace():
            nxt += 1
        if nxt >= len(buf):
            return True if final else None
        head = buf[nxt]
        if head == "[" and _MARKER_PREFIX.match(buf, nxt) and not final:
            return None  # a marker is still arriving; it belongs to this sentence
        if head.islower():
            return False  # "approx. value", "ca. five"
        if buf[at] == "." and stop_end - at == 1 and is_abbreviation(buf, at):
            return False
        return True
