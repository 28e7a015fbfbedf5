"""SQLite schema upgrades."""

import json
import sqlite3

import pytest
from citehelp import cite, put_text

from tether.ops.cite import resolve
from tether.store.rows import CITATION_FIELDS
from tether.store.sqlite import SCHEMA_VERSION, SQLiteStore

TEXT = "Methanol boils at 64.7 °C. It is toxic."


def test_a_store_from_before_the_citations_table_backfills_it(tmp_path):
    # Schema 1 had answers but no citations rows: opening it upgrades and backfills,
    # so gc keeps the versions those older answers cite.
    path = tmp_path / "old.db"
    store = SQLiteStore(path)
    document, version = put_text(store, TEXT)
    citation = cite(document, version, 0, 8)
    payload = {"sentences": [{"text": "x", "citations": [json.loads(json.dumps({
        f: getattr(citation, f) for f in citation.__slots__}))]}, {"citations": ["junk"]}]}
    store.record_answer("tr_old", "2026-01-01T00:00:00", payload)
    store.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE citations")
    db.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    db.commit()
    db.close()
    store = SQLiteStore(path)
    try:
        assert store.answer_citations("tr_old") == [(0, citation)]
        assert store.get_meta("schema_version") == str(SCHEMA_VERSION)
    finally:
        store.close()


# -- files made by the previous release ------------------------------------------------
# The schema as the release before the one-schema store wrote it (inline in sqlite.py,
# commit 18cc950), kept here verbatim: the migrations must open such a file as it is.
# Schema 2 files made before the service and the metrics existed lack ``keys`` and
# ``answer_metrics`` (those were created on open, without a version); schema 1 files
# also lack ``citations``.

RELEASED_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT NOT NULL, license TEXT NOT NULL,
    fetched_at TEXT NOT NULL, media_type TEXT NOT NULL, acl TEXT NOT NULL, kind TEXT NOT NULL,
    process TEXT, current_version TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    doc_id TEXT NOT NULL, version TEXT NOT NULL, text TEXT NOT NULL, extractor TEXT NOT NULL,
    created_at TEXT NOT NULL, regions TEXT NOT NULL, PRIMARY KEY (doc_id, version)
);
CREATE TABLE IF NOT EXISTS passages (
    rowid INTEGER PRIMARY KEY, passage_id TEXT NOT NULL UNIQUE, doc_id TEXT NOT NULL,
    version TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, kind TEXT NOT NULL,
    region TEXT, process TEXT, flags TEXT NOT NULL, text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_by_version ON passages (doc_id, version, start);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5 (
    text, content='passages', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS answers (
    trace_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, payload TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS shadow_log (
    id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, trace_id TEXT NOT NULL,
    question TEXT NOT NULL, gate TEXT NOT NULL, layer TEXT NOT NULL, reason TEXT NOT NULL,
    suppressed TEXT NOT NULL, text TEXT NOT NULL
);
"""
RELEASED_CITATIONS = """
CREATE TABLE IF NOT EXISTS citations (
    trace_id TEXT NOT NULL, seq INTEGER NOT NULL, sentence INTEGER NOT NULL, doc_id TEXT NOT NULL,
    version TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL, quote TEXT NOT NULL,
    quote_hash TEXT NOT NULL, passage_id TEXT NOT NULL, source TEXT NOT NULL, title TEXT NOT NULL,
    license TEXT NOT NULL, fetched_at TEXT NOT NULL, kind TEXT NOT NULL, region TEXT,
    process TEXT, PRIMARY KEY (trace_id, seq)
);
CREATE INDEX IF NOT EXISTS citations_by_version ON citations (doc_id, version);
"""
RELEASED_LATER = """
CREATE TABLE IF NOT EXISTS answer_metrics (
    trace_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, metrics TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS answer_metrics_by_time ON answer_metrics (created_at);
CREATE TABLE IF NOT EXISTS keys (
    name TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, principals TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""
OLD_TEXT = "Methanol boils at 64.7 °C. It was once sold as wood spirit."


def _released_store(path, *, schema: int, later_tables: bool):
    """A file as the previous release left it: a document whose first version an
    answer cites, then a second version (current, indexed), and that answer."""
    staging = SQLiteStore(path.with_name("staging.db"))
    document, old = put_text(staging, OLD_TEXT)
    _, current = put_text(staging, TEXT)
    passages = staging.passages(document.doc_id, current.version)
    staging.close()
    citation = cite(document, old, 0, 8)
    fields = {f: getattr(citation, f) for f in citation.__slots__}
    payload = {"question": "q", "sentences": [{"text": "Methanol", "citations": [fields]}]}
    db = sqlite3.connect(path)
    db.executescript(RELEASED_SCHEMA + (RELEASED_CITATIONS if schema >= 2 else "")
                     + (RELEASED_LATER if later_tables else ""))
    db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(schema),))
    db.execute("INSERT INTO documents VALUES (?,?,?,?,?,?,?,?,?,?)", (
        document.doc_id, document.source, document.title, document.license, document.fetched_at,
        document.media_type, json.dumps(list(document.acl)), document.kind, document.process,
        current.version))
    for v in (old, current):
        db.execute("INSERT INTO versions VALUES (?,?,?,?,?,?)",
                   (v.doc_id, v.version, v.text, v.extractor, v.created_at, "[]"))
    for p in passages:
        db.execute('INSERT INTO passages (passage_id, doc_id, version, start, "end", kind, region,'
                   " process, flags, text) VALUES (?,?,?,?,?,?,?,?,?,?)",
                   (p.passage_id, p.doc_id, p.version, p.start, p.end, p.kind, p.region,
                    p.process, json.dumps(list(p.flags)), p.text))
    db.execute("INSERT INTO passages_fts(passages_fts) VALUES ('rebuild')")
    db.execute("INSERT INTO answers VALUES (?,?,?)", ("tr_old", "2026-01-01T00:00:00", json.dumps(payload)))
    if schema >= 2:
        db.execute("INSERT INTO citations VALUES (" + ",".join("?" * 17) + ")",
                   ("tr_old", 0, 0, *(fields[f] for f in CITATION_FIELDS)))
    db.commit()
    db.close()
    return document, old, current, passages, citation


@pytest.mark.parametrize(("schema", "later_tables"), [(2, True), (2, False), (1, False)])
def test_a_file_of_the_previous_release_opens_migrates_and_keeps_its_data(tmp_path, schema, later_tables):
    path = tmp_path / "released.db"
    document, old, current, passages, citation = _released_store(
        path, schema=schema, later_tables=later_tables)
    store = SQLiteStore(path)
    try:
        assert store.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert store.integrity_problems() == []
        assert store.document(document.doc_id) == document
        assert store.version(document.doc_id) == current
        assert store.passages(document.doc_id, current.version) == passages
        (hit,) = store.search(["methanol"], limit=5, principals=["public"])
        assert hit.passage == passages[0] and hit.document == document
        assert store.answer_citations("tr_old") == [(0, citation)]
        # The cited old version survives gc, its range still reads, and the citation
        # resolves (onto today's version, where the quote moved with the new text).
        assert store.collect_versions().kept_cited == 1
        assert store.version_slice(document.doc_id, old.version, 0, 8) == "Methanol"
        assert resolve(citation, store).status == "relocated"
        # Tables a file of that release may lack work now.
        store.add_key("ops", ["public"], "sha256:abc")
        assert store.principals_for("sha256:abc") == ("public",)
        store.record_metrics("tr_old", "2026-01-01T00:00:00.000000Z", {"answered": 1})
        assert store.metric_records() == [("2026-01-01T00:00:00.000000Z", {"answered": 1})]
        # Writing keeps the FTS5 index in step with the passages (rowid key kept).
        put_text(store, "Ethanol boils at 78.4 °C.", source="https://ex.org/ethanol")
        assert {h.document.source for h in store.search(["boils"], limit=5)} == {
            "https://ex.org/doc", "https://ex.org/ethanol"}
        assert store.integrity_problems() == []
    finally:
        store.close()
    # Up to date now: opening again writes nothing.
    before = path.stat().st_mtime_ns, path.read_bytes()
    SQLiteStore(path).close()
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before
