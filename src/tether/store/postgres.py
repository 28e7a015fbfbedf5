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
    "exhaustive_sql",
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


def _groups(terms: int) -> list[int]:
    """How many question terms each term group holds: one each, up to
    MAX_TERM_GROUPS; terms past that share the last group (one frequency, one weight),
    keeping a statement's width bounded (PostgreSQL allows 1,664 columns) for however
    long a question is."""
    if terms < 1:
        raise ValueError("search_sql needs at least one term")
    sizes = [1] * min(terms, MAX_TERM_GROUPS)
    sizes[-1] += terms - len(sizes)
    return sizes


def _queries(sizes: Sequence[int], language: str) -> sql.Composed:
    """``q0, q1, …``: one tsquery per term group, every term a bound parameter."""
    one = sql.SQL("plainto_tsquery({}::regconfig, %s)").format(sql.Literal(language))
    return sql.SQL(", ").join(
        sql.SQL("{} AS q{}").format(sql.SQL(" || ").join([one] * size), sql.SQL(str(i)))
        for i, size in enumerate(sizes)
    )


def _each(groups: Sequence[int], template: str, sep: str = ", ") -> sql.Composed:
    return sql.SQL(sep).join(sql.SQL(template).format(sql.SQL(str(i))) for i in groups)


def exhaustive_sql(terms: int, language: str, *, acl: bool) -> sql.Composed:
    """The exhaustive ranking query for ``terms`` question terms, each one a bound
    parameter (as ``plainto_tsquery``), so user text never reaches tsquery syntax.
    Parameters: the terms, then the principals array when ``acl``, then the limit.

    One pass over the matching passages computes each term's ts_rank and whether it
    matched; counting those gives each term's document frequency (over every match,
    readable or not, so scores do not depend on the caller); only the top rows are
    joined to passages' text and documents. ``search_sql`` ranks the same way with less
    work; this one is its reference (the bench compares the two).
    """
    groups = range(len(sizes := _groups(terms)))

    def each(template: str, sep: str = ", ") -> sql.Composed:
        return _each(groups, template, sep)

    return sql.SQL(
        "WITH q AS MATERIALIZED (SELECT {queries}),"
        " m AS MATERIALIZED (SELECT p.id, {allowed} AS allowed, {per_term}"
        " FROM passages p, q WHERE p.tsv @@ ({any_term})),"
        " df AS MATERIALIZED (SELECT count(*)::float8 AS matched, {df} FROM m),"
        " n AS MATERIALIZED (SELECT greatest(df.matched, " + _PASSAGE_ESTIMATE + ") AS n FROM df),"
        " w AS MATERIALIZED (SELECT {idf} FROM df, n),"
        " top AS (SELECT m.id, {score} AS score FROM m, w WHERE m.allowed"
        " ORDER BY score DESC, m.id LIMIT %s)" + _TOP_ROWS
    ).format(
        kept=sql.SQL(""),
        kept_from=sql.SQL(""),
        queries=_queries(sizes, language),
        allowed=sql.SQL("p.acl && %s::text[]") if acl else sql.SQL("true"),
        per_term=each("ts_rank(p.tsv, q.q{0}) AS r{0}, p.tsv @@ q.q{0} AS h{0}"),
        any_term=each("q.q{}", " || "),
        df=each("count(*) FILTER (WHERE m.h{0})::float8 AS d{0}"),
        idf=each("ln(1 + (n.n - df.d{0} + 0.5) / (df.d{0} + 0.5)) AS w{0}"),
        score=each("w.w{0} * m.r{0}", " + "),
    )


# n: the planner's and the statistics' passage counts, never below the matches.
_PASSAGE_ESTIMATE = (
    "(SELECT greatest(c.reltuples, pg_stat_get_live_tuples(c.oid))::float8 FROM pg_class c"
    " WHERE c.oid = 'passages'::regclass)"
)
# The top rows joined to their text and documents, best first.
_TOP_ROWS = (
    " SELECT " + _PASSAGE_COLUMNS + ", d.source, d.title, d.license, d.fetched_at,"
    " d.media_type, d.acl, d.kind AS doc_kind, d.process AS doc_process, top.score{kept}"
    " FROM top JOIN passages p ON p.id = top.id JOIN documents d ON d.doc_id = p.doc_id{kept_from}"
    " ORDER BY top.score DESC, top.id"
)


# A term in at least this share of the passages (by the planner's statistics) takes
# its document frequency from them: counting it exactly reads as many heap pages as
# ranking it would (PostgreSQL 15.9+ no longer skips all-visible pages in a bitmap
# count), and BM25 weighs it least. Rarer terms are counted exactly.
COMMON_SHARE = 0.01

# ts_rank (normalization 0) of a one-lexeme query is below the weight of the lexeme's
# positions, 0.1 for the default weight D that to_tsvector gives: it sums 0.1/j² over
# the j-th position (at most 256) and divides by a constant just above pi²/6. A
# passage without the lexeme ranks 0 on it. A query of several lexemes has no such
# bound (ts_rank of 'a' & 'b' exceeds 0.1, and a passage with only 'a' ranks above 0).
TS_RANK_BOUND = 0.1


def search_sql(terms: int, language: str, *, acl: bool) -> sql.Composed:
    """The ranking query ``PostgresStore.search`` runs (ADR 0026): ``exhaustive_sql``'s
    scores, computed only for passages that can reach the top rows. Each term is a
    bound parameter (as ``plainto_tsquery``), so user text never reaches tsquery
    syntax. Parameters: the terms, then (principals when ``acl``, limit) twice, then
    the limit again.

    1. Weights: a term group's document frequency ``d`` is a count of its GIN matches,
       or, for a one-lexeme group in at least ``COMMON_SHARE`` of the passages by the
       column's statistics (ANALYZE's most common elements), that share of the
       passage estimate ``n`` (never below any ``d``).
    2. A floor: the passages matching the rarest group are ranked on every group;
       the ``limit``-th best readable score is one the final top rows reach.
    3. The lightest one-lexeme groups whose summed bounds (weight × TS_RANK_BOUND)
       stay at or below the floor are left out of the match: a passage matching only
       those scores strictly below every final top row. Nothing is left out when a
       group has several lexemes (no bound) or fewer than ``limit`` readable
       passages match the rarest group (no floor).
    4. The passages matching any group still in are ranked; the top rows are joined to
       their text and documents.
    """
    groups = range(len(sizes := _groups(terms)))

    def each(template: str, sep: str = ", ") -> sql.Composed:
        return _each(groups, template, sep)

    common = sql.Literal(COMMON_SHARE)
    allowed = sql.SQL(" AND p.acl && %s::text[]") if acl else sql.SQL("")
    score = each("w.w{0} * ts_rank(p.tsv, q.q{0})", " + ")
    return sql.SQL(
        "WITH q AS MATERIALIZED (SELECT {queries}),"
        " s AS MATERIALIZED (SELECT " + _PASSAGE_ESTIMATE + " AS n, st.most_common_elems::text::text[]"
        " AS elems, st.most_common_elem_freqs AS freqs FROM (SELECT 1) one LEFT JOIN pg_stats st"
        " ON st.schemaname = current_schema() AND st.tablename = 'passages' AND st.attname = 'tsv'),"
        " f AS MATERIALIZED (SELECT {share} FROM q, s),"
        " df AS MATERIALIZED (SELECT {df} FROM q, s, f),"
        " n AS MATERIALIZED (SELECT greatest(s.n, {frequencies}) AS n FROM s, df),"
        " w AS MATERIALIZED (SELECT {idf} FROM df, n),"
        " g AS MATERIALIZED (SELECT t.i, t.w, t.k, t.d FROM df, w, unnest(ARRAY[{numbers}]::int[],"
        " ARRAY[{weights}]::float8[], ARRAY[{nodes}]::int[], ARRAY[{frequencies}]::float8[]) AS t(i, w, k, d)),"
        " rarest AS MATERIALIZED (SELECT g.i FROM g WHERE g.k > 0 AND g.d > 0 ORDER BY g.d, g.i LIMIT 1),"
        " a AS MATERIALIZED (SELECT {score} AS score FROM q, w, rarest, passages p"
        " WHERE p.tsv @@ (ARRAY[{all_queries}])[rarest.i + 1]{allowed} ORDER BY score DESC LIMIT %s),"
        " fl AS MATERIALIZED (SELECT CASE WHEN count(*) = %s AND NOT EXISTS (SELECT 1 FROM g WHERE g.k > 1)"
        " THEN min(a.score) END AS floor FROM a),"
        " kept AS MATERIALIZED (SELECT coalesce(array_agg(g.i), '{{}}') AS i FROM g, fl"
        " WHERE g.k > 0 AND g.d > 0 AND (fl.floor IS NULL OR g.i = (SELECT rarest.i FROM rarest)"
        " OR {bound} * (SELECT sum(x.w) FROM g x WHERE x.k > 0 AND x.d > 0 AND (x.w, x.i) <= (g.w, g.i))"
        " > fl.floor)),"
        " kq AS MATERIALIZED (SELECT {kept_queries} AS kq FROM q, kept),"
        " top AS (SELECT p.id, {score} AS score FROM q, w, kq, passages p"
        " WHERE p.tsv @@ kq.kq{allowed} ORDER BY score DESC, p.id LIMIT %s)" + _TOP_ROWS
    ).format(
        # which term groups the final ranking matched on (tests show what was left out)
        kept=sql.SQL(", kept.i AS ranked_groups"),
        kept_from=sql.SQL(" CROSS JOIN kept"),
        queries=_queries(sizes, language),
        share=each("CASE WHEN numnode(q.q{0}) = 1 THEN s.freqs[array_position(s.elems,"
                   " (tsvector_to_array(q.q{0}::text::tsvector))[1])] END AS f{0}"),
        df=sql.SQL(", ").join(
            sql.SQL(
                "(CASE WHEN f.f{i} >= {common} THEN round(f.f{i} * s.n)"
                " ELSE (SELECT count(*) FROM passages p WHERE p.tsv @@ q.q{i}) END)::float8 AS d{i},"
                " numnode(q.q{i}) AS k{i}"
            ).format(i=sql.SQL(str(i)), common=common)
            for i in groups
        ),
        frequencies=each("df.d{}"),
        idf=each("ln(1 + (n.n - df.d{0} + 0.5) / (df.d{0} + 0.5)) AS w{0}"),
        numbers=each("{}"),
        weights=each("w.w{}"),
        nodes=each("df.k{}"),
        score=score,
        all_queries=each("q.q{}"),
        allowed=allowed,
        bound=sql.Literal(TS_RANK_BOUND),
        kept_queries=each(
            "CASE WHEN {0} = ANY(kept.i) THEN q.q{0} ELSE plainto_tsquery('simple', '') END", " || "
        ),
    )


def _search_args(terms: Sequence[str], principals: Sequence[str] | None, limit: int) -> list[Any]:
    readable: list[Any] = [list(principals)] if principals is not None else []
    return [*terms, *readable, limit, limit, *readable, limit]


# -- the store ----------------------------------------------------------------------


def _configure(conn: psycopg.Connection[Any]) -> None:
    # No JIT: the search statement's estimates pass jit_above_cost once a store holds
    # ~1M passages, and compiling its ~150 expressions took 380 ms of a 1 s search at
    # 1M; no statement of the store runs long enough to win that back.
    conn.execute("SET jit = off")
    conn.commit()


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
            configure=_configure,
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

    def _replace_passages(
        self, cur: Any, doc_id: str, passages: Sequence[Passage], *, stored: bool = True
    ) -> None:
        if stored:
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
        return self._search(terms, limit=limit, principals=principals)

    def _search(
        self,
        terms: Sequence[str],
        *,
        limit: int,
        principals: Sequence[str] | None = None,
        exhaustive: bool = False,
    ) -> list[Hit]:
        """``search``; ``exhaustive`` ranks every match instead (the reference)."""
        kept = [t for t in terms if t.strip()]
        if not kept or limit < 1:
            return []
        acl = principals is not None
        if exhaustive:
            readable: list[Any] = [list(principals)] if principals is not None else []
            rows = self._rows(exhaustive_sql(len(kept), self.language, acl=acl), [*kept, *readable, limit])
        else:
            with self.transaction() as cur:
                # The plan does not depend on the terms (every step reads them through a
                # CTE), but PostgreSQL would plan this statement afresh for each search
                # (a custom plan: 6 ms of a 10 ms search at 100k passages).
                cur.execute("SET LOCAL plan_cache_mode = force_generic_plan")
                cur.execute(search_sql(len(kept), self.language, acl=acl), _search_args(kept, principals, limit))
                rows = cur.fetchall()
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
