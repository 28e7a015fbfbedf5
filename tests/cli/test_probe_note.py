"""The "probe threshold is not calibrated" note, through the real CLI process: said once
per store (the store records it), every time under ``--verbose``, never before an
input error, and again once a different note applies."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tether.retrieve.calibrate import NOTED_PREFIX

from .conftest import run_tether

NOTE = "note: the probe threshold is not calibrated for scorer 'sqlite-fts5-bm25'"
QUESTION = "What is the flash point of acetone?"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    doc = tmp_path / "acetone.md"
    doc.write_text("# Acetone\n\nAcetone has a flash point of -20 °C.\n")
    db = tmp_path / "t.db"
    assert run_tether("ingest", str(doc), "--db", str(db)).code == 0
    return db


def _noted(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT key, value FROM meta WHERE key LIKE ?",
                            (NOTED_PREFIX + "%",)).fetchall()


def test_the_note_is_said_once_per_store_and_recorded_in_it(store: Path, tmp_path: Path) -> None:
    first = run_tether("ask", QUESTION, "--db", str(store))
    assert first.code == 0 and first.err.count(NOTE) == 1
    (key, value), = _noted(store)
    assert key == NOTED_PREFIX + "sqlite-fts5-bm25" and "not calibrated" in value
    again = run_tether("ask", QUESTION, "--db", str(store))
    assert again.code == 0 and again.err == ""
    # Another store has not heard it yet.
    other = tmp_path / "other.db"
    run_tether("ingest", str(tmp_path / "acetone.md"), "--db", str(other))
    assert run_tether("ask", QUESTION, "--db", str(other)).err.count(NOTE) == 1


def test_verbose_says_it_every_time(store: Path) -> None:
    run_tether("ask", QUESTION, "--db", str(store))
    for _ in range(2):
        run = run_tether("ask", QUESTION, "--db", str(store), "--verbose")
        assert run.code == 0 and run.err.count(NOTE) == 1


def test_no_note_before_an_input_error_and_the_note_is_not_spent(store: Path) -> None:
    empty = run_tether("ask", "", "--db", str(store))
    assert empty.code == 2 and empty.err == "error: the question is empty\n"
    bad_line = run_tether("ask", "--jsonl", "-", "--db", str(store),
                          stdin='{"id": 1, "question": "What?"}\n{"id": 2, "question": ""}\n')
    assert bad_line.code == 2 and bad_line.err.startswith("error: line 2:") and NOTE not in bad_line.err
    assert _noted(store) == []
    assert run_tether("ask", QUESTION, "--db", str(store)).err.count(NOTE) == 1


def test_a_different_note_is_said_again(store: Path) -> None:
    run_tether("ask", QUESTION, "--db", str(store))
    with sqlite3.connect(store) as conn:  # as if an older Tether had said something else
        conn.execute("UPDATE meta SET value = 'an older note' WHERE key LIKE ?", (NOTED_PREFIX + "%",))
    assert run_tether("ask", QUESTION, "--db", str(store)).err.count(NOTE) == 1
    assert run_tether("ask", QUESTION, "--db", str(store)).err == ""
