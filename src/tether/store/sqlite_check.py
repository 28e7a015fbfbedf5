"""The SQLite store's own integrity checks (``SQLiteStore.integrity_problems``).

What only this backend can see: the file (``PRAGMA integrity_check``), the schema
against the one this Tether creates, the FTS5 index against the passages table, and
rows that belong to nothing. ``tether.check`` runs these with the checks every
backend shares. Each problem is ``(check, subject, message)``.
"""

from __future__ import annotations

import sqlite3

from .dialect import SQLITE
from .migrations import MIGRATIONS, schema_script
from .sql_records import LIMIT as _LIMIT
from .sql_records import orphan_problems

__all__ = ["sqlite_problems"]

Found = list[tuple[str, str, str]]
SCHEMA_VERSION = MIGRATIONS[-1].version


def _file(db: sqlite3.Connection, name: str) -> Found:
    rows = [r[0] for r in db.execute(f"PRAGMA integrity_check({_LIMIT})").fetchall()]
    return [] if rows == ["ok"] else [("file", name, f"SQLite integrity_check: {r}") for r in rows]


def _reference() -> dict[str, list[str]]:
    """Tables of the schema this Tether creates, with their columns."""
    ref = sqlite3.connect(":memory:")
    try:
        ref.executescript(schema_script(SQLITE))
        names = [r[0] for r in ref.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: [c[1] for c in ref.execute(f'PRAGMA table_info("{n}")')] for n in names}
    finally:
        ref.close()


def _schema(db: sqlite3.Connection) -> Found:
    found: Found = []
    row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None or row[0] != str(SCHEMA_VERSION):
        found.append(("schema", "meta", (f"schema_version is {row[0] if row else None!r}, "
                      f"expected {SCHEMA_VERSION}")))
    for table, columns in _reference().items():
        have = [c[1] for c in db.execute(f'PRAGMA table_info("{table}")')]
        if not have:
            found.append(("schema", table, "table is missing"))
        elif missing := [c for c in columns if c not in have]:
            found.append(("schema", table, "missing columns: " + ", ".join(missing)))
    return found


def _index(db: sqlite3.Connection) -> Found:
    """The FTS5 index holds exactly the passages table's rows, with the same text."""
    found: Found = []
    for doc_id, passage_id in db.execute(
        "SELECT p.doc_id, p.passage_id FROM passages p"
        " LEFT JOIN passages_fts_docsize s ON s.id = p.rowid WHERE s.id IS NULL LIMIT ?",
        (_LIMIT,),
    ):
        found.append(("index", doc_id, (f"passage {passage_id} is not in the full-text index "
                      "(it can never be retrieved)")))
    for (rowid,) in db.execute(
        "SELECT s.id FROM passages_fts_docsize s"
        " LEFT JOIN passages p ON p.rowid = s.id WHERE p.rowid IS NULL LIMIT ?",
        (_LIMIT,),
    ):
        found.append(("index", "passages_fts", (f"the full-text index holds row {rowid}, "
                      "which is no passage (a deleted passage would still match searches)")))
    if found:
        return found
    # Same rows: FTS5 compares every indexed token with the content table's text. The
    # command is an INSERT, so it runs in a write transaction, rolled back after.
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("INSERT INTO passages_fts(passages_fts, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError as exc:
        found.append(("index", "passages_fts", ("the full-text index does not match the "
                      f"passages' text (FTS5 integrity-check: {exc})")))
    finally:
        db.execute("ROLLBACK")
    return found


def _orphans(db: sqlite3.Connection) -> Found:
    found = orphan_problems(SQLITE, lambda statement, params: db.execute(statement, params).fetchall())
    for (trace_id,) in db.execute(
        "SELECT trace_id FROM answers WHERE NOT json_valid(payload) LIMIT ?", (_LIMIT,)
    ):
        found.append(("answers", trace_id, "the recorded answer is not valid JSON"))
    return found


def sqlite_problems(db: sqlite3.Connection, name: str) -> Found:
    """Every SQLite-specific problem of the store open on ``db`` (not in a transaction)."""
    try:
        found = _file(db, name)
        if found:
            return found  # a damaged file makes every later answer unreliable
        found = _schema(db)
        if found:
            return found  # the queries below assume this Tether's schema
        return _index(db) + _orphans(db)
    except sqlite3.DatabaseError as exc:  # damage bad enough that the checks cannot read
        return [("file", name, f"SQLite cannot read the store: {exc}")]
