"""The document store both SQL backends share: each statement written once, in the
portable SQL both speak, with the differences left to ``self.dialect``.

A backend gives ``transaction`` (one write transaction; ``lock`` names a document
whose other writers must wait), ``_rows`` (one read), ``_replace_passages`` (write a
document's passages into its full-text index) and its own ``search``/``term_counts``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ..records import Document, Passage, Version
from .dialect import Dialect
from .protocols import Collected, DocumentSummary, PutResult
from .rows import (
    document_from_row,
    flag_column,
    listed,
    passage_from_row,
    version_from_row,
)

__all__ = ["PASSAGE_COLUMNS", "Cursor", "SQLBase", "SQLDocuments", "indexed", "passage_values"]

# A passage row as both backends write and read it (PostgreSQL's passages also carry
# ``acl`` and ``tsv``, SQLite's a rowid; reading names the columns so neither comes back).
PASSAGE_COLUMNS = (
    "passage_id", "doc_id", "version", "start", "end", "kind", "region", "process", "flags", "text",
)
_PASSAGES = ", ".join(f'p."{c}"' if c == "end" else f"p.{c}" for c in PASSAGE_COLUMNS)
_DOCUMENT_COLUMNS = (
    "doc_id", "source", "title", "license", "fetched_at", "media_type", "acl", "kind", "process",
    "current_version",
)


class Cursor(Protocol):
    """What shared code runs statements on: ``sqlite3.Connection`` or a psycopg cursor
    (both return something with ``fetchone``/``fetchall``/``rowcount``)."""

    def execute(self, query: Any, params: Any = ..., /) -> Any: ...

    def executemany(self, query: Any, params: Any, /) -> Any: ...


@functools.cache  # the same few statements, written per document
def upsert(table: str, columns: tuple[str, ...], key: str) -> str:
    """``INSERT … ON CONFLICT (key) DO UPDATE`` setting every other column."""
    names = ", ".join(f'"{c}"' for c in columns)
    updates = ", ".join(f'"{c}" = excluded."{c}"' for c in columns if c != key)
    marks = ", ".join("?" * len(columns))
    return f"INSERT INTO {table} ({names}) VALUES ({marks}) ON CONFLICT ({key}) DO UPDATE SET {updates}"


def indexed(document: Document) -> tuple[Any, ...]:
    """What a document's indexed passages depend on besides its text: the provenance
    they carry (kind, process) and the ACL search filters them by. PostgreSQL copies
    the ACL into every passage row, so a changed ACL must rewrite them; SQLite reads
    it from ``documents`` at search time, where the rewrite is merely redundant. One
    rule for both: any of the three changed, the passages are written again."""
    return (document.acl, document.kind, document.process)


def passage_values(dialect: Dialect, p: Passage) -> tuple[Any, ...]:
    return (p.passage_id, p.doc_id, p.version, p.start, p.end, p.kind, p.region, p.process,
            dialect.list_value(flag_column(p.flags, p.heading)), p.text)


class SQLBase:
    """What the shared mixins need from a backend."""

    dialect: Dialect

    def transaction(self, *, lock: str | None = None) -> AbstractContextManager[Cursor]:
        raise NotImplementedError

    def _rows(self, query: Any, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    def _select(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._rows(self.dialect.q(statement), params)

    def _replace_passages(
        self, cur: Cursor, doc_id: str, passages: Sequence[Passage], *, stored: bool = True
    ) -> None:
        """Delete a document's passages (and their index entries), write ``passages``;
        ``stored=False``: the document has no row, so no passages to delete (they are
        written with its row and deleted with it)."""
        raise NotImplementedError


class SQLDocuments(SQLBase):
    """``DocumentStore`` minus ranking, over ``transaction`` and ``_rows``."""

    def put(self, document: Document, version: Version, passages: Sequence[Passage]) -> PutResult:
        q = self.dialect.q
        with self.transaction(lock=document.doc_id) as cur:
            row = cur.execute(q("SELECT * FROM documents WHERE doc_id = ?"), (document.doc_id,)).fetchone()
            # Same text and same metadata: nothing to do. Same text with new metadata
            # (a narrowed ACL, a corrected title) rewrites the document, and its passages
            # when what they depend on changed (``indexed``).
            same_text = row is not None and row["current_version"] == version.version
            old = document_from_row(row) if row is not None else None
            if same_text and old == document:
                return "unchanged"
            cur.execute(q(upsert("documents", _DOCUMENT_COLUMNS, "doc_id")), (
                document.doc_id, document.source, document.title, document.license,
                document.fetched_at, document.media_type, self.dialect.list_value(document.acl),
                document.kind, document.process, version.version,
            ))
            cur.execute(q("INSERT INTO versions VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING"), (
                version.doc_id, version.version, version.text, version.extractor, version.created_at,
                json.dumps([[r.start, r.end, r.label] for r in version.regions]),
            ))
            if not same_text or old is None or indexed(old) != indexed(document):
                self._replace_passages(cur, document.doc_id, passages, stored=old is not None)
            return "ingested" if row is None else "updated"

    def replace_passages(self, doc_id: str, passages: Sequence[Passage]) -> bool:
        """Re-segmentation: swap a document's indexed passages in one transaction.

        Refused (``False``, nothing written) when the passages are not of the current
        version any more, so a re-segmentation racing an ingest never indexes old text.
        """
        with self.transaction(lock=doc_id) as cur:
            row = cur.execute(
                self.dialect.q("SELECT current_version FROM documents WHERE doc_id = ?"), (doc_id,)
            ).fetchone()
            if row is None or any(
                p.version != row["current_version"] or p.doc_id != doc_id for p in passages
            ):
                return False
            self._replace_passages(cur, doc_id, passages)
            return True

    def delete_document(self, doc_id: str) -> bool:
        q = self.dialect.q
        with self.transaction(lock=doc_id) as cur:
            self._replace_passages(cur, doc_id, ())
            cur.execute(q("DELETE FROM versions WHERE doc_id = ?"), (doc_id,))
            cur.execute(q("DELETE FROM document_writers WHERE doc_id = ?"), (doc_id,))
            return bool(cur.execute(q("DELETE FROM documents WHERE doc_id = ?"), (doc_id,)).rowcount > 0)

    def writers(self, doc_id: str) -> tuple[str, ...] | None:
        """The principals who may rewrite or delete ``doc_id`` through the service, or
        ``None`` when none were recorded (migration 0004)."""
        rows = self._select("SELECT writers FROM document_writers WHERE doc_id = ?", (doc_id,))
        return listed(rows[0]["writers"]) if rows else None

    def claim_writers(self, doc_id: str, writers: Sequence[str]) -> tuple[str, ...]:
        """Record ``writers`` for ``doc_id`` unless some are recorded already; returns
        the recorded ones (the first claim wins, atomically)."""
        q = self.dialect.q
        with self.transaction(lock=doc_id) as cur:
            cur.execute(q("INSERT INTO document_writers VALUES (?, ?) ON CONFLICT DO NOTHING"),
                        (doc_id, self.dialect.list_value(list(writers))))
            row = cur.execute(q("SELECT writers FROM document_writers WHERE doc_id = ?"),
                              (doc_id,)).fetchone()
        return listed(row["writers"])

    def release_writers(self, doc_id: str) -> None:
        """Forget the writers of a document that does not exist (a claim made for an
        upload that then failed)."""
        q = self.dialect.q
        with self.transaction(lock=doc_id) as cur:
            cur.execute(q("DELETE FROM document_writers WHERE doc_id = ? AND NOT EXISTS "
                          "(SELECT 1 FROM documents WHERE doc_id = ?)"), (doc_id, doc_id))

    def collect_versions(self, *, dry_run: bool = False) -> Collected:
        size = self.dialect.byte_length.format("v.text")
        with self.transaction() as cur:
            if self.dialect.gc_lock:
                cur.execute(self.dialect.gc_lock)
            rows = cur.execute(
                f"SELECT v.doc_id, v.version, {size} AS size,"
                " EXISTS (SELECT 1 FROM citations c"
                "         WHERE c.doc_id = v.doc_id AND c.version = v.version) AS cited"
                " FROM versions v LEFT JOIN documents d ON d.doc_id = v.doc_id"
                " WHERE d.current_version IS NULL OR v.version <> d.current_version"
            ).fetchall()
            unused = [(r["doc_id"], r["version"]) for r in rows if not r["cited"]]
            if unused and not dry_run:
                cur.executemany(
                    self.dialect.q("DELETE FROM versions WHERE doc_id = ? AND version = ?"), unused
                )
        return Collected(
            removed=len(unused),
            freed_bytes=sum(int(r["size"]) for r in rows if not r["cited"]),
            kept_cited=sum(1 for r in rows if r["cited"]),
        )

    # -- reading -------------------------------------------------------------------

    def document(self, doc_id: str) -> Document | None:
        rows = self._select("SELECT * FROM documents WHERE doc_id = ?", (doc_id,))
        return document_from_row(rows[0]) if rows else None

    def documents(self) -> list[Document]:
        return [document_from_row(r) for r in self._select("SELECT * FROM documents ORDER BY source")]

    def list_documents(
        self,
        principals: Sequence[str] | None,
        *,
        limit: int,
        after: tuple[str, str] | None = None,
    ) -> list[DocumentSummary]:
        order = self.dialect.text_order  # byte order in both, so pages meet exactly
        where, params = ["1=1"], []
        if principals is not None:
            clause, acl_params = self.dialect.acl_filter("d.acl", principals)
            where.append(clause)
            params += acl_params
        if after is not None:
            where.append(f"(d.source{order} > ? OR (d.source = ? AND d.doc_id{order} > ?))")
            params += [after[0], after[0], after[1]]
        rows = self._select(
            "SELECT d.*,"
            " (SELECT count(*) FROM versions v WHERE v.doc_id = d.doc_id) AS n_versions,"
            " (SELECT count(*) FROM passages p WHERE p.doc_id = d.doc_id) AS n_passages,"
            " (SELECT v.created_at FROM versions v"
            "  WHERE v.doc_id = d.doc_id AND v.version = d.current_version) AS ingested_at"
            f" FROM documents d WHERE {' AND '.join(where)}"
            f" ORDER BY d.source{order}, d.doc_id{order} LIMIT ?",
            [*params, max(0, limit)],
        )
        return [
            DocumentSummary(
                document=document_from_row(r), current_version=r["current_version"],
                versions=int(r["n_versions"]), passages=int(r["n_passages"]),
                ingested_at=r["ingested_at"] or "",
            )
            for r in rows
        ]

    def version(self, doc_id: str, version: str | None = None) -> Version | None:
        if version is None:
            rows = self._select(
                "SELECT v.* FROM versions v JOIN documents d"
                " ON d.doc_id = v.doc_id AND d.current_version = v.version WHERE v.doc_id = ?",
                (doc_id,),
            )
        else:
            rows = self._select(
                "SELECT * FROM versions WHERE doc_id = ? AND version = ?", (doc_id, version)
            )
        return version_from_row(rows[0]) if rows else None

    def current_version(self, doc_id: str) -> str | None:
        rows = self._select("SELECT current_version FROM documents WHERE doc_id = ?", (doc_id,))
        return str(rows[0]["current_version"]) if rows else None

    def version_slice(self, doc_id: str, version: str, start: int, end: int) -> str | None:
        # substr() counts characters (code points), like Python's str indexing.
        rows = self._select(
            "SELECT substr(text, ?, ?) AS part FROM versions WHERE doc_id = ? AND version = ?",
            (start + 1, max(0, end - start), doc_id, version),
        )
        return str(rows[0]["part"]) if rows else None

    def passages(self, doc_id: str, version: str) -> list[Passage]:
        rows = self._select(
            f"SELECT {_PASSAGES} FROM passages p WHERE p.doc_id = ? AND p.version = ? ORDER BY p.start",
            (doc_id, version),
        )
        return [passage_from_row(r) for r in rows]

    def covering_passages(self, doc_id: str, version: str, start: int, end: int) -> list[Passage]:
        rows = self._select(
            f"SELECT {_PASSAGES} FROM passages p WHERE p.doc_id = ? AND p.version = ?"
            ' AND p.start < ? AND p."end" > ? ORDER BY p.start',
            (doc_id, version, end, start),
        )
        return [passage_from_row(r) for r in rows]

    def counts(self) -> dict[str, int]:
        tables = ("documents", "versions", "passages", "answers", "citations")
        row = self._select("SELECT " + ", ".join(f"(SELECT count(*) FROM {t}) AS {t}" for t in tables))[0]
        return {t: int(row[t]) for t in tables}
