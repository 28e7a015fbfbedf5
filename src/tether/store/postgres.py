"""Shared store on PostgreSQL: the same tables and meaning as the SQLite store, for
several processes or hosts at once.

Full-text search runs on a generated ``tsvector`` column with a GIN index; the text
search configuration (``search_language``) is fixed when the schema is created and
recorded in ``meta``. Each write is one transaction holding a per-document advisory
lock, so parallel writers of the same document are serialised and the document ends
on exactly one current version whose passages are the only ones indexed. Schema
migrations (``migrations/NNNN_*.sql``) are applied on first use, under a lock, so
several processes starting together migrate once.

>>> store = PostgresStore("postgresql://localhost/tether")   # doctest: +SKIP
>>> store.search(["methanol"], limit=5)                      # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import MissingExtra, StoreError
from ..records import Document, Hit, Passage, Version

try:
    import psycopg
    from psycopg import sql
    from psycopg.rows import DictRow, dict_row
    from psycopg_pool import ConnectionPool
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    raise MissingExtra("the PostgreSQL store", "postgres") from exc

from .postgres_records import StoreRecords
from .postgres_schema import (
    SCHEMA_VERSION,
    MigrationReport,
    connect,
    migrate,
    migration_status,
    one_line,
    prepare,
    redact,
    stderr,
)
from .rows import document_from_row, passage_from_row, version_from_row

__all__ = [
    "SCHEMA_VERSION",
    "MigrationReport",
    "PostgresStore",
    "migrate",
    "migration_status",
    "redact",
    "search_sql",
]


# BM25-like ranking in SQL: each question term's ts_rank (a saturating term
# frequency) weighted by its inverse document frequency, counted exactly over the
# passages that match the question (the same bitmap scan that ranking needs anyway),
# against an estimate of the number of passages. Scores differ from FTS5's BM25 in
# scale and shape, hence a scorer of its own: probe thresholds never carry over.
SCORER = "postgres-tsvector-idf-ts_rank"

MAX_TERM_GROUPS = 32

_PASSAGE_COLUMNS = (
    'p.passage_id, p.doc_id, p.version, p.start, p."end", p.kind, p.region, p.process,'
    " p.flags, p.text"
)


def search_sql(terms: int, language: str, *, acl: bool) -> sql.Composed:
    """The ranking query for ``terms`` question terms, each one a bound parameter (as
    ``plainto_tsquery``), so user text never reaches tsquery syntax. Parameters: the
    terms, then the principals array when ``acl``, then the limit.

    One pass over the matching passages computes each term's ts_rank and whether it
    matched; counting those gives each term's document frequency (over every match,
    readable or not, so scores do not depend on the caller); only the top rows are
    joined to passages' text and documents.
    """
    if terms < 1:
        raise ValueError("search_sql needs at least one term")
    # Each term is a group of its own, up to MAX_TERM_GROUPS; terms past that share
    # the last group (one frequency, one weight), keeping the statement's width bounded
    # (PostgreSQL allows 1,664 columns) for however long a question is.
    sizes = [1] * min(terms, MAX_TERM_GROUPS)
    sizes[-1] += terms - len(sizes)
    ids = [sql.SQL(str(i)) for i in range(len(sizes))]

    def each(template: str, sep: str = ", ") -> sql.Composed:
        return sql.SQL(sep).join(sql.SQL(template).format(i) for i in ids)

    one = sql.SQL("plainto_tsquery({}::regconfig, %s)").format(sql.Literal(language))
    queries = sql.SQL(", ").join(
        sql.SQL("{} AS q{}").format(sql.SQL(" || ").join([one] * size), i)
        for i, size in zip(ids, sizes)
    )
    return sql.SQL(
        "WITH q AS MATERIALIZED (SELECT {queries}),"
        " m AS MATERIALIZED (SELECT p.id, {allowed} AS allowed, {per_term}"
        " FROM passages p, q WHERE p.tsv @@ ({any_term})),"
        " df AS MATERIALIZED (SELECT count(*)::float8 AS matched, {df} FROM m),"
        # n: the planner's and the statistics' passage counts, never below the matches.
        " n AS MATERIALIZED (SELECT greatest(df.matched, (SELECT"
        " greatest(c.reltuples, pg_stat_get_live_tuples(c.oid))::float8 FROM pg_class c"
        " WHERE c.oid = 'passages'::regclass)) AS n FROM df),"
        " w AS MATERIALIZED (SELECT {idf} FROM df, n),"
        " top AS (SELECT m.id, {score} AS score FROM m, w WHERE m.allowed"
        " ORDER BY score DESC, m.id LIMIT %s)"
        " SELECT " + _PASSAGE_COLUMNS + ", d.source, d.title, d.license, d.fetched_at,"
        " d.media_type, d.acl, d.kind AS doc_kind, d.process AS doc_process, top.score"
        " FROM top JOIN passages p ON p.id = top.id JOIN documents d ON d.doc_id = p.doc_id"
        " ORDER BY top.score DESC, top.id"
    ).format(
        queries=queries,
        allowed=sql.SQL("p.acl && %s::text[]") if acl else sql.SQL("true"),
        per_term=each("ts_rank(p.tsv, q.q{0}) AS r{0}, p.tsv @@ q.q{0} AS h{0}"),
        any_term=each("q.q{}", " || "),
        df=each("count(*) FILTER (WHERE m.h{0})::float8 AS d{0}"),
        idf=each("ln(1 + (n.n - df.d{0} + 0.5) / (df.d{0} + 0.5)) AS w{0}"),
        score=each("w.w{0} * m.r{0}", " + "),
    )


# -- the store ----------------------------------------------------------------------


class PostgresStore(StoreRecords):
    """The ``Store`` protocol on PostgreSQL, through a psycopg connection pool."""

    def __init__(
        self,
        url: str,
        *,
        create: bool = True,
        language: str = "english",
        pool_size: int = 8,
        notify: Callable[[str], None] = stderr,
    ) -> None:
        self.url = url
        self.location = redact(url)  # what messages show, like SQLite's file path
        self.language = language
        self.scorer = SCORER if language == "english" else f"{SCORER}:{language}"
        with connect(url) as conn:
            try:
                prepare(conn, self.location, create=create, language=language, reindex=False, notify=notify)
            except psycopg.Error as exc:
                raise StoreError(f"cannot open store {self.location}: {one_line(exc)}") from exc
        self._pool: ConnectionPool[psycopg.Connection[DictRow]] = ConnectionPool(
            url,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"row_factory": dict_row, "connect_timeout": 10},
            timeout=30.0,
            name="tether",
            open=True,
        )

    @contextmanager
    def transaction(self, *, lock: str | None = None) -> Iterator[psycopg.Cursor[DictRow]]:
        """One transaction on a pooled connection: committed on success, rolled back on
        any error. ``lock`` names a document whose writers must wait for this one."""
        try:
            with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
                if lock is not None:
                    cur.execute(
                        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (f"tether-doc:{lock}",)
                    )
                yield cur
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL store {self.location}: {one_line(exc)}") from exc

    def _rows(self, query: str | sql.Composable, params: Sequence[Any] = ()) -> list[DictRow]:
        with self.transaction() as cur:
            cur.execute(query, params)  # type: ignore[arg-type]
            return cur.fetchall()

    # -- writing -----------------------------------------------------------------

    def put(self, document: Document, version: Version, passages: Sequence[Passage]) -> str:
        with self.transaction(lock=document.doc_id) as cur:
            cur.execute("SELECT * FROM documents WHERE doc_id = %s", (document.doc_id,))
            row = cur.fetchone()
            # Same text and same metadata: nothing to do. Same text with new metadata
            # (a narrowed ACL, a corrected title) rewrites the document, and its passages
            # when what they carry changed (the ACL here, kind and process).
            same_text = row is not None and row["current_version"] == version.version
            old = document_from_row(row) if row is not None else None
            if same_text and old == document:
                return "unchanged"
            cur.execute(
                "INSERT INTO documents VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)"
                " ON CONFLICT (doc_id) DO UPDATE SET source = excluded.source,"
                " title = excluded.title, license = excluded.license,"
                " fetched_at = excluded.fetched_at, media_type = excluded.media_type,"
                " acl = excluded.acl, kind = excluded.kind, process = excluded.process,"
                " current_version = excluded.current_version",
                (
                    document.doc_id,
                    document.source,
                    document.title,
                    document.license,
                    document.fetched_at,
                    document.media_type,
                    list(document.acl),
                    document.kind,
                    document.process,
                    version.version,
                ),
            )
            cur.execute(
                "INSERT INTO versions VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                (
                    version.doc_id,
                    version.version,
                    version.text,
                    version.extractor,
                    version.created_at,
                    json.dumps([[r.start, r.end, r.label] for r in version.regions]),
                ),
            )
            if not same_text or old is None or (old.acl, old.kind, old.process) != (
                document.acl, document.kind, document.process
            ):
                self._replace_passages(cur, document.doc_id, passages)
            return "ingested" if row is None else "updated"

    def replace_passages(self, doc_id: str, passages: Sequence[Passage]) -> bool:
        """Re-segmentation: swap a document's indexed passages in one transaction.

        Refused (``False``, nothing written) when the passages are not of the current
        version any more, so a re-segmentation racing an ingest never indexes old text.
        """
        with self.transaction(lock=doc_id) as cur:
            cur.execute("SELECT current_version FROM documents WHERE doc_id = %s", (doc_id,))
            row = cur.fetchone()
            if row is None or any(
                p.version != row["current_version"] or p.doc_id != doc_id for p in passages
            ):
                return False
            self._replace_passages(cur, doc_id, passages)
            return True

    @staticmethod
    def _replace_passages(
        cur: psycopg.Cursor[DictRow], doc_id: str, passages: Sequence[Passage]
    ) -> None:
        cur.execute("DELETE FROM passages WHERE doc_id = %s", (doc_id,))
        if not passages:
            return
        cur.execute("SELECT acl FROM documents WHERE doc_id = %s", (doc_id,))
        row = cur.fetchone()
        if row is None:
            raise StoreError(f"no document {doc_id} to index passages for")
        acl = list(row["acl"])
        # COPY: one round trip for the whole document instead of one per passage.
        with cur.copy(
            'COPY passages (passage_id, doc_id, version, start, "end", kind, region, process,'
            " flags, text, acl) FROM STDIN"
        ) as copy:
            copy.set_types(
                ["text", "text", "text", "int4", "int4", "text", "text", "text", "text[]", "text",
                 "text[]"]
            )
            for p in passages:
                copy.write_row(
                    (p.passage_id, p.doc_id, p.version, p.start, p.end, p.kind, p.region,
                     p.process, list(p.flags), p.text, acl)
                )

    def delete_document(self, doc_id: str) -> bool:
        with self.transaction(lock=doc_id) as cur:
            cur.execute("DELETE FROM passages WHERE doc_id = %s", (doc_id,))
            cur.execute("DELETE FROM versions WHERE doc_id = %s", (doc_id,))
            cur.execute("DELETE FROM documents WHERE doc_id = %s", (doc_id,))
            return cur.rowcount > 0

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as cur:
            cur.execute(
                "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- reading -----------------------------------------------------------------

    def search(
        self, terms: Sequence[str], *, limit: int, principals: Sequence[str] | None = None
    ) -> list[Hit]:
        kept = [t for t in terms if t.strip()]
        if not kept:
            return []
        args: list[Any] = list(kept)
        if principals is not None:
            args.append(list(principals))
        args.append(limit)
        statement = search_sql(len(kept), self.language, acl=principals is not None)
        rows = self._rows(statement, args)
        return [
            Hit(passage_from_row(row), document_from_row(row, prefix="doc_"), float(row["score"]), rank)
            for rank, row in enumerate(rows)
        ]

    def document(self, doc_id: str) -> Document | None:
        rows = self._rows("SELECT * FROM documents WHERE doc_id = %s", (doc_id,))
        return document_from_row(rows[0]) if rows else None

    def documents(self) -> list[Document]:
        return [document_from_row(r) for r in self._rows("SELECT * FROM documents ORDER BY source")]

    def version(self, doc_id: str, version: str | None = None) -> Version | None:
        if version is None:
            rows = self._rows(
                "SELECT v.* FROM versions v JOIN documents d"
                " ON d.doc_id = v.doc_id AND d.current_version = v.version WHERE v.doc_id = %s",
                (doc_id,),
            )
        else:
            rows = self._rows(
                "SELECT * FROM versions WHERE doc_id = %s AND version = %s", (doc_id, version)
            )
        if not rows:
            return None
        row = rows[0]
        return version_from_row(row)

    def passages(self, doc_id: str, version: str) -> list[Passage]:
        rows = self._rows(
            "SELECT " + _PASSAGE_COLUMNS + " FROM passages p"
            " WHERE p.doc_id = %s AND p.version = %s ORDER BY p.start",
            (doc_id, version),
        )
        return [passage_from_row(r) for r in rows]

    def current_version(self, doc_id: str) -> str | None:
        rows = self._rows("SELECT current_version FROM documents WHERE doc_id = %s", (doc_id,))
        return str(rows[0]["current_version"]) if rows else None

    def version_slice(self, doc_id: str, version: str, start: int, end: int) -> str | None:
        # substr() counts characters (code points), like Python's str indexing.
        rows = self._rows(
            "SELECT substr(text, %s, %s) AS part FROM versions WHERE doc_id = %s AND version = %s",
            (start + 1, max(0, end - start), doc_id, version),
        )
        return str(rows[0]["part"]) if rows else None

    def covering_passages(self, doc_id: str, version: str, start: int, end: int) -> list[Passage]:
        rows = self._rows(
            "SELECT " + _PASSAGE_COLUMNS + " FROM passages p WHERE p.doc_id = %s"
            ' AND p.version = %s AND p.start < %s AND p."end" > %s ORDER BY p.start',
            (doc_id, version, end, start),
        )
        return [passage_from_row(r) for r in rows]

    def term_counts(
        self, words: Sequence[str], *, principals: Sequence[str] | None = None
    ) -> tuple[int, dict[str, int]]:
        """Readable passages, and how many contain each word: matched through the same
        ``plainto_tsquery`` over the same ``tsv`` column as ``search``, so a word stems
        and splits exactly as retrieval's does. Only current versions are indexed."""
        acl = sql.SQL(" AND p.acl && %s::text[]") if principals is not None else sql.SQL("")
        acl_params: list[Any] = [list(principals)] if principals is not None else []
        # One statement, so the total and the counts see the same snapshot; row 0 is
        # the total, row i the i-th word.
        query = sql.SQL(
            "SELECT 0::bigint AS i, count(*) AS n FROM passages p WHERE true{acl}"
            " UNION ALL SELECT w.i, (SELECT count(*) FROM passages p"
            " WHERE p.tsv @@ plainto_tsquery({language}::regconfig, w.word){acl})"
            " FROM unnest(%s::text[]) WITH ORDINALITY AS w(word, i)"
        ).format(language=sql.Literal(self.language), acl=acl)
        rows = self._rows(query, [*acl_params, *acl_params, list(words)])
        found = {int(r["i"]): int(r["n"]) for r in rows}
        return found[0], {word: found[i] for i, word in enumerate(words, start=1)}

    def answer_record(self, trace_id: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT payload FROM answers WHERE trace_id = %s", (trace_id,))
        return json.loads(rows[0]["payload"]) if rows else None

    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = %s", (key,))
        return str(rows[0]["value"]) if rows else None

    def counts(self) -> dict[str, int]:
        tables = ("documents", "versions", "passages", "answers", "citations")
        query = "SELECT " + ", ".join(f"(SELECT count(*) FROM {t}) AS {t}" for t in tables)
        row = self._rows(query)[0]
        return {t: int(row[t]) for t in tables}

    def close(self) -> None:
        self._pool.close()
