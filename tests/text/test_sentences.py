"""The one sentence splitter: ingest, the guard and the verifier cut text identically."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tether.text.sentences
from tether.ingest import segment
from tether.text.sentences import sentence_ranges, sentence_spans, split_sentences
from tether.verify.lexical import prepare

CASES = [
    ("Dr. Smith came. He left.", ["Dr. Smith came.", "He left."]),
    ("Gen. Lee won. Then he left.", ["Gen. Lee won.", "Then he left."]),
    ("Open 9 a.m. to 5 p.m. daily.", ["Open 9 a.m. to 5 p.m. daily."]),
    ("It costs approx. five euros. Fine.", ["It costs approx. five euros.", "Fine."]),
    ("It boils at 64.7 °C. Keep it cool.", ["It boils at 64.7 °C.", "Keep it cool."]),
    ("in the 19th century.First for Women", ["in the 19th century.", "First for Women"]),
    ("Use http.server.Handler here.", ["Use http.server.Handler here."]),
    ("东京是首都。大阪很大。", ["东京是首都。", "大阪很大。"]),
    ("KEY FACTS\n- Flash point: 11 °C.\n- Boils at 64.7 °C.",
     ["KEY FACTS", "- Flash point: 11 °C.", "- Boils at 64.7 °C."]),
    ("Line one\n\nLine two", ["Line one", "Line two"]),
    # a unit after a figure ends its sentence; the same letters before a name do not
    ("The delay defaults to 2000 ms.\nIt is also possible.",
     ["The delay defaults to 2000 ms.", "It is also possible."]),
    ("We met Ms. Smith there.", ["We met Ms. Smith there."]),
    # a table row ends at its line's end, however long it is (ADR 0076); a line that
    # only ends with a bar ("ls |", a shell pipe wrapped) is not a row
    ("| ^D | <delete-thread> | delete all messages in the current thread |\n"
     "| ^U | <undelete-thread> | undelete all messages in the current thread |\n| T | quote |",
     ["| ^D | <delete-thread> | delete all messages in the current thread |",
      "| ^U | <undelete-thread> | undelete all messages in the current thread |", "| T | quote |"]),
    ("Run the listing of every installed package through ls -l /var/lib/dpkg/info |\n"
     "grep list", ["Run the listing of every installed package through ls -l /var/lib/dpkg/info |\ngrep list"]),
]  # fmt: skip


@pytest.mark.parametrize("text, expected", CASES)
def test_split(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize("text, expected", CASES)
def test_ingest_guard_and_verifier_cut_the_same_way(text: str, expected: list[str]) -> None:
    spans = [(s.start, s.end) for s in sentence_spans(text)]
    assert spans == sentence_ranges(text)
    assert [(s.start, s.end) for s in segment.sentence_spans(text)] == spans  # ingest
    assert prepare(text).sentences == spans  # the verifier's windows


def test_a_window_keeps_offsets_into_the_whole_text() -> None:
    text = "Skip this. Keep this one. And this."
    assert [text[s.start : s.end] for s in sentence_spans(text, 11)] == [
        "Keep this one.", "And this.",
    ]


def test_doctests() -> None:
    assert doctest.testmod(tether.text.sentences).failed == 0


_STOPS_AND_MARKS = [".", "!", "?", "...", "\n", "\n\n", " ", "\t", "a", "Ab", "Xy", "e.g", "2", "'",
                    '"', "\u201d", "\u00bb", ")", "]", "\u3002", "\uff01", "- ", "1. ", "# ", "[1:23",
                    "\u00a0", "Dr", "www.gnu.org"]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_STOPS_AND_MARKS), max_size=40).map("".join))
def test_boundaries_are_the_pattern_s_own_matches(text: str) -> None:
    # _boundaries tries the pattern only where a match can open (issue 20): it must
    # find exactly what finditer finds, trying it everywhere.
    found = [(m.span(), m.lastgroup) for m in tether.text.sentences._boundaries(text)]
    expected = [(m.span(), m.lastgroup) for m in tether.text.sentences._BOUNDARY.finditer(text)]
    assert found == expected
