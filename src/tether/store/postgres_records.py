"""What the PostgreSQL store records besides documents: the audit log with its citation
rows, version collection, the shadow log, per-answer metrics and service API keys.

A mixin of ``PostgresStore`` (kept apart so neither module grows past a screenful of
concerns); every method has the SQLite store's meaning, tables from migration 0002.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from ..errors import InputError, MissingExtra, StoreError
from ..records import Citation
from . import ApiKey, Collected
from .rows import CITATION_FIELDS, SHADOW_FIELDS, citation_from_row

try:
    import psycopg
    from psycopg.rows import DictRow
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    raise MissingExtra("the PostgreSQL store", "postgres") from exc

__all__ = ["StoreRecords"]


class StoreRecords:
    """Audit log, gc, shadow log, metrics and keys over ``transaction``/``_rows``."""

    if TYPE_CHECKING:  # what PostgresStore provides
        location: str

        def transaction(
            self, *, lock: str | None = None
        ) -> AbstractContextManager[psycopg.Cursor[DictRow]]: ...

        def _rows(self, query: str, params: Sequence[Any] = ()) -> list[DictRow]: ...

    # -- the audit log -------------------------------------------------------------

    def record_answer(
        self,
        trace_id: str,
        created_at: str,
        payload: dict[str, Any],
        citations: Sequence[tuple[int, Citation]] = (),
    ) -> None:
        # JSON as text, not jsonb: jsonb rejects \u0000 and reorders keys.
        with self.transaction() as cur:
            cur.execute(
                "INSERT INTO answers VALUES (%s, %s, %s) ON CONFLICT (trace_id) DO UPDATE"
                " SET created_at = excluded.created_at, payload = excluded.payload",
                (trace_id, created_at, json.dumps(payload, ensure_ascii=False)),
            )
            cur.execute("DELETE FROM citations WHERE trace_id = %s", (trace_id,))
            if citations:
                cur.executemany(
                    "INSERT INTO citations (trace_id, seq, sentence, doc_id, version, start,"
                    ' "end", quote, quote_hash, passage_id, source, title, license, fetched_at,'
                    " kind, region, process) VALUES (" + ",".join(["%s"] * 17) + ")",
                    [
                        (trace_id, seq, n, *(getattr(c, name) for name in CITATION_FIELDS))
                        for seq, (n, c) in enumerate(citations)
                    ],
                )

    def answer_citations(self, trace_id: str) -> list[tuple[int, Citation]]:
        rows = self._rows("SELECT * FROM citations WHERE trace_id = %s ORDER BY seq", (trace_id,))
        return [(row["sentence"], citation_from_row(row)) for row in rows]

    def recorded_citations(self) -> list[tuple[str, int, Citation]]:
        rows = self._rows("SELECT * FROM citations ORDER BY trace_id, seq")
        return [(row["trace_id"], row["sentence"], citation_from_row(row)) for row in rows]

    def integrity_problems(self) -> list[tuple[str, str, str]]:
        # The tsvector column is generated from the text, so the search index cannot
        # drift from it; what can go wrong is rows that belong to nothing.
        found: list[tuple[str, str, str]] = []
        for row in self._rows(
            "SELECT p.doc_id, count(*) AS n FROM passages p LEFT JOIN documents d"
            " ON d.doc_id = p.doc_id WHERE d.doc_id IS NULL GROUP BY p.doc_id LIMIT 100"
        ):
            found.append(("passages", row["doc_id"],
                          f"{row['n']} passage(s) of a document that is not stored"))
        for row in self._rows(
            "SELECT p.doc_id, p.version, count(*) AS n FROM passages p JOIN documents d"
            " ON d.doc_id = p.doc_id WHERE p.version <> d.current_version"
            " GROUP BY p.doc_id, p.version LIMIT 100"
        ):
            found.append(("passages", row["doc_id"], f"{row['n']} passage(s) of version "
                          f"{row['version']}, which is not current, are searchable"))
        for row in self._rows(
            "SELECT v.doc_id, count(*) AS n FROM versions v LEFT JOIN documents d"
            " ON d.doc_id = v.doc_id WHERE d.doc_id IS NULL GROUP BY v.doc_id LIMIT 100"
        ):
            found.append(("version", row["doc_id"],
                          f"{row['n']} version(s) of a document that is not stored"))
        for row in self._rows(
            "SELECT DISTINCT c.trace_id FROM citations c LEFT JOIN answers a"
            " ON a.trace_id = c.trace_id WHERE a.trace_id IS NULL LIMIT 100"
        ):
            found.append(("citations", row["trace_id"], "citations recorded without their answer"))
        return found

    def collect_versions(self, *, dry_run: bool = False) -> Collected:
        with self.transaction() as cur:
            # Writers wait while versions are chosen and deleted (as SQLite's one write
            # lock makes them): no put makes a chosen old version current again, and no
            # answer cites one, between the choice and the delete.
            cur.execute("LOCK TABLE documents, citations IN SHARE ROW EXCLUSIVE MODE")
            cur.execute(
                "SELECT v.doc_id, v.version, octet_length(v.text) AS size,"
                " EXISTS (SELECT 1 FROM citations c"
                "         WHERE c.doc_id = v.doc_id AND c.version = v.version) AS cited"
                " FROM versions v LEFT JOIN documents d ON d.doc_id = v.doc_id"
                " WHERE d.current_version IS NULL OR v.version <> d.current_version"
            )
            rows = cur.fetchall()
            unused = [(r["doc_id"], r["version"]) for r in rows if not r["cited"]]
            if unused and not dry_run:
                cur.executemany("DELETE FROM versions WHERE doc_id = %s AND version = %s", unused)
        return Collected(
            removed=len(unused),
            freed_bytes=sum(int(r["size"]) for r in rows if not r["cited"]),
            kept_cited=sum(1 for r in rows if r["cited"]),
        )

    # -- the shadow log and monitoring ---------------------------------------------

    def record_shadow(self, entry: dict[str, Any]) -> None:
        missing = [f for f in SHADOW_FIELDS if not isinstance(entry.get(f), str)]
        if missing:
            raise StoreError(f"shadow-log entry lacks {', '.join(missing)}")
        with self.transaction() as cur:
            cur.execute(
                f"INSERT INTO shadow_log ({', '.join(SHADOW_FIELDS)})"
                f" VALUES ({','.join(['%s'] * len(SHADOW_FIELDS))})",
                tuple(entry[f] for f in SHADOW_FIELDS),
            )

    def shadow_entries(self, *, limit: int | None = None) -> list[dict[str, Any]]:
        query = f"SELECT id, {', '.join(SHADOW_FIELDS)} FROM shadow_log ORDER BY id"
        params: list[Any] = []
        if limit is not None:
            query = f"SELECT * FROM ({query} DESC LIMIT %s) AS last ORDER BY id"
            params.append(limit)
        return [dict(row) for row in self._rows(query, params)]

    def record_metrics(self, trace_id: str, created_at: str, metrics: dict[str, Any]) -> None:
        with self.transaction() as cur:
            cur.execute(
                "INSERT INTO answer_metrics VALUES (%s, %s, %s) ON CONFLICT (trace_id) DO UPDATE"
                " SET created_at = excluded.created_at, metrics = excluded.metrics",
                (trace_id, created_at, json.dumps(metrics)),
            )

    def metric_records(
        self, *, since: str | None = None, until: str | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        query = "SELECT created_at, metrics FROM answer_metrics WHERE true"
        params: list[str] = []
        if since is not None:
            query += " AND created_at >= %s"
            params.append(since)
        if until is not None:
            query += " AND created_at < %s"
            params.append(until)
        # COLLATE "C": byte order, as SQLite compares (fixed-width UTC times sort so).
        rows = self._rows(query + ' ORDER BY created_at COLLATE "C", trace_id COLLATE "C"', params)
        return [(row["created_at"], json.loads(row["metrics"])) for row in rows]

    # -- service API keys (only their SHA-256 is stored) ---------------------------

    def add_key(self, name: str, principals: Sequence[str], key_hash: str) -> None:
        created = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        try:
            with self.transaction() as cur:
                cur.execute(
                    "INSERT INTO keys VALUES (%s, %s, %s, %s)",
                    (name, key_hash, list(principals), created),
                )
        except StoreError as exc:
            if isinstance(exc.__cause__, psycopg.errors.UniqueViolation):
                raise InputError(f"an API key named {name!r} already exists",
                                 hint="revoke it first or choose another name") from exc
            raise

    def keys(self) -> list[ApiKey]:
        rows = self._rows('SELECT name, principals, created_at FROM keys ORDER BY name COLLATE "C"')
        return [ApiKey(r["name"], tuple(r["principals"]), r["created_at"]) for r in rows]

    def revoke_key(self, name: str) -> bool:
        with self.transaction() as cur:
            cur.execute("DELETE FROM keys WHERE name = %s", (name,))
            return cur.rowcount > 0

    def principals_for(self, key_hash: str) -> tuple[str, ...] | None:
        rows = self._rows("SELECT principals FROM keys WHERE key_hash = %s", (key_hash,))
        return tuple(rows[0]["principals"]) if rows else None
