"""Schema migrations of the PostgreSQL store: applied once, in order, under a lock.

``prepare`` runs whenever a store opens (first use creates the schema, with a
message); ``migrate`` and ``migration_status`` back ``tether migrate``. The text
search configuration is fixed with the schema and recorded in ``meta``; ``migrate``
rebuilds the full-text column when the configured one differs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import MissingExtra, StoreError
from .dialect import POSTGRESQL
from .migrations import MIGRATIONS, Migration

try:
    import psycopg
    from psycopg import sql
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the environment
    raise MissingExtra("the PostgreSQL store", "postgres") from exc

__all__ = [
    "SCHEMA_VERSION",
    "MigrationReport",
    "connect",
    "migrate",
    "migration_status",
    "prepare",
    "redact",
]

SCHEMA_VERSION = MIGRATIONS[-1].version

# The tsvector expression of migration 0001 with the configuration as a parameter;
# ``_set_language`` rebuilds the column with it (a test pins the two as equal).
_TSV = "to_tsvector({language}::regconfig, regexp_replace(text, '([0-9])[.,](?=[0-9])', E'\\\\1 ', 'g'))"


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def stderr(message: str) -> None:
    print(f"tether: {message}", file=sys.stderr)


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """Where a schema stands: versions applied before, those applied now, the language."""

    location: str
    before: int
    applied: tuple[str, ...]
    pending: tuple[str, ...]
    language: str | None
    reindexed: bool = False

    @property
    def version(self) -> int:
        return self.before + len(self.applied)


def _current_schema(conn: psycopg.Connection[Any], location: str) -> str:
    row = conn.execute("SELECT current_schema()").fetchone()
    if row is None or row[0] is None:
        raise StoreError(
            f"{location}: the search_path names no existing schema",
            hint="CREATE SCHEMA it first, or drop options=-csearch_path from the URL",
        )
    return str(row[0])


def _applied(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
    return int(found[0]) if found else 0


def _language(conn: psycopg.Connection[Any]) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'search_language'").fetchone()
    return str(row[0]) if row else None


def _check_language(conn: psycopg.Connection[Any], language: str) -> None:
    if conn.execute("SELECT 1 FROM pg_ts_config WHERE cfgname = %s", (language,)).fetchone():
        return
    known = [r[0] for r in conn.execute("SELECT cfgname FROM pg_ts_config ORDER BY 1")]
    raise StoreError(
        f"PostgreSQL has no text search configuration {language!r}",
        hint="set search_language to one of: " + ", ".join(known),
    )


def _set_language(conn: psycopg.Connection[Any], language: str) -> None:
    """Rebuild the tsvector column and its index for another configuration."""
    tsv = sql.SQL(_TSV).format(language=sql.Literal(language))
    conn.execute("DROP INDEX IF EXISTS passages_tsv")
    conn.execute("ALTER TABLE passages DROP COLUMN tsv")
    conn.execute(
        sql.SQL("ALTER TABLE passages ADD COLUMN tsv tsvector GENERATED ALWAYS AS ({}) STORED").format(tsv)
    )
    conn.execute("CREATE INDEX passages_tsv ON passages USING gin (tsv)")
    conn.execute(
        "INSERT INTO meta VALUES ('search_language', %s)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (language,),
    )


def _apply(conn: psycopg.Connection[Any], migration: Migration, language: str) -> None:
    """One migration in its own transaction, recorded in ``schema_migrations``."""
    with conn.transaction():
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY,"
            " name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        conn.execute(sql.SQL(POSTGRESQL.render(migration.sql)).format(language=sql.Literal(language)))
        conn.execute(
            "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
            (migration.version, migration.name),
        )
        conn.execute(
            "INSERT INTO meta VALUES ('schema_version', %s)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(migration.version),),
        )


def prepare(
    conn: psycopg.Connection[Any],
    location: str,
    *,
    create: bool,
    language: str,
    reindex: bool,
    notify: Callable[[str], None],
) -> MigrationReport:
    """Apply pending migrations under a schema-wide advisory lock (autocommit ``conn``)."""
    schema = _current_schema(conn, location)
    conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (f"tether-migrate:{schema}",))
    try:
        before = _applied(conn)
        if before > SCHEMA_VERSION:
            raise StoreError(
                f"store {location} has schema {before}, newer than this Tether ({SCHEMA_VERSION})",
                hint="upgrade tether",
            )
        if before == 0 and not create:
            raise StoreError(
                f"no Tether schema in {location}",
                hint="create it with 'tether migrate --db URL', or ingest documents first",
            )
        pending = [m for m in MIGRATIONS if m.version > before]
        if pending:
            _check_language(conn, language)
            names = ", ".join(f"{m.version:04d}_{m.name}" for m in pending)
            notify(f"applying schema migrations to {location} (schema {schema}): {names}")
        for migration in pending:
            _apply(conn, migration, language)
        stored = _language(conn)
        reindexed = False
        if stored != language:
            if not reindex:
                raise StoreError(
                    f"store {location} is indexed for text search language {stored!r},"
                    f" but search_language is {language!r}",
                    hint=f"set search_language = {stored!r}, or rebuild the index:"
                    f" tether migrate --db {location}",
                )
            _check_language(conn, language)
            notify(f"rebuilding the full-text index of {location} for {language!r} (was {stored!r})")
            with conn.transaction():
                _set_language(conn, language)
            reindexed = True
        return MigrationReport(
            location=location,
            before=before,
            applied=tuple(f"{m.version:04d}_{m.name}" for m in pending),
            pending=(),
            language=language,
            reindexed=reindexed,
        )
    finally:
        conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (f"tether-migrate:{schema}",))


def connect(url: str) -> psycopg.Connection[Any]:
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to PostgreSQL at {redact(url)}: {one_line(exc)}") from exc


def migrate(
    url: str, *, language: str = "english", notify: Callable[[str], None] = stderr
) -> MigrationReport:
    """Bring the schema at ``url`` up to date (creating it if needed) and, if the
    configured language differs from the indexed one, rebuild the full-text index."""
    location = redact(url)
    with connect(url) as conn:
        try:
            return prepare(conn, location, create=True, language=language, reindex=True, notify=notify)
        except psycopg.Error as exc:
            raise StoreError(f"migrating {location} failed: {one_line(exc)}") from exc


def migration_status(url: str) -> MigrationReport:
    """What ``migrate`` would do, without doing it."""
    location = redact(url)
    with connect(url) as conn:
        try:
            _current_schema(conn, location)
            before = _applied(conn)
            language = _language(conn) if before else None
        except psycopg.Error as exc:
            raise StoreError(f"reading the schema of {location} failed: {one_line(exc)}") from exc
    pending = tuple(f"{m.version:04d}_{m.name}" for m in MIGRATIONS if m.version > before)
    return MigrationReport(location, before, (), pending, language)
