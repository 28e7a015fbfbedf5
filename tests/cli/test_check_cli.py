"""``tether check`` from the command line: exit codes, listing, JSON."""

from __future__ import annotations

import json
import sqlite3

from .clirun import run


def _store(tmp_path) -> str:
    doc = tmp_path / "guide.txt"
    doc.write_text("Butyl gloves are required for acetone. Nitrile gloves resist oils.\n")
    db = str(tmp_path / "store.db")
    code, _, err = run("ingest", str(doc), "--db", db)
    assert code == 0, err
    code, _, err = run("ask", "Which gloves are required for acetone?", "--db", db, "--json")
    assert code == 0, err
    return db


def test_a_sound_store_exits_0(tmp_path):
    db = _store(tmp_path)
    code, out, err = run("check", "--db", db)
    assert code == 0, err
    # One citation: the answer quotes the glove rule, not the unrelated oils sentence.
    assert out.startswith("ok: 1 documents, 1 versions, 1 passages, 1 answers, 1 citations (1 exact)")
    code, out, _ = run("check", "--db", db, "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True and report["problems"] == []
    assert report["counts"]["citations"] == 1 and report["citations"] == {"exact": 1}


def test_problems_are_listed_and_exit_1(tmp_path):
    db = _store(tmp_path)
    raw = sqlite3.connect(db, isolation_level=None)
    raw.execute("UPDATE passages SET text = text || ' and more words'")
    raw.close()
    code, out, _ = run("check", "--db", db)
    assert code == 1
    lines = out.splitlines()
    assert any(line.startswith("problem [passages] doc_") and "differs" in line for line in lines)
    assert any(line.startswith("problem [index] passages_fts") for line in lines)
    assert lines[-1].startswith("PROBLEMS: 1 documents")
    code, out, _ = run("check", "--db", db, "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    assert {p["check"] for p in report["problems"]} == {"passages", "index"}


def test_a_file_that_is_no_store_is_a_problem_not_a_crash(tmp_path):
    db = tmp_path / "store.db"
    db.write_bytes(b"this is not a database, just some bytes " * 50)
    code, out, err = run("check", "--db", str(db))
    assert code == 1, err
    assert "problem [file]" in out and "not a database" in out and "Traceback" not in err


def test_no_store_is_an_error(tmp_path):
    code, out, err = run("check", "--db", str(tmp_path / "none.db"))
    assert code == 3 and out == ""
    assert err.startswith("error: no store at") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "none.db").exists()
