"""``tether demo --db``: a SQLite file or a PostgreSQL URL, named as the store names itself."""

from __future__ import annotations

import pytest

from tether.cli import main
from tether.store import open_store

QUESTION = "What is the boiling point of methanol?"


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


def _demo_answers(out: str, location: str) -> None:
    assert f"passages ({location})" in out
    assert f"Q: {QUESTION}" in out and "64.7 °C. [1]" in out


def test_demo_keeps_its_store_in_the_sqlite_file_given(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "kept" / "demo.db"
    code, out, err = run(capsys, "demo", "--db", str(db), QUESTION)
    assert code == 0, err
    _demo_answers(out, str(db))
    assert f"tether ask --db {db} '{QUESTION}'" in out  # the next step asks the kept store
    store = open_store(db, create=False)
    try:
        assert store.counts()["documents"] > 0
    finally:
        store.close()


def test_demo_without_a_store_says_it_is_temporary_and_how_to_keep_one(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "demo", QUESTION)
    assert code == 0, err
    _demo_answers(out, "a temporary folder, removed when the demo ends")
    steps = out[out.index("Next:"):].splitlines()[1:]
    assert [line.split()[:2] for line in steps] == [["tether", "demo"], ["tether", "ingest"], ["pip", "install"]]
    assert "--db demo.db" in steps[0] and "tether serve" in steps[2]
    assert list(tmp_path.iterdir()) == []  # nothing left behind


def test_demo_on_a_postgres_url_uses_that_server_not_a_file(pg_url, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "demo", "--db", pg_url, QUESTION)
    assert code == 0, err
    _demo_answers(out, pg_url)  # no password in this URL, so shown as given
    assert list(tmp_path.iterdir()) == []  # no "postgresql:/…" SQLite file was made
    store = open_store(pg_url, create=False)
    try:
        assert store.counts()["documents"] > 0
    finally:
        store.close()
