"""SQLite schema upgrades."""

import json
import sqlite3

from citehelp import cite, put_text

from tether.store.sqlite import SQLiteStore

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
        assert store.get_meta("schema_version") == "2"
    finally:
        store.close()
