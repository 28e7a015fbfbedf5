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
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import InputError, StoreError
from ..records import Citation, Document, Hit, Passage, Version
from . import ApiKey, Collected
from .busy import BUSY_DEADLINE_S, RetryingConnection, is_busy, retry_busy
from .rows import (
    CITATION_FIELDS,
    SHADOW_FIELDS,
    citation_from_row,
    document_from_row,
    passage_from_row,
    version_from_row,
)

__all__ = ["SQLiteStore"]

# 2: the ``citations`` table (audit log rows that keep cited versions alive).
SCHEMA_VERSION = 2

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
CREATE TABLE IF NOT EXISTS citations (
    trace_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    sentence INTEGER NOT NULL,
    doc_id TEXT NOT NULL,
    version TEXT NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    quote TEXT NOT NULL,
    quote_hash TEXT NOT NULL,
    passage_id TEXT NOT NULL,
    source TEXT NOT NULL,
    title TEXT NOT NULL,
    license TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    region TEXT,
    process TEXT,
    PRIMARY KEY (trace_id, seq)
);
CREATE INDEX IF NOT EXISTS citations_by_version ON citations (doc_id, version);
CREATE TABLE IF NOT EXISTS shadow_log (
    id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    trace_id TEXT NOT NULL,
    question TEXT NOT NULL,
    gate TEXT NOT NULL,
    layer TEXT NOT NULL,
    reason TEXT NOT NULL,
    suppressed TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS answer_metrics (
    trace_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    metrics TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS answer_metrics_by_time ON answer_metrics (created_at);
"""

_INSERT_CITATION = (
    "INSERT OR IGNORE INTO citations (trace_id, seq, sentence, doc_id, version, start, \"end\","
    " quote, quote_hash, passage_id, source, title, license, fetched_at, kind, region, process)"
    " VALUES (" + ",".join("?" * 17) + ")"
)


def _citation_row(trace_id: str, seq: int, sentence: int, c: Citation) -> tuple[Any, ...]:
    return (trace_id, seq, sentence, *(getattr(c, name) for name in CITATION_FIELDS))


def _payload_citations(payload: Any) -> list[tuple[int, Citation]]:
    """Citations inside a stored Answer JSON (for stores written before the citations
    table existed); entries that do not look like citations are skipped."""
    found: list[tuple[int, Citation]] = []
    sentences = payload.get("sentences") if isinstance(payload, dict) else None
    for number, sentence in enumerate(sentences if isinstance(sentences, list) else []):
        cited = sentence.get("citations") if isinstance(sentence, dict) else None
        for item in cited if isinstance(cited, list) else []:
            try:
                values = {name: item.get(name) for name in CITATION_FIELDS}
                for name in ("doc_id", "version", "quote", "quote_hash"):
                    if not isinstance(values[name], str):
                        raise TypeError(name)
                for name in ("start", "end"):
                    if not isinstance(values[name], int):
                        raise TypeError(name)
                for name in ("passage_id", "source", "title", "license", "fetched_at"):
                    values[name] = str(values[name] or "")
                values["kind"] = values["kind"] or "original"
                found.append((number, Citation(**values)))
            except (AttributeError, TypeError):
                continue
    return found


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


# Tables and indexes the schema scripts create; when all exist at the current schema
# version, opening writes nothing (readers then never queue for the write lock).
_SCHEMA_OBJECTS = frozenset(
    re.findall(r"CREATE (?:VIRTUAL )?(?:TABLE|INDEX) IF NOT EXISTS (\w+)", _SCHEMA + _KEYS_TABLE)
)


def _busy(path: Path) -> StoreError:
    return StoreError(
        f"store {path} is busy: another process has held its write lock for over "
        f"{BUSY_DEADLINE_S:.0f} s",
        hint="retry when that ingest or gc has finished",
    )


def fts_query(terms: Sequence[str]) -> str:
    """An FTS5 OR-query of quoted terms: user text never reaches the FTS syntax."""
    quoted = ('"' + term.replace('"', '""') + '"' for term in terms if term.strip())
    return " OR ".join(quoted)


class SQLiteStore:
    scorer = "sqlite-fts5-bm25"

    def __init__(self, location: str | os.PathLike[str], *, create: bool = True) -> None:
        self.path = Path(location)
        self.location = str(self.path)  # what messages show (``Store.location``)
        if not create and not self.path.exists():
            raise StoreError(
                f"no store at {self.path}", hint="ingest documents first: tether ingest PATH --db DB"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # check_same_thread=False: the service shares one store across its thread
            # pool; writes are serialised by the lock below and by SQLite itself.
            # RetryingConnection: several processes may share the file (see store.busy).
            self._db = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False,
                factory=RetryingConnection,
            )
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=30000")
            retry_busy(self._migrate)
        except sqlite3.DatabaseError as exc:
            if is_busy(exc):
                raise _busy(self.path) from exc
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
        if row is not None and int(row[0]) == SCHEMA_VERSION and self._has_schema():
            return  # nothing to write: opening for reading takes no write lock
        # Every statement is IF NOT EXISTS: tables added since the file was made appear.
        try:
            self._db.executescript("BEGIN IMMEDIATE;" + _SCHEMA + "COMMIT;")
        except sqlite3.OperationalError:
            if self._db.in_transaction:  # refused part-way: undo, so a retry starts clean
                self._db.execute("ROLLBACK")
            raise
        if row is not None and int(row[0]) < 2:
            self._backfill_citations()  # schema 2 added the citations table
        self._db.execute(_KEYS_TABLE)
        self._db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
        )

    def _has_schema(self) -> bool:
        present = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
        return _SCHEMA_OBJECTS <= present

    def _backfill_citations(self) -> None:
        """Schema 1 → 2: citations of answers already recorded become rows, so a later
        ``gc`` keeps the versions they cite. Idempotent (a concurrent opener may race)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for trace_id, payload in self._db.execute(
                "SELECT trace_id, payload FROM answers"
            ).fetchall():
                try:
                    cited = _payload_citations(json.loads(payload))
                except json.JSONDecodeError:
                    continue
                self._db.executemany(
                    _INSERT_CITATION,
                    [_citation_row(trace_id, seq, n, c) for seq, (n, c) in enumerate(cited)],
                )
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")  # retried while busy (store.busy)
            except sqlite3.OperationalError as exc:
                if is_busy(exc):
                    raise _busy(self.path) from exc
                raise
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
                "SELECT * FROM documents WHERE doc_id=?", (document.doc_id,)
            ).fetchone()
            # Same text and same metadata: nothing to do. Same text with new metadata
            # (a narrowed ACL, a corrected title) rewrites the document, and its passages
            # when what they carry changed (kind, process; the ACL is read from here).
            same_text = row is not None and row["current_version"] == version.version
            old = document_from_row(row) if row is not None else None
            if same_text and old == document:
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
            if not same_text or old is None or (old.kind, old.process) != (document.kind, document.process):
                self._replace_passages(db, document.doc_id, passages)
            return "ingested" if row is None else "updated"

    def replace_passages(self, doc_id: str, passages: Sequence[Passage]) -> bool:
        """Re-segmentation: swap a document's indexed passages in one transaction.

        Refused (``False``, nothing written) when the passages are not of the current
        version any more, so a re-segmentation racing an ingest never indexes old text.
        """
        with self.transaction() as db:
            row = db.execute(
                "SELECT current_version FROM documents WHERE doc_id=?", (doc_id,)
            ).fetchone()
            if row is None or any(p.version != row[0] or p.doc_id != doc_id for p in passages):
                return False
            self._replace_passages(db, doc_id, passages)
            return True

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

    def record_answer(
        self,
        trace_id: str,
        created_at: str,
        payload: dict[str, Any],
        citations: Sequence[tuple[int, Citation]] = (),
    ) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?,?,?)",
                (trace_id, created_at, json.dumps(payload, ensure_ascii=False)),
            )
            db.execute("DELETE FROM citations WHERE trace_id=?", (trace_id,))
            db.executemany(
                _INSERT_CITATION,
                [_citation_row(trace_id, seq, n, c) for seq, (n, c) in enumerate(citations)],
            )

    def collect_versions(self, *, dry_run: bool = False) -> Collected:
        with self.transaction() as db:
            rows = db.execute(
                "SELECT v.doc_id, v.version, length(CAST(v.text AS BLOB)) AS size,"
                " EXISTS (SELECT 1 FROM citations c"
                "         WHERE c.doc_id = v.doc_id AND c.version = v.version) AS cited"
                " FROM versions v LEFT JOIN documents d ON d.doc_id = v.doc_id"
                " WHERE d.current_version IS NULL OR v.version != d.current_version"
            ).fetchall()
            unused = [(r["doc_id"], r["version"]) for r in rows if not r["cited"]]
            if not dry_run:
                db.executemany("DELETE FROM versions WHERE doc_id=? AND version=?", unused)
        return Collected(
            removed=len(unused),
            freed_bytes=sum(r["size"] for r in rows if not r["cited"]),
            kept_cited=sum(1 for r in rows if r["cited"]),
        )

    def record_metrics(self, trace_id: str, created_at: str, metrics: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO answer_metrics VALUES (?,?,?)",
                (trace_id, created_at, json.dumps(metrics)),
            )

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def record_shadow(self, entry: dict[str, Any]) -> None:
        missing = [f for f in SHADOW_FIELDS if not isinstance(entry.get(f), str)]
        if missing:
            raise StoreError(f"shadow-log entry lacks {', '.join(missing)}")
        with self.transaction() as db:
            db.execute(
                f"INSERT INTO shadow_log ({', '.join(SHADOW_FIELDS)}) VALUES (?,?,?,?,?,?,?,?)",
                tuple(entry[f] for f in SHADOW_FIELDS),
            )

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
        acl, acl_params = self._acl_clause(principals)
        sql += acl + " ORDER BY bm25 LIMIT ?"
        params: list[Any] = [query, *acl_params, limit]
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        hits = []
        for rank, row in enumerate(rows):
            document = document_from_row(row, prefix="doc_")
            # FTS5's bm25() is negative, lower is better; flip it so higher is better.
            hits.append(Hit(passage_from_row(row), document, -float(row["bm25"]), rank))
        return hits

    def document(self, doc_id: str) -> Document | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
        return document_from_row(row) if row else None

    def documents(self) -> list[Document]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM documents ORDER BY source").fetchall()
        return [document_from_row(r) for r in rows]

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
        return version_from_row(row)

    def passages(self, doc_id: str, version: str) -> list[Passage]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM passages WHERE doc_id=? AND version=? ORDER BY start",
                (doc_id, version),
            ).fetchall()
        return [passage_from_row(r) for r in rows]

    def current_version(self, doc_id: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT current_version FROM documents WHERE doc_id=?", (doc_id,)
            ).fetchone()
        return row[0] if row else None

    def version_slice(self, doc_id: str, version: str, start: int, end: int) -> str | None:
        # substr() counts characters (code points), like Python's str indexing.
        with self._lock:
            row = self._db.execute(
                "SELECT substr(text, ?, ?) FROM versions WHERE doc_id=? AND version=?",
                (start + 1, max(0, end - start), doc_id, version),
            ).fetchone()
        return row[0] if row else None

    def covering_passages(self, doc_id: str, version: str, start: int, end: int) -> list[Passage]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM passages WHERE doc_id=? AND version=? AND start < ? AND \"end\" > ?"
                " ORDER BY start",
                (doc_id, version, end, start),
            ).fetchall()
        return [passage_from_row(r) for r in rows]

    def answer_citations(self, trace_id: str) -> list[tuple[int, Citation]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM citations WHERE trace_id=? ORDER BY seq", (trace_id,)
            ).fetchall()
        return [(r["sentence"], citation_from_row(r)) for r in rows]

    def recorded_citations(self) -> list[tuple[str, int, Citation]]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM citations ORDER BY trace_id, seq").fetchall()
        return [(r["trace_id"], r["sentence"], citation_from_row(r)) for r in rows]

    def integrity_problems(self) -> list[tuple[str, str, str]]:
        from .sqlite_check import sqlite_problems  # it reads this module's schema

        with self._lock:
            return sqlite_problems(self._db, str(self.path))

    def answer_record(self, trace_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT payload FROM answers WHERE trace_id=?", (trace_id,)
            ).fetchone()
        return json.loads(row[0]) if row else None

    def _acl_clause(self, principals: Sequence[str] | None) -> tuple[str, list[Any]]:
        if principals is None:
            return "", []
        marks = ",".join("?" * len(principals)) or "NULL"
        return (
            f" AND EXISTS (SELECT 1 FROM json_each(d.acl) WHERE value IN ({marks}))",
            list(principals),
        )

    def term_counts(
        self, words: Sequence[str], *, principals: Sequence[str] | None = None
    ) -> tuple[int, dict[str, int]]:
        # Counted through the FTS index itself, so a word is matched exactly as
        # retrieval matches it (same tokenizer and stemmer). The index holds exactly
        # the passages table (current versions only), so without an ACL neither join
        # is needed, and skipping them is most of the cost: 13.6 ms a word against
        # 0.8 ms at 130k passages. One statement, so all counts see one snapshot.
        acl, acl_params = self._acl_clause(principals)
        passages = "passages p JOIN documents d ON d.doc_id = p.doc_id" if acl else "passages p"
        matched = (
            "passages_fts JOIN passages p ON p.rowid = passages_fts.rowid"
            " JOIN documents d ON d.doc_id = p.doc_id" if acl else "passages_fts"
        )
        queries = {word: fts_query([word]) for word in words}
        asked = [word for word, query in queries.items() if query]
        columns = [f"(SELECT count(*) FROM {passages} WHERE 1=1{acl})"]
        columns += [f"(SELECT count(*) FROM {matched} WHERE passages_fts MATCH ?{acl})"] * len(asked)
        params = [*acl_params]
        for word in asked:
            params += [queries[word], *acl_params]
        with self._lock:
            row = self._db.execute("SELECT " + ", ".join(columns), params).fetchone()
        counts = dict.fromkeys(words, 0)
        counts.update(zip(asked, row[1:]))
        return row[0], counts

    def shadow_entries(self, *, limit: int | None = None) -> list[dict[str, Any]]:
        sql = f"SELECT id, {', '.join(SHADOW_FIELDS)} FROM shadow_log ORDER BY id"
        params: list[Any] = []
        if limit is not None:
            sql = f"SELECT * FROM ({sql} DESC LIMIT ?) ORDER BY id"
            params.append(limit)
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [dict(row) for row in rows]

    def metric_records(
        self, *, since: str | None = None, until: str | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        sql = "SELECT created_at, metrics FROM answer_metrics WHERE 1=1"
        params: list[str] = []
        if since is not None:
            sql += " AND created_at >= ?"
            params.append(since)
        if until is not None:
            sql += " AND created_at < ?"
            params.append(until)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY created_at, trace_id", params).fetchall()
        return [(row[0], json.loads(row[1])) for row in rows]

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                table: self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("documents", "versions", "passages", "answers", "citations")
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
