"""One schema for both backends: the migrations, rendered per dialect."""

import sqlite3

from tether.store.dialect import POSTGRESQL, SQLITE
from tether.store.migrations import schema_script

# What only one backend has, by design: PostgreSQL's passages carry the ACL and a
# generated tsvector and are keyed by an identity column; SQLite's are keyed by the
# rowid FTS5 addresses, and its index is a table of its own (with shadow tables).
ONLY_POSTGRES = {("passages", "acl"), ("passages", "tsv"), ("passages", "id")}
ONLY_SQLITE = {("passages", "rowid")}


def _sqlite_columns() -> set[tuple[str, str]]:
    db = sqlite3.connect(":memory:")
    db.executescript(schema_script(SQLITE))
    tables = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'passages_fts%'")]
    return {(t, c[1]) for t in tables for c in db.execute(f'PRAGMA table_info("{t}")')}


def test_rendering_keeps_only_the_dialects_blocks_and_fills_list_columns():
    text = "a {list}\n-- [sqlite] why\nS\n-- [postgresql]\nP\n-- [end]\nz\n"
    assert SQLITE.render(text) == "a text\nS\nz\n"
    assert POSTGRESQL.render(text) == "a text[]\nP\nz\n"


def test_sqlite_runs_every_migration_again_without_change():
    db = sqlite3.connect(":memory:")
    db.executescript(schema_script(SQLITE))
    before = sorted(db.execute("SELECT type, name, sql FROM sqlite_master"))
    db.executescript(schema_script(SQLITE))
    assert sorted(db.execute("SELECT type, name, sql FROM sqlite_master")) == before


def test_both_backends_get_the_same_tables_and_columns(pg_url):
    import psycopg

    from tether.store.postgres import PostgresStore

    PostgresStore(pg_url, notify=lambda message: None).close()
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'"
        ).fetchall()
    postgres = {(t, c) for t, c in rows}
    assert postgres - ONLY_POSTGRES == _sqlite_columns() - ONLY_SQLITE
