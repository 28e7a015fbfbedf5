"""What both SQL backends record besides documents, written once: the audit log with
its citation rows, the shadow log, per-answer metrics, meta and service API keys; and
the checks for rows that belong to nothing, which both backends run.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InputError, StoreError
from ..records import Citation
from .dialect import Dialect
from .protocols import ApiKey
from .rows import CITATION_FIELDS, SHADOW_FIELDS, citation_from_row, listed
from .sql_documents import SQLBase, upsert

__all__ = ["SQLRecords", "orphan_problems"]

Found = list[tuple[str, str, str]]
# Rows listed per check; a store broken everywhere is summarised, not dumped.
LIMIT = 50

_INSERT_CITATION = (
    'INSERT INTO citations (trace_id, seq, sentence, doc_id, version, start, "end", quote,'
    " quote_hash, passage_id, source, title, license, fetched_at, kind, region, process)"
    " VALUES (" + ",".join("?" * 17) + ")"
)


class SQLRecords(SQLBase):
    """``AuditLog``, ``ShadowLog``, ``MetricsStore``, ``MetaStore`` and ``KeyStore``."""

    # -- the audit log -------------------------------------------------------------

    def record_answer(
        self, trace_id: str, created_at: str, payload: dict[str, Any],
        citations: Sequence[tuple[int, Citation]] = (),
    ) -> None:
        q = self.dialect.q
        # JSON as text, not PostgreSQL's jsonb: jsonb rejects \u0000 and reorders keys.
        with self.transaction() as cur:
            cur.execute(q(upsert("answers", ("trace_id", "created_at", "payload"), "trace_id")),
                        (trace_id, created_at, json.dumps(payload, ensure_ascii=False)))
            cur.execute(q("DELETE FROM citations WHERE trace_id = ?"), (trace_id,))
            if citations:
                cur.executemany(q(_INSERT_CITATION), [
                    (trace_id, seq, n, *(getattr(c, name) for name in CITATION_FIELDS))
                    for seq, (n, c) in enumerate(citations)
                ])

    def answer_record(self, trace_id: str) -> dict[str, Any] | None:
        rows = self._select("SELECT payload FROM answers WHERE trace_id = ?", (trace_id,))
        return json.loads(rows[0]["payload"]) if rows else None

    def answer_citations(self, trace_id: str) -> list[tuple[int, Citation]]:
        rows = self._select("SELECT * FROM citations WHERE trace_id = ? ORDER BY seq", (trace_id,))
        return [(row["sentence"], citation_from_row(row)) for row in rows]

    def recorded_citations(self) -> list[tuple[str, int, Citation]]:
        rows = self._select("SELECT * FROM citations ORDER BY trace_id, seq")
        return [(row["trace_id"], row["sentence"], citation_from_row(row)) for row in rows]

    # -- the shadow log and monitoring -----------------------------------------------

    def record_shadow(self, entry: dict[str, Any]) -> None:
        missing = [f for f in SHADOW_FIELDS if not isinstance(entry.get(f), str)]
        if missing:
            raise StoreError(f"shadow-log entry lacks {', '.join(missing)}")
        statement = (f"INSERT INTO shadow_log ({', '.join(SHADOW_FIELDS)})"
                     f" VALUES ({','.join('?' * len(SHADOW_FIELDS))})")
        with self.transaction() as cur:
            cur.execute(self.dialect.q(statement), tuple(entry[f] for f in SHADOW_FIELDS))

    def shadow_entries(self, *, limit: int | None = None) -> list[dict[str, Any]]:
        statement = f"SELECT id, {', '.join(SHADOW_FIELDS)} FROM shadow_log ORDER BY id"
        params: list[Any] = []
        if limit is not None:
            statement = f"SELECT * FROM ({statement} DESC LIMIT ?) AS last ORDER BY id"
            params.append(limit)
        return [dict(row) for row in self._select(statement, params)]

    def record_metrics(self, trace_id: str, created_at: str, metrics: dict[str, Any]) -> None:
        statement = upsert("answer_metrics", ("trace_id", "created_at", "metrics"), "trace_id")
        with self.transaction() as cur:
            cur.execute(self.dialect.q(statement), (trace_id, created_at, json.dumps(metrics)))

    def metric_records(
        self, *, since: str | None = None, until: str | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        statement = "SELECT created_at, metrics FROM answer_metrics WHERE 1 = 1"
        params: list[str] = []
        if since is not None:
            statement += " AND created_at >= ?"
            params.append(since)
        if until is not None:
            statement += " AND created_at < ?"
            params.append(until)
        # Byte order (fixed-width UTC times sort so), ties by trace id.
        order = self.dialect.text_order
        rows = self._select(statement + f" ORDER BY created_at{order}, trace_id{order}", params)
        return [(row["created_at"], json.loads(row["metrics"])) for row in rows]

    # -- meta ------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._select("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0]["value"]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as cur:
            cur.execute(self.dialect.q(upsert("meta", ("key", "value"), "key")), (key, value))

    # -- service API keys (only their SHA-256 is stored) ---------------------------

    def add_key(self, name: str, principals: Sequence[str], key_hash: str) -> None:
        created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        try:
            with self.transaction() as cur:
                cur.execute(self.dialect.q("INSERT INTO keys VALUES (?, ?, ?, ?)"),
                            (name, key_hash, self.dialect.list_value(principals), created))
        except Exception as exc:
            if self.dialect.unique_violation(exc):
                raise InputError(f"an API key named {name!r} already exists",
                                 hint="revoke it first or choose another name") from exc
            raise

    def keys(self) -> list[ApiKey]:
        rows = self._select(
            f"SELECT name, principals, created_at FROM keys ORDER BY name{self.dialect.text_order}"
        )
        return [ApiKey(r["name"], listed(r["principals"]), r["created_at"]) for r in rows]

    def revoke_key(self, name: str) -> bool:
        with self.transaction() as cur:
            return bool(cur.execute(self.dialect.q("DELETE FROM keys WHERE name = ?"), (name,)).rowcount > 0)

    def principals_for(self, key_hash: str) -> tuple[str, ...] | None:
        rows = self._select("SELECT principals FROM keys WHERE key_hash = ?", (key_hash,))
        return listed(rows[0]["principals"]) if rows else None

    def key_for(self, key_hash: str) -> ApiKey | None:
        rows = self._select("SELECT name, principals, created_at FROM keys WHERE key_hash = ?",
                            (key_hash,))
        return ApiKey(rows[0]["name"], listed(rows[0]["principals"]), rows[0]["created_at"]) if rows else None


# Rows that belong to nothing: (query, what a row of it means). Each query returns
# ``subject`` and ``n`` (and ``version`` where the message names one).
_ORPHANS: tuple[tuple[str, str, Callable[[Any], str]], ...] = (
    ("passages",
     ("SELECT p.doc_id AS subject, count(*) AS n FROM passages p LEFT JOIN documents d"
      " ON d.doc_id = p.doc_id WHERE d.doc_id IS NULL GROUP BY p.doc_id LIMIT ?"),
     lambda r: f"{r['n']} passage(s) of a document that is not stored"),
    ("passages",
     ("SELECT p.doc_id AS subject, p.version, count(*) AS n FROM passages p JOIN documents d"
      " ON d.doc_id = p.doc_id WHERE p.version <> d.current_version"
      " GROUP BY p.doc_id, p.version LIMIT ?"),
     lambda r: f"{r['n']} passage(s) of version {r['version']}, which is not current, are searchable"),
    ("version",
     ("SELECT v.doc_id AS subject, count(*) AS n FROM versions v LEFT JOIN documents d"
      " ON d.doc_id = v.doc_id WHERE d.doc_id IS NULL GROUP BY v.doc_id LIMIT ?"),
     lambda r: f"{r['n']} version(s) of a document that is not stored"),
    ("citations",
     ("SELECT DISTINCT c.trace_id AS subject FROM citations c LEFT JOIN answers a"
      " ON a.trace_id = c.trace_id WHERE a.trace_id IS NULL LIMIT ?"),
     lambda r: "citations recorded without their answer"),
)


def orphan_problems(dialect: Dialect, rows: Callable[[str, Sequence[Any]], list[Any]]) -> Found:
    """Passages, versions and citations that belong to nothing, and searchable
    passages of old versions, as ``(check, subject, message)``."""
    found: Found = []
    for check, statement, message in _ORPHANS:
        found += [(check, r["subject"], message(r)) for r in rows(dialect.q(statement), (LIMIT,))]
    return found
