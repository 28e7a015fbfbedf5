"""Fuzz the streaming sentence assembler with hostile model output: however the text
is cut into tokens, the same sentences and markers come out; nothing raises or hangs."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from tether.generate.assemble import SentenceAssembler, parse_markers

from .fuzzhelp import bounded, fuzz_settings
from .strategies import hostile_text


def _feed(pieces: list[str]) -> list[tuple[str, tuple[int, ...]]]:
    assembler = SentenceAssembler()
    out = []
    for piece in pieces:
        out += assembler.feed(piece)
    out += assembler.close()
    assert assembler.pending == ""
    return [(s.text, s.markers) for s in out]


def _cut(text: str, cuts: list[int]) -> list[str]:
    pieces, at = [], 0
    for size in cuts:
        pieces.append(text[at : at + size])
        at += size
    return pieces + [text[at:]]


@fuzz_settings(300)
@given(hostile_text, st.lists(st.integers(1, 9), max_size=80))
def test_any_tokenisation_gives_the_same_sentences(text: str, cuts: list[int]) -> None:
    whole = bounded("assemble.feed", 2, _feed, [text])
    assert bounded("assemble.feed", 2, _feed, _cut(text, cuts)) == whole
    for sentence, markers in whole:
        assert sentence and sentence == sentence.strip()
        assert all(isinstance(n, int) and n >= 0 for n in markers)


@fuzz_settings(200)
@given(hostile_text)
def test_discard_returns_the_unfinished_tail(text: str) -> None:
    assembler = SentenceAssembler()
    released = bounded("assemble.feed", 2, assembler.feed, text)
    tail = assembler.discard()
    assert assembler.pending == "" and tail == tail.strip()
    assert all(s.raw in text for s in released)


@fuzz_settings(300)
@given(hostile_text | st.from_regex(r"[\d ,;\-–and]{0,40}", fullmatch=True))
@example("9" * 5000)  # found: int() of a 5,000-digit run raised ValueError
def test_parse_markers_never_raises(body: str) -> None:
    numbers = bounded("assemble.parse_markers", 2, parse_markers, body)
    assert all(isinstance(n, int) and 0 <= n < 10**6 for n in numbers)
