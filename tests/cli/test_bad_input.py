"""Bad input: one clear line on stderr, a non-zero exit, and the store exactly as it was."""

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from .conftest import run_tether


def _snapshot(db: Path) -> str:
    """Everything a reader could see in the store (documents, versions, passages, index)."""
    if not db.exists():
        return "absent"
    with sqlite3.connect(db) as con:
        rows = [
            con.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in ("documents", "versions", "passages")
        ]
        rows.append(con.execute("SELECT rowid FROM passages_fts WHERE passages_fts MATCH 'acetone'").fetchall())
    return hashlib.sha256(repr(rows).encode()).hexdigest()


@pytest.fixture
def store(tmp_path):
    db = tmp_path / "t.db"
    good = tmp_path / "good.md"
    good.write_text("Acetone has a flash point of -20 °C.")
    assert run_tether("ingest", str(good), "--db", str(db)).code == 0
    return db


def _assert_clean_failure(run, *, mentions: str):
    assert run.code != 0
    lines = [line for line in run.err.splitlines() if line.strip()]
    assert lines and all("Traceback" not in line for line in lines), run.err
    assert any(mentions.lower() in line.lower() for line in lines), run.err
    assert len(lines) <= 2, run.err  # the failure line (+ the summary for ingest)


def _corrupt_pdf(p: Path):
    p.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nendobj\ngarbage" * 3)


def _binary_txt(p: Path):
    p.write_bytes(bytes(range(256)) * 40)


def _bad_utf8(p: Path):
    p.write_bytes("Caf\u00e9 au lait. ".encode("latin-1") * 5)


def _huge(p: Path):
    with p.open("wb") as f:
        f.truncate(300 * 1024 * 1024)  # sparse: costs no disk, must be refused by size


@pytest.mark.parametrize(
    "name, make, mentions",
    [
        ("broken.pdf", _corrupt_pdf, "broken.pdf"),
        ("binary.txt", _binary_txt, "binary"),
        ("latin1.txt", _bad_utf8, "utf-8"),
        ("huge.txt", _huge, "limit"),
    ],
)
def test_bad_files_fail_cleanly_and_leave_the_store_alone(tmp_path, store, name, make, mentions):
    bad = tmp_path / name
    make(bad)
    before = _snapshot(store)
    run = run_tether("ingest", str(bad), "--db", str(store))
    _assert_clean_failure(run, mentions=mentions)
    assert _snapshot(store) == before


def test_missing_path_and_empty_folder(tmp_path, store):
    before = _snapshot(store)
    _assert_clean_failure(run_tether("ingest", str(tmp_path / "nope"), "--db", str(store)), mentions="no such file")
    (tmp_path / "empty").mkdir()
    _assert_clean_failure(run_tether("ingest", str(tmp_path / "empty"), "--db", str(store)), mentions="no ingestible")
    assert _snapshot(store) == before


def test_unknown_option_and_bad_metadata(tmp_path, store):
    _assert_clean_failure(run_tether("ask", "x", "--db", str(store), "--frobnicate"), mentions="no such option")
    good = tmp_path / "g.txt"
    good.write_text("Text.")
    before = _snapshot(store)
    _assert_clean_failure(
        run_tether("ingest", str(good), "--db", str(store), "--fetched-at", "yesterday"), mentions="iso date"
    )
    _assert_clean_failure(
        run_tether("ingest", str(good), "--db", str(store), "--kind", "transcribed"), mentions="process"
    )
    assert _snapshot(store) == before


@pytest.mark.parametrize(
    "stdin, mentions",
    [
        ("{not json", "not valid json"),
        ("[1, 2]", "expected a json object"),
        ('{"sentences": ["x"]}', "missing key 'passages'"),
        ('{"passages": [{"id": "a"}], "sentences": ["x"]}', "missing key 'text'"),
        ('{"passages": [{"id": "a", "text": "t"}]}', "needs 'sentences'"),
        ('{"passages": [{"id": "a", "text": "t"}], "sentences": [1]}', "list of strings"),
        ("", "no json"),
    ],
)
def test_verify_bad_json(stdin, mentions):
    _assert_clean_failure(run_tether("verify", stdin=stdin), mentions=mentions)


def test_jsonl_bad_lines_produce_no_output(store):
    good = json.dumps({"id": 1, "question": "What is the flash point of acetone?"})
    for bad, mentions in [("{oops", "line 2"), ('{"question": "q"}', "missing key 'id'"),
                          ('{"id": 2}', "missing key 'question'")]:
        run = run_tether("ask", "--db", str(store), "--jsonl", "-", stdin=f"{good}\n{bad}\n")
        _assert_clean_failure(run, mentions=mentions)
        assert run.out == ""
    run = run_tether("verify", "--jsonl", stdin='{"passages": [], "sentences": []}\n')
    _assert_clean_failure(run, mentions="missing key 'id'")


def test_ask_on_a_missing_store_says_what_to_do(tmp_path):
    run = run_tether("ask", "anything", "--db", str(tmp_path / "none.db"))
    _assert_clean_failure(run, mentions="tether ingest")
    assert not (tmp_path / "none.db").exists()


def test_debug_shows_the_traceback(tmp_path):
    run = run_tether("--debug", "ask", "anything", "--db", str(tmp_path / "none.db"))
    assert run.code != 0 and "Traceback" in run.err


def test_tether_alone_prints_help():
    run = run_tether()
    assert run.code == 0 and run.out.startswith("Usage: tether") and run.err == ""
