"""Embedded store: one SQLite file in WAL mode with an FTS5 BM25 index over passages.

Each document write is one ``BEGIN IMMEDIATE`` transaction, so a failure or a kill
mid-way leaves nothing of that document half-written or retrievable. Only passages
of a document's current version are indexed; older versions keep their text so
stored citations still resolve.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import InputError, StoreError
from ..records import Document, Hit, Passage, Region, Version
from . import ApiKey

__all__ = ["SQLiteStore"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    title TEXT NOT NULL,
    license TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    media_type TEXT NOT NULL,
    acl TEXT NOT NULL,
    kind TEXT NOT NULL,
    process TEXT,
    current_version TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    doc_id TEXT NOT NULL,
    version TEXT NOT NULL,
    text TEXT NOT NULL,
    extractor TEXT NOT NULL,
    created_at TEXT NOT NULL,
    regions TEXT NOT NULL,
    PRIMARY KEY (doc_id, version)
);
CREATE TABLE IF NOT EXISTS passages (
    rowid INTEGER PRIMARY KEY,
    passage_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL,
    version TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    kind TEXT NOT NULL,
    region TEXT,
    process TEXT,
    flags TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passages_by_version ON passages (doc_id, version, start);
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5 (
    text, content='passages', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS answers (
    trace_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    payload TEXT NOT NULL
);
"""
# Service API keys (SHA-256 of the key, never the key). Added after schema 1 shipped:
# created on open when missing, so older files gain it without a migration step.
_KEYS_TABLE = """
CREATE TABLE IF NOT EXISTS keys (
    name TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    principals TEXT NOT NULL,
    created_at TEXT NOT NULL
)
"""


def _document(row: sqlite3.Row) -> Document:
    return Document(
        doc_id=row["doc_id"],
        source=row["source"],
        title=row["title"],
        license=row["license"],
        fetched_at=row["fetched_at"],
        media_type=row["media_type"],
        acl=tuple(json.loads(row["acl"])),
        kind=row["kind"],
        process=row["process"],
    )


def _passage(row: sqlite3.Row) -> Passage:
    return Passage(
        passage_id=row["passage_id"],
        doc_id=row["doc_id"],
        version=row["version"],
        start=row["start"],
        end=row["end"],
        text=row["text"],
        kind=row["kind"],
        region=row["region"],
        process=row["process"],
        flags=tuple(json.loads(row["flags"])),
    )


def fts_query(terms: Sequence[str]) -> str:
    """An FTS5 OR-query of quoted terms: user text never reaches the FTS syntax."""
    quoted = ('"' + term.replace('"', '""') + '"' for term in terms if term.strip())
    return " OR ".join(quoted)


class SQLiteStore:
    scorer = "sqlite-fts5-bm25"

    def __init__(self, location: str | os.PathLike[str], *, create: bool = True) -> None:
        self.path = Path(location)
        if not create and not self.path.exists():
            raise StoreError(
                f"no store at {self.path}", hint="ingest documents first: tether ingest PATH --db DB"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # check_same_thread=False: the service shares one store across its thread
            # pool; writes are serialised by the lock below and by SQLite itself.
            self._db = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=30000")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open store {self.path}: {exc}") from exc
        self._lock = threading.RLock()

    def _migrate(self) -> None:
        row = None
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except sqlite3.OperationalError:
            pass  # a new file: no meta table yet
        if row is not None and int(row[0]) > SCHEMA_VERSION:
            raise StoreError(
                f"store {self.path} has schema {row[0]}, newer than this Tether ({SCHEMA_VERSION})",
                hint="upgrade tether",
            )
        if row is None:
            self._db.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
            self._db.execute(
                "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        self._db.execute(_KEYS_TABLE)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            else:
                self._db.execute("COMMIT")

    # -- writing -----------------------------------------------------------------

    def put(self, document: Document, version: Version, passages: Sequence[Passage]) -> str:
        with self.transaction() as db:
            row = db.execute(
                "SELECT current_version FROM documents WHERE doc_id=?", (document.doc_id,)
            ).fetchone()
            if row is not None and row[0] == version.version:
                return "unchanged"
            db.execute(
                "INSERT OR REPLACE INTO documents VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    document.doc_id,
                    document.source,
                    document.title,
                    document.license,
                    document.fetched_at,
                    document.media_type,
                    json.dumps(list(document.acl)),
                    document.kind,
                    document.process,
                    version.version,
                ),
            )
            db.execute(
                "INSERT OR IGNORE INTO versions VALUES (?,?,?,?,?,?)",
                (
                    version.doc_id,
                    version.version,
                    version.text,
                    version.extractor,
                    version.created_at,
                    json.dumps([[r.start, r.end, r.label] for r in version.regions]),
                ),
            )
            self._replace_passages(db, document.doc_id, passages)
            return "ingested" if row is None else "updated"

    def replace_passages(self, doc_id: str, passages: Sequence[Passage]) -> None:
        """Re-segmentation: swap a document's indexed passages in one transaction."""
        with self.transaction() as db:
            self._replace_passages(db, doc_id, passages)

    def _replace_passages(
        self, db: sqlite3.Connection, doc_id: str, passages: Sequence[Passage]
    ) -> None:
        old = db.execute("SELECT rowid, text FROM passages WHERE doc_id=?", (doc_id,)).fetchall()
        db.executemany(
            "INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', ?, ?)",
            [(r[0], r[1]) for r in old],
        )
        db.execute("DELETE FROM passages WHERE doc_id=?", (doc_id,))
        for p in passages:
            cursor = db.execute(
                "INSERT INTO passages (passage_id, doc_id, version, start, \"end\", kind, region,"
                " process, flags, text) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    p.passage_id,
                    p.doc_id,
                    p.version,
                    p.start,
                    p.end,
                    p.kind,
                    p.region,
                    p.process,
                    json.dumps(list(p.flags)),
                    p.text,
                ),
            )
            db.execute(
                "INSERT INTO passages_fts(rowid, text) VALUES (?, ?)", (cursor.lastrowid, p.text)
            )

    def delete_document(self, doc_id: str) -> bool:
        with self.transaction() as db:
            self._replace_passages(db, doc_id, ())
            db.execute("DELETE FROM versions WHERE doc_id=?", (doc_id,))
            return db.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,)).rowcount > 0

    def record_answer(self, trace_id: str, created_at: str, payload: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?,?,?)",
                (trace_id, created_at, json.dumps(payload, ensure_ascii=False)),
            )

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- reading -----------------------------------------------------------------

    def search(
        self, terms: Sequence[str], *, limit: int, principals: Sequence[str] | None = None
    ) -> list[Hit]:
        query = fts_query(terms)
        if not query:
            return []
        sql = (
            "SELECT p.*, d.source, d.title, d.license, d.fetched_at, d.media_type, d.acl,"
            " d.kind AS doc_kind, d.process AS doc_process, bm25(passages_fts) AS bm25"
            " FROM passages_fts JOIN passages p ON p.rowid = passages_fts.rowid"
            " JOIN documents d ON d.doc_id = p.doc_id"
            " WHERE passages_fts MATCH ?"
        )
        params: list[Any] = [query]
        if principals is not None:
            marks = ",".join("?" * len(principals)) or "NULL"
            sql += f" AND EXISTS (SELECT 1 FROM json_each(d.acl) WHERE value IN ({marks}))"
            params.extend(principals)
        sql += " ORDER BY bm25 LIMIT ?"
        params.append(limit)
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        hits = []
        for rank, row in enumerate(rows):
            document = Document(
                doc_id=row["doc_id"],
                source=row["source"],
                title=row["title"],
                license=row["license"],
                fetched_at=row["fetched_at"],
                media_type=row["media_type"],
                acl=tuple(json.loads(row["acl"])),
                kind=row["doc_kind"],
                process=row["doc_process"],
            )
            # FTS5's bm25() is negative, lower is better; flip it so higher is better.
            hits.append(Hit(_passage(row), document, -float(row["bm25"]), rank))
        return hits

    def document(self, doc_id: str) -> Document | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
        return _document(row) if row else None

    def documents(self) -> list[Document]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM documents ORDER BY source").fetchall()
        return [_document(r) for r in rows]

    def version(self, doc_id: str, version: str | None = None) -> Version | None:
        with self._lock:
            if version is None:
                row = self._db.execute(
                    "SELECT v.* FROM versions v JOIN documents d"
                    " ON d.doc_id = v.doc_id AND d.current_version = v.version WHERE v.doc_id=?",
                    (doc_id,),
                ).fetchone()
            else:
                row = self._db.execute(
                    "SELECT * FROM versions WHERE doc_id=? AND version=?", (doc_id, version)
                ).fetchone()
        if row is None:
            return None
        return Version(
            doc_id=row["doc_id"],
            version=row["version"],
            text=row["text"],
            extractor=row["extractor"],
            created_at=row["created_at"],
            regions=tuple(Region(s, e, label) for s, e, label in json.loads(row["regions"])),
        )

    def passages(self, doc_id: str, version: str) -> list[Passage]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM passages WHERE doc_id=? AND version=? ORDER BY start",
                (doc_id, version),
            ).fetchall()
        return [_passage(r) for r in rows]

    def answer_record(self, trace_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT payload FROM answers WHERE trace_id=?", (trace_id,)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                table: self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("documents", "versions", "passages", "answers")
            }

    # -- service API keys --------------------------------------------------------

    def add_key(self, name: str, principals: Sequence[str], key_hash: str) -> None:
        created = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        try:
            with self.transaction() as db:
                db.execute(
                    "INSERT INTO keys VALUES (?,?,?,?)",
                    (name, key_hash, json.dumps(list(principals)), created),
                )
        except sqlite3.IntegrityError as exc:
            raise InputError(f"an API key named {name!r} already exists",
                             hint="revoke it first or choose another name") from exc

    def keys(self) -> list[ApiKey]:
        with self._lock:
            rows = self._db.execute(
                "SELECT name, principals, created_at FROM keys ORDER BY name"
            ).fetchall()
        return [ApiKey(r[0], tuple(json.loads(r[1])), r[2]) for r in rows]

    def revoke_key(self, name: str) -> bool:
        with self.transaction() as db:
            return db.execute("DELETE FROM keys WHERE name=?", (name,)).rowcount > 0

    def principals_for(self, key_hash: str) -> tuple[str, ...] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT principals FROM keys WHERE key_hash=?", (key_hash,)
            ).fetchone()
        return tuple(json.loads(row[0])) if row else None

    def close(self) -> None:
        with self._lock:
            self._db.close()
