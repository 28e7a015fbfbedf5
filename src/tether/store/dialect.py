"""What differs between the SQL backends, and nothing else.

The shared store logic (``store.sql``) writes each statement once, with ``?``
placeholders and portable SQL (``ON CONFLICT`` upserts run on SQLite >= 3.24 and on
PostgreSQL alike). A ``Dialect`` supplies the rest: the placeholder, how a list column
(``acl``, ``flags``, ``principals``) is stored (JSON text in SQLite, ``text[]`` in
PostgreSQL) and filtered, how text bytes are counted and ordered, the lock ``gc``
takes, which error is a unique violation, and how a migration file is rendered (its
``{list}`` type and its ``-- [sqlite]`` / ``-- [postgresql]`` blocks).

Ranking itself stays with each backend (``SQLiteStore.search``: FTS5 BM25;
``PostgresStore.search``: IDF-weighted ``ts_rank``): the scorers differ by design.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["POSTGRESQL", "SQLITE", "Dialect", "fts5_query"]

# A block of a migration file for one dialect: from ``-- [name]`` (a comment may
# follow) to the next ``-- [...]`` marker; ``-- [end]`` closes a block.
_BLOCK = re.compile(r"^-- \[(\w+)\].*(?:\n|$)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Dialect:
    """The SQL a backend speaks where the two differ."""

    name: str  # the block name in migration files: "sqlite" | "postgresql"
    placeholder: str  # what ``?`` in shared SQL becomes
    list_type: str  # the column type of a list column (``{list}`` in migrations)
    list_value: Callable[[Sequence[str]], Any]  # a list as a parameter of that column
    byte_length: str  # ``{}``: the UTF-8 length of a text expression
    text_order: str  # appended to ORDER BY on text: byte order, as times compare
    gc_lock: str | None  # a statement that keeps writers out while gc chooses
    unique_violation: Callable[[BaseException], bool]
    acl_filter: Callable[[str, Sequence[str]], tuple[str, list[Any]]]  # (column, principals)

    def q(self, statement: str) -> str:
        """``statement`` (written with ``?`` placeholders) in this dialect."""
        return _placed(statement, self.placeholder)

    def render(self, migration: str) -> str:
        """A migration file's text for this dialect: its blocks for other dialects
        dropped, ``{list}`` replaced by the list column type."""
        kept: list[str] = []
        position, current = 0, None
        for marker in _BLOCK.finditer(migration):
            if current in (None, self.name):
                kept.append(migration[position:marker.start()])
            current = None if marker[1] == "end" else marker[1]
            position = marker.end()
        if current in (None, self.name):
            kept.append(migration[position:])
        return "".join(kept).replace("{list}", self.list_type)


@lru_cache(maxsize=512)
def _placed(statement: str, placeholder: str) -> str:
    return statement if placeholder == "?" else statement.replace("?", placeholder)


def fts5_query(terms: Sequence[str]) -> str:
    """An FTS5 OR-query of quoted terms: user text never reaches the FTS syntax."""
    quoted = ('"' + term.replace('"', '""') + '"' for term in terms if term.strip())
    return " OR ".join(quoted)


def _json_acl(column: str, principals: Sequence[str]) -> tuple[str, list[Any]]:
    marks = ",".join("?" * len(principals)) or "NULL"
    return f"EXISTS (SELECT 1 FROM json_each({column}) WHERE value IN ({marks}))", list(principals)


def _array_acl(column: str, principals: Sequence[str]) -> tuple[str, list[Any]]:
    return f"{column} && ?::text[]", [list(principals)]


def _sqlstate_unique(exc: BaseException) -> bool:
    # psycopg errors carry the SQLSTATE (23505: unique_violation); the store wraps
    # them in StoreError, so the cause is looked at too.
    return any(getattr(e, "sqlstate", None) == "23505" for e in (exc, exc.__cause__))


SQLITE = Dialect(
    name="sqlite",
    placeholder="?",
    list_type="text",  # a JSON array
    list_value=lambda values: json.dumps(list(values)),
    byte_length="length(CAST({} AS BLOB))",
    text_order="",  # SQLite compares text by bytes (BINARY) already
    gc_lock=None,  # BEGIN IMMEDIATE already holds the one write lock
    unique_violation=lambda exc: isinstance(exc, sqlite3.IntegrityError),
    acl_filter=_json_acl,
)

POSTGRESQL = Dialect(
    name="postgresql",
    placeholder="%s",
    list_type="text[]",
    list_value=list,
    byte_length="octet_length({})",
    text_order=' COLLATE "C"',
    # Writers wait while versions are chosen and deleted (as SQLite's one write lock
    # makes them): no put makes a chosen old version current again, and no answer
    # cites one, between the choice and the delete.
    gc_lock="LOCK TABLE documents, citations IN SHARE ROW EXCLUSIVE MODE",
    unique_violation=_sqlstate_unique,
    acl_filter=_array_acl,
)
