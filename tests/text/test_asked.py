"""``text.asked``: what a question asks for, as a refusal says it."""

import doctest

import pytest

import tether.text.asked
from tether.text.asked import asked_for, not_stated


def test_docstring_examples() -> None:
    result = doctest.testmod(tether.text.asked)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("What is the capital of Australia?", "the capital of Australia"),
        ("what's the  boiling point of methanol ??", "the boiling point of methanol"),
        ("Which were the first Norman rulers?", "the first Norman rulers"),
        ("What   are\nthe limits for xylene", "the limits for xylene"),
        ("When was Brisol made?", None),
        ("What does OASB mean?", None),  # not "What is X": quoted whole instead
        ("What is?", None),
        ("Whatever is the point?", None),
    ],
)
def test_asked_for(question: str, thing: str | None) -> None:
    assert asked_for(question) == thing


def test_long_questions_are_cut_to_a_readable_length() -> None:
    reason = not_stated("What is " + "the limit " * 40 + "for xylene?")
    assert reason.startswith("no passage states the limit the limit") and reason.endswith("…")
    assert len(reason) < 150
    assert not_stated("How hot\n does it get?") == "no passage answers “How hot does it get?”"
