"""Token stream → sentences: the same sentences however the text is cut into tokens."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.generate.assemble import (
    MAX_SENTENCE_CHARS,
    SentenceAssembler,
    parse_markers,
)


def _whole(text: str) -> list[tuple[str, tuple[int, ...]]]:
    a = SentenceAssembler()
    return [(s.text, s.markers) for s in a.feed(text) + a.close()]


def _by_chars(text: str) -> list[tuple[str, tuple[int, ...]]]:
    a = SentenceAssembler()
    out = []
    for ch in text:
        out += a.feed(ch)
    return [(s.text, s.markers) for s in out + a.close()]


CASES = [
    # text, expected sentences with their markers
    ("Acetone boils at 56 °C. [1] It is flammable. [2]",
     [("Acetone boils at 56 °C.", (1,)), ("It is flammable.", (2,))]),
    ("Methanol boils at 64.7 °C [1]. Ethanol at 78.4 °C [2, 3].",
     [("Methanol boils at 64.7 °C.", (1,)), ("Ethanol at 78.4 °C.", (2, 3))]),
    ("The limit is 200 ppm.[1][3] Wear gloves.[2]",
     [("The limit is 200 ppm.", (1, 3)), ("Wear gloves.", (2,))]),
    ("Use solvents, e.g. acetone, with care. [1] Store at approx. 20 °C. [2]",
     [("Use solvents, e.g. acetone, with care.", (1,)), ("Store at approx. 20 °C.", (2,))]),
    ("Dr. Smith and J. Doe wrote it. [1] The U.S. limit differs. [2]",
     [("Dr. Smith and J. Doe wrote it.", (1,)), ("The U.S. limit differs.", (2,))]),
    ('The sheet says "Do not mix." Then it lists acids. [1]',
     [('The sheet says "Do not mix."', ()), ("Then it lists acids.", (1,))]),
    ("Is it toxic? Yes, it is toxic! [4]", [("Is it toxic?", ()), ("Yes, it is toxic!", (4,))]),
    ("- Acetone is flammable [1]\n- Toluene is toxic [2]\n",
     [("Acetone is flammable", (1,)), ("Toluene is toxic", (2,))]),
    ("## Answer\n\n**Acetone** is flammable. [1]", [("Acetone is flammable.", (1,))]),
    ("Ranges cover passages [2-4]. [1]", [("Ranges cover passages.", (2, 3, 4, 1))]),
    ("Version 3.5 added it. [1]", [("Version 3.5 added it.", (1,))]),
    ("Wait… the value is 5 mg. [1]", [("Wait… the value is 5 mg.", (1,))]),
    ("[1]", []),
    ("Acetone is safe only when\ndiluted with water. [1]\nToluene is toxic [2]",
     [("Acetone is safe only when diluted with water.", (1,)), ("Toluene is toxic", (2,))]),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_sentences_and_markers(text: str, expected: list[tuple[str, tuple[int, ...]]]) -> None:
    assert _whole(text) == expected
    assert _by_chars(text) == expected


@given(st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=30))
@settings(max_examples=60, deadline=None)
def test_any_token_cut_gives_the_same_sentences(cuts: list[int]) -> None:
    text = (
        "Methanol boils at 64.7 °C at sea level [1]. Its limit is 200 ppm, e.g. in the U.S. "
        "and elsewhere. [2, 3] \"Keep away from flames.\" [4]\n\n- Store cool [1]\nDone."
    )
    a = SentenceAssembler()
    out = []
    pos = 0
    for n in cuts:
        out += a.feed(text[pos : pos + n])
        pos += n
    out += a.feed(text[pos:])
    got = [(s.text, s.markers) for s in out + a.close()]
    assert got == _whole(text)


def test_sentence_is_released_once_the_next_one_starts() -> None:
    a = SentenceAssembler()
    assert a.feed("Acetone boils at 56 °C.") == []  # the next token could be a marker
    assert a.feed(" [1") == []  # a marker is still arriving
    assert a.feed("]") == []
    released = a.feed(" It")
    assert [(s.text, s.markers) for s in released] == [("Acetone boils at 56 °C.", (1,))]
    assert a.pending == " It"


def test_discard_drops_the_unfinished_tail() -> None:
    a = SentenceAssembler()
    a.feed("Acetone is flammable. [1] Acetone is not")
    assert a.discard() == "Acetone is not"
    assert a.close() == []


def test_runaway_text_without_punctuation_is_cut() -> None:
    a = SentenceAssembler()
    out = a.feed("word " * (MAX_SENTENCE_CHARS // 2))
    assert out and all(len(s.text) <= MAX_SENTENCE_CHARS for s in out)


@pytest.mark.parametrize(
    ("body", "numbers"),
    [("1", [1]), ("1, 2", [1, 2]), ("1;3", [1, 3]), ("2-4", [2, 3, 4]), ("2–3", [2, 3]),
     ("1 and 5", [1, 5]), ("1-100", [1, 100])],
)
def test_parse_markers(body: str, numbers: list[int]) -> None:
    assert parse_markers(body) == numbers
