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

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import MissingExtra, StoreError
from ..records import Hit, Passage

try:
    import psycopg
    from psycopg import sql
    from psycopg.rows import DictRow, dict_row
    from psycopg_pool import ConnectionPool
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    raise MissingExtra("the PostgreSQL store", "postgres") from exc

from .dialect import POSTGRESQL
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
from .rows import document_from_row, passage_from_row
from .sql_documents import PASSAGE_COLUMNS, SQLDocuments, passage_values
from .sql_files import SQLFiles
from .sql_records import SQLRecords, orphan_problems

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

_PASSAGE_COLUMNS = ", ".join(f'p."{c}"' if c == "end" else f"p.{c}" for c in PASSAGE_COLUMNS)
# COPY: one round trip for a whole document instead of one per passage.
_COPY_PASSAGES = "COPY passages ({}, acl) FROM STDIN".format(
    ", ".join(f'"{c}"' for c in PASSAGE_COLUMNS)
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


class PostgresStore(SQLDocuments, SQLRecords, SQLFiles):
    """The ``Store`` protocol on PostgreSQL, through a psycopg connection pool: the
    shared SQL in the ``POSTGRESQL`` dialect, plus what only PostgreSQL does (the
    pool, per-document advisory locks, COPY, tsvector ranking)."""

    dialect = POSTGRESQL

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

    def _rows(self, query: Any, params: Sequence[Any] = ()) -> list[Any]:
        with self.transaction() as cur:
            cur.execute(query, params)
            return cur.fetchall()

    # -- writing -----------------------------------------------------------------

    def _replace_passages(self, cur: Any, doc_id: str, passages: Sequence[Passage]) -> None:
        cur.execute("DELETE FROM passages WHERE doc_id = %s", (doc_id,))
        if not passages:
            return
        cur.execute("SELECT acl FROM documents WHERE doc_id = %s", (doc_id,))
        row = cur.fetchone()
        if row is None:
            raise StoreError(f"no document {doc_id} to index passages for")
        acl = list(row["acl"])
        with cur.copy(_COPY_PASSAGES) as copy:
            copy.set_types(
                ["text", "text", "text", "int4", "int4", "text", "text", "text", "text[]", "text",
                 "text[]"]
            )
            for p in passages:
                copy.write_row((*passage_values(POSTGRESQL, p), acl))

    # -- ranking -----------------------------------------------------------------

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

    def integrity_problems(self) -> list[tuple[str, str, str]]:
        # The tsvector column is generated from the text, so the search index cannot
        # drift from it; what can go wrong is rows that belong to nothing.
        return orphan_problems(POSTGRESQL, self._rows)

    def close(self) -> None:
        self._pool.close()
