"""Embedded store: one SQLite file in WAL mode with an FTS5 BM25 index over passages.

Each document write is one ``BEGIN IMMEDIATE`` transaction (or one savepoint of a
``batch`` that commits several), so a failure or a kill mid-way leaves nothing of
that document half-written or retrievable. Only passages
of a document's current version are indexed; older versions keep their text so
stored citations still resolve. What this module holds is what only SQLite does:
the file, its locks, the FTS5 index and BM25 ranking; the rest is ``sql_documents``
and ``sql_records`` in the ``SQLITE`` dialect, over the schema of ``migrations``.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..records import Hit, Passage, SlicedPassages
from .busy import BUSY_DEADLINE_S, RetryingConnection, is_busy, retry_busy
from .dialect import SQLITE, fts5_query
from .migrations import MIGRATIONS, schema_script
from .rows import document_from_row, flag_column, passage_from_row
from .sql_documents import PASSAGE_COLUMNS, SQLDocuments
from .sql_files import SQLFiles
from .sql_records import SQLRecords
from .sqlite_check import sqlite_problems

__all__ = ["SCHEMA_VERSION", "SQLiteStore", "fts_query"]

# 2: the ``citations`` table (audit log rows that keep cited versions alive).
SCHEMA_VERSION = MIGRATIONS[-1].version

fts_query = fts5_query  # the name callers know

_SCHEMA = schema_script(SQLITE)
# Tables and indexes the migrations create; when all exist at the current schema
# version, opening writes nothing (readers then never queue for the write lock).
_SCHEMA_OBJECTS = frozenset(
    re.findall(r"CREATE (?:VIRTUAL )?(?:TABLE|INDEX) IF NOT EXISTS (\w+)", _SCHEMA)
)
_INSERT_PASSAGE = "INSERT INTO passages (rowid, {}) VALUES (?, {})".format(
    ", ".join(f'"{c}"' for c in PASSAGE_COLUMNS), ",".join("?" * len(PASSAGE_COLUMNS))
)



def _passage_rows(passages: Sequence[Passage], first_rowid: int) -> list[tuple[Any, ...]]:
    """The rows of ``passages``, rowids from ``first_rowid`` on, the flag column (JSON)
    encoded once per distinct (flags, heading path) while it stays among the recent
    ones: a document's passages share a few paths, and documents of one kind share
    theirs (602 text files: 8,366 encodings one document at a time, 2,851 across
    them). SQLite keeps the value as text, so rows may share it."""
    if isinstance(passages, SlicedPassages):  # from an ingest worker: the rows alone
        doc_id, version, text, kind, process = (passages.doc_id, passages.version, passages.text,
                                                passages.kind, passages.process)
        return [(rowid, passage_id, doc_id, version, start, end, kind, region, process,
                 _flag_column(flags, heading), text[start:end])
                for rowid, (passage_id, start, end, region, flags, heading)
                in enumerate(passages.pieces, first_rowid)]
    return [(rowid, p.passage_id, p.doc_id, p.version, p.start, p.end, p.kind, p.region,
             p.process, _flag_column(p.flags, p.heading), p.text)
            for rowid, p in enumerate(passages, first_rowid)]


@lru_cache(maxsize=4096)
def _flag_column(flags: tuple[str, ...], heading: tuple[str, ...]) -> Any:
    return SQLITE.list_value(flag_column(flags, heading))

_HIT_COLUMNS = (
    "p.*, d.source, d.title, d.license, d.fetched_at, d.media_type, d.acl,"
    " d.kind AS doc_kind, d.process AS doc_process"
)
# Readable hits are looked for among this many times ``limit`` of the best matches.
_CANDIDATES = 8
_TOP_SEARCH = (
    "WITH top AS (SELECT rowid, bm25(passages_fts) AS bm25 FROM passages_fts"
    " WHERE passages_fts MATCH ? ORDER BY bm25, rowid LIMIT ?)"
    f" SELECT {_HIT_COLUMNS}, top.bm25 FROM top JOIN passages p ON p.rowid = top.rowid"
    " JOIN documents d ON d.doc_id = p.doc_id WHERE 1=1{acl} ORDER BY top.bm25, top.rowid LIMIT ?"
)
_FULL_SEARCH = (
    f"SELECT {_HIT_COLUMNS}, bm25(passages_fts) AS bm25"
    " FROM passages_fts JOIN passages p ON p.rowid = passages_fts.rowid"
    " JOIN documents d ON d.doc_id = p.doc_id"
    " WHERE passages_fts MATCH ?{acl} ORDER BY bm25, p.rowid LIMIT ?"
)


def _busy(path: Path) -> StoreError:
    return StoreError(
        f"store {path} is busy: another process has held its write lock for over "
        f"{BUSY_DEADLINE_S:.0f} s",
        hint="retry when that ingest or gc has finished",
    )


class SQLiteStore(SQLDocuments, SQLRecords, SQLFiles):
    scorer = "sqlite-fts5-bm25"
    dialect = SQLITE

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
        self._batched = False  # inside ``batch``: transactions are savepoints
        # What the open write transaction left for the FTS5 index (``_index_written``):
        # the (rowid, text) of each document's passages it wrote, and of entries to
        # take out; and the rowid its next passage gets.
        self._unindexed: dict[str, list[tuple[int, str]]] = {}
        self._stale: list[tuple[int, str]] = []
        self._next_rowid = 0

    def _migrate(self) -> None:
        """Bring the file up to date: every migration, in one transaction (each
        statement is idempotent), then the version. Files of older releases gain the
        tables they lack and the citation rows of answers recorded under schema 1."""
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
        version = (
            f"INSERT INTO meta VALUES ('schema_version', '{SCHEMA_VERSION}')"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value;"
        )
        try:
            self._db.executescript("BEGIN IMMEDIATE;" + _SCHEMA + ";" + version + "COMMIT;")
        except sqlite3.OperationalError:
            if self._db.in_transaction:  # refused part-way: undo, so a retry starts clean
                self._db.execute("ROLLBACK")
            raise

    def _has_schema(self) -> bool:
        present = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
        return _SCHEMA_OBJECTS <= present

    @contextmanager
    def transaction(self, *, lock: str | None = None) -> Iterator[sqlite3.Connection]:
        """One write transaction; ``lock`` is moot here (SQLite has one write lock).

        Inside ``batch`` it is a savepoint of the batch's transaction: a failure
        undoes only its own writes."""
        with self._lock:
            if self._batched:
                yield from self._savepoint()
                return
            self._begin()
            try:
                yield self._db
                self._index_written()
            except BaseException:
                self._rollback()
                raise
            self._db.execute("COMMIT")

    def _begin(self) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")  # retried while busy (store.busy)
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise _busy(self.path) from exc
            raise
        self._unindexed.clear()
        self._stale.clear()
        self._next_rowid = 0  # read when the transaction first writes passages

    def _rollback(self) -> None:
        if self._db.in_transaction:  # SQLite may have rolled back itself (a full disk)
            self._db.execute("ROLLBACK")

    def _savepoint(self) -> Iterator[sqlite3.Connection]:
        unindexed, stale = dict(self._unindexed), len(self._stale)
        self._db.execute("SAVEPOINT one_write")
        try:
            yield self._db
        except BaseException:
            if self._db.in_transaction:  # SQLite may have rolled the batch back itself
                self._db.execute("ROLLBACK TO one_write")
                self._db.execute("RELEASE one_write")
            # What this write queued for the index goes with it (its rowids stay unused).
            self._unindexed = unindexed
            del self._stale[stale:]
            raise
        else:
            self._db.execute("RELEASE one_write")

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Several write transactions committed as one (ingest's writer, while more
        prepared documents are ready): each ``transaction`` inside is a savepoint, so a
        failed one leaves nothing of itself and the others stay; the batch commits on
        leaving, even by an exception (what completed is kept, as separate commits
        would have kept it). A kill before the commit loses the whole batch and
        nothing else, so each document is still whole or absent. One commit instead
        of one per document: most of a small document's write cost was its commit
        (FTS5 flushes a segment at each)."""
        with self._lock:
            if self._batched:  # already in one: this is part of it
                yield
                return
            # Each document's savepoint keeps the pages it changes in a sub-journal, so
            # that it can roll back alone. Past 64 KiB that journal is a temporary file,
            # which most documents reached: 270 of the 673 MiB the writer wrote for
            # 24 MB of text. In memory it holds one document's changed pages at most,
            # emptied at its release. No recovery reads it: a kill still loses the
            # open batch and only it.
            self._db.execute("PRAGMA temp_store=MEMORY")  # SQLite refuses it inside a transaction
            try:
                self._begin()
                self._batched = True
                try:
                    yield
                finally:
                    self._batched = False
                    if self._db.in_transaction:
                        try:
                            self._index_written()
                            self._db.execute("COMMIT")
                        except BaseException:
                            self._rollback()
                            raise
            finally:
                # Temporary tables (a large sort) go back to files, also when BEGIN failed.
                self._db.execute("PRAGMA temp_store=DEFAULT")

    def _rows(self, query: Any, params: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(query, params).fetchall()

    def _replace_passages(
        self, cur: Any, doc_id: str, passages: Sequence[Passage], *, stored: bool = True
    ) -> None:
        # The FTS5 index (external content) is written once per transaction, just
        # before its commit (``_index_written``): per document, FTS5 flushed its
        # pending entries as a new segment at each savepoint of a batch (602 text
        # files: 0.19-0.21 s of CPU, against 0.07 s at the end). Rows indexed before
        # this transaction leave the index with the text they were made from, so
        # that text is read before they go. Rowids are given here, so the entries to
        # index are known without reading the rows back.
        if stored and doc_id not in self._unindexed:
            rows = cur.execute("SELECT rowid, text FROM passages WHERE doc_id=?", (doc_id,))
            self._stale += ((rowid, text) for rowid, text in rows)
        if stored:
            cur.execute("DELETE FROM passages WHERE doc_id=?", (doc_id,))
        if not self._next_rowid:
            self._next_rowid = cur.execute("SELECT coalesce(max(rowid), 0) + 1 FROM passages").fetchone()[0]
        rows = _passage_rows(passages, self._next_rowid)
        if rows:
            cur.executemany(_INSERT_PASSAGE, rows)
        self._next_rowid += len(rows)
        # A document written again in this transaction is indexed as it is now.
        self._unindexed.pop(doc_id, None)
        self._unindexed[doc_id] = [(row[0], row[-1]) for row in rows]

    def _index_written(self) -> None:
        """Bring the FTS5 index up to what this transaction wrote: the stale entries
        out, the passages of every document written in it in (a document written
        twice, or deleted, as it is now), in rowid order: FTS5 flushes a segment
        whenever a rowid is lower than the last (twice the cost in document order).
        Inside the transaction, so a failure here rolls it back whole, as a refused
        commit would. Until then a search on this connection misses them; none runs
        inside a write (the lock is held)."""
        if self._stale:
            self._db.executemany(
                "INSERT INTO passages_fts(passages_fts, rowid, text) VALUES ('delete', ?, ?)",
                sorted(self._stale),
            )
        if self._unindexed:
            # Rowids rise with the order documents were last written in (the dict's).
            self._db.executemany("INSERT INTO passages_fts(rowid, text) VALUES (?, ?)",
                                 (entry for rows in self._unindexed.values() for entry in rows))
        self._unindexed.clear()
        self._stale.clear()

    # -- ranking -----------------------------------------------------------------

    def search(
        self, terms: Sequence[str], *, limit: int, principals: Sequence[str] | None = None
    ) -> list[Hit]:
        query = fts_query(terms)
        if not query:
            return []
        acl, acl_params = self._acl_clause(principals)
        # The FTS index ranks alone and only its top rows are joined to passages and
        # documents (joining every match before sorting cost 3x the bare query at 100k
        # passages). With an ACL, the top CANDIDATES x limit are filtered; when fewer
        # than ``limit`` readable ones are among them and the index had more, the full
        # query ranks every readable match. Ties break on rowid, so both agree.
        pool = limit if principals is None else limit * _CANDIDATES
        rows = self._rows(_TOP_SEARCH.format(acl=acl), [query, pool, *acl_params, limit])
        if principals is not None and len(rows) < limit and self._more_than(query, pool):
            rows = self._rows(_FULL_SEARCH.format(acl=acl), [query, *acl_params, limit])
        hits = []
        for rank, row in enumerate(rows):
            document = document_from_row(row, prefix="doc_")
            # FTS5's bm25() is negative, lower is better; flip it so higher is better.
            hits.append(Hit(passage_from_row(row), document, -float(row["bm25"]), rank))
        return hits

    def _more_than(self, query: str, n: int) -> bool:
        rows = self._rows(
            "SELECT count(*) FROM (SELECT 1 FROM passages_fts WHERE passages_fts MATCH ? LIMIT ?)",
            [query, n + 1],
        )
        return int(rows[0][0]) > n

    def _acl_clause(self, principals: Sequence[str] | None) -> tuple[str, list[Any]]:
        if principals is None:
            return "", []
        clause, params = SQLITE.acl_filter("d.acl", principals)
        return " AND " + clause, params

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
        row = self._rows("SELECT " + ", ".join(columns), params)[0]
        counts = dict.fromkeys(words, 0)
        counts.update(zip(asked, row[1:]))
        return row[0], counts

    # -- the file ----------------------------------------------------------------

    def integrity_problems(self) -> list[tuple[str, str, str]]:
        with self._lock:
            return sqlite_problems(self._db, str(self.path))

    def close(self) -> None:
        with self._lock:
            self._db.close()
