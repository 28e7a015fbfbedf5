"""``check_store``: a sound store passes; each kind of damage is found and named."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from citehelp import cite, put_text

from tether.ops.consistency import MAX_LISTED, check_store
from tether.store.sqlite import SQLiteStore

TEXT = (
    "Methanol boils at 64.7 °C. It is toxic if swallowed.\n\n"
    "Store methanol in a cool place. Keep the container tightly shut."
)
OTHER = "Acetone has a flash point of minus 20 °C. Keep it away from open flames."


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with two documents (one with two versions) and one recorded answer."""
    path = tmp_path / "store.db"
    store = SQLiteStore(path)
    document, version = put_text(store, TEXT, passage_chars=40)
    put_text(store, OTHER, source="https://ex.org/acetone")
    put_text(store, OTHER + " Wear butyl gloves.", source="https://ex.org/acetone")
    store.record_answer("tr_1", "2026-01-01T00:00:00", {"question": "q"},
                        [(0, cite(document, version, 0, 26)), (1, cite(document, version, 27, 52))])
    store.close()
    return path


def _check(path: Path):
    store = SQLiteStore(path)
    try:
        return check_store(store)
    finally:
        store.close()


def _damage(path: Path, *statements: str) -> None:
    raw = sqlite3.connect(path, isolation_level=None)
    for statement in statements:
        raw.execute(statement)
    raw.close()


def test_a_sound_store_passes(db: Path) -> None:
    report = _check(db)
    assert report.ok, report.problems
    assert report.counts["documents"] == 2 and report.counts["versions"] == 3
    assert report.counts["passages"] >= 4 and report.counts["citations"] == 2
    assert report.citations == {"exact": 2}
    assert report.to_json()["ok"] is True


# (statement that damages the store, check that must fire, words its message holds)
DAMAGE = [
    ("UPDATE passages SET text = text || 'x' WHERE rowid = 1", "passages", "differs from the version"),
    ("UPDATE passages SET \"end\" = \"end\" + 5000 WHERE rowid = 1", "passages", "outside the version"),
    ("UPDATE passages SET start = 0 WHERE rowid = 2", "passages", "overlaps"),
    ("UPDATE versions SET text = replace(text, 'toxic', 'TOXIC')", "version", "no longer hashes"),
    ("UPDATE versions SET regions = '[[0, 99999, \"page 1\"]]'", "version", "outside the text"),
    ("DELETE FROM versions WHERE version = (SELECT current_version FROM documents LIMIT 1)",
     "version", "is not stored"),
    ("UPDATE documents SET kind = 'guessed'", "documents", "unknown kind"),
    ("UPDATE documents SET acl = '[]'", "documents", "empty ACL"),
    # A crash between the passages and the index could leave either behind.
    ("INSERT INTO passages_fts(passages_fts, rowid, text) SELECT 'delete', rowid, text "
     "FROM passages WHERE rowid = 1", "index", "not in the full-text index"),
    ("DELETE FROM passages WHERE rowid = 1", "index", "which is no passage"),
    ("UPDATE citations SET quote = 'X' || substr(quote, 2) WHERE seq = 0", "citations",
     "quote_hash does not match"),
    ("DELETE FROM answers", "citations", "without their answer"),
    ("UPDATE answers SET payload = '{not json'", "answers", "not valid JSON"),
    ("ALTER TABLE citations DROP COLUMN region", "schema", "missing columns: region"),
]


@pytest.mark.parametrize("statement, check, words", DAMAGE, ids=[d[2] for d in DAMAGE])
def test_damage_is_found(db: Path, statement: str, check: str, words: str) -> None:
    _damage(db, statement)
    report = _check(db)
    assert not report.ok
    assert any(p.check == check and words in p.message for p in report.problems), report.problems


def test_passages_of_an_old_version_left_searchable_are_found(db: Path) -> None:
    _damage(db, "UPDATE documents SET current_version = 'sha256:other' "
                "WHERE source = 'https://ex.org/doc'",
            "INSERT INTO versions SELECT doc_id, 'sha256:other', text, extractor, created_at, "
            "regions FROM versions WHERE doc_id = (SELECT doc_id FROM documents "
            "WHERE source = 'https://ex.org/doc')")
    report = _check(db)
    messages = [p.message for p in report.problems]
    assert any("not current, are searchable" in m for m in messages), messages
    assert any("has no passages" in m for m in messages), messages


def test_a_changed_cited_version_is_found_even_when_the_hash_still_matches(db: Path) -> None:
    # The version text under a citation changed: the quote and its hash still agree,
    # but the stored text no longer says it.
    _damage(db, "UPDATE versions SET text = 'Ethanol' || substr(text, 9)"
                " WHERE doc_id = (SELECT doc_id FROM citations LIMIT 1)")
    report = _check(db)
    assert any(p.check == "citations" and "no longer holds the quoted text" in p.message
               for p in report.problems), report.problems


def test_a_damaged_file_stops_the_deeper_checks(db: Path) -> None:
    raw = sqlite3.connect(db)
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = raw.execute("PRAGMA page_size").fetchone()[0]
    root = raw.execute("SELECT rootpage FROM sqlite_master WHERE name = 'versions'").fetchone()[0]
    raw.close()
    with db.open("r+b") as handle:  # overwrite the versions table's first page
        handle.seek(page_size * (root - 1))
        handle.write(b"\xff" * page_size)
    report = _check(db)
    assert not report.ok and report.problems[0].check == "file"
    assert report.counts == {}


def test_many_problems_are_summarised(db: Path, tmp_path: Path) -> None:
    store = SQLiteStore(db)
    for n in range(MAX_LISTED + 5):
        put_text(store, f"Solvent {n} boils at {n}.5 °C.", source=f"https://ex.org/{n}")
    store.close()
    _damage(db, "UPDATE documents SET acl = '[]'")
    report = _check(db)
    assert len([p for p in report.problems if p.check == "documents"]) == MAX_LISTED
    assert report.unlisted == 2 + MAX_LISTED + 5 - MAX_LISTED


def test_a_document_replaced_while_checked_is_not_reported(db: Path, monkeypatch) -> None:
    """Reads are not one snapshot: a re-ingest between reading a version and its
    passages must not look like damage."""
    store = SQLiteStore(db)
    real_passages = store.passages
    calls = {"n": 0}

    def racing(doc_id: str, version: str):
        calls["n"] += 1
        if calls["n"] == 1:  # a concurrent ingest lands right now
            put_text(store, TEXT + " Updated.", passage_chars=40)
        return real_passages(doc_id, version)

    monkeypatch.setattr(store, "passages", racing)
    try:
        report = check_store(store)
    finally:
        store.close()
    assert report.ok, report.problems
