"""Refusal reasons in plain words, through the real CLI process: they say what no
passage states ("no passage states the capital of Australia") and what was missing,
not the machinery; the machine-readable layer is unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether.retrieve.probe import DEFAULT_THRESHOLD

from .conftest import run_tether

JARGON = ("neighbouring", "supported sentence", "retrieval is weak", "threshold 0", "<")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("words")
    (root / "toluene.md").write_text(
        "# Toluene\n\nThe OASB exposure limit for toluene is 50 ppm over 8 hours.\n"
        "Toluene is a clear liquid used as a solvent.\n"
    )
    (root / "brisol.md").write_text("# Brisol\n\nBrisol is a pale oil sold by Norvale.\n")
    db = root / "t.db"
    assert run_tether("ingest", str(root), "--db", str(db)).code == 0
    return db


def ask(db: Path, question: str) -> tuple[str, dict]:
    text = run_tether("ask", question, "--db", str(db))
    answer = json.loads(run_tether("ask", question, "--db", str(db), "--json").out)
    assert text.code == 1 and answer["refused"]
    line = text.out.splitlines()[0]
    assert line == f"No answer [{answer['refusal_layer']}]: {answer['refusal_reason']}."
    assert not any(word in answer["refusal_reason"] for word in JARGON), answer["refusal_reason"]
    return line, answer


def test_nothing_matches_names_what_was_asked(store: Path) -> None:
    line, answer = ask(store, "What is the capital of Australia?")
    assert answer["refusal_layer"] == "probe"
    assert line == ("No answer [probe]: no passage states the capital of Australia: nothing in "
                    "the collection matches the question.")


def test_an_absent_subject_says_which_word_no_passage_mentions(store: Path) -> None:
    _, answer = ask(store, "What is the OASB exposure limit for xylene?")
    assert answer["refusal_layer"] == "guard"
    assert answer["refusal_reason"] == (
        "no passage states the OASB exposure limit for xylene: none of the passages found "
        "mentions 'xylene', so what they state is about something else"
    )


def test_a_missing_kind_of_answer_is_said_plainly(store: Path) -> None:
    _, answer = ask(store, "When was Brisol first sold?")
    assert answer["refusal_layer"] == "guard"
    assert answer["refusal_reason"] == (
        "no passage answers “When was Brisol first sold?”: the question asks for a date, "
        "and the sentences found give none"
    )


def test_weak_retrieval_says_which_words_the_collection_lacks(store: Path) -> None:
    _, answer = ask(store, "What is the shelf life of toluene gloves?")
    assert answer["refusal_layer"] == "probe" and answer["probe"]["signal"] == "weak"
    reason = answer["refusal_reason"]
    assert reason.startswith(
        "no passage states the shelf life of toluene gloves: 'shelf', 'life' and 'gloves' occur"
        " nowhere in the collection (retrieval score 0."
    )
    assert reason.endswith(f", below the {DEFAULT_THRESHOLD:.2f} threshold)")
