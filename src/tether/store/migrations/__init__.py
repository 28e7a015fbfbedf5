"""The one schema of both stores, as versioned migrations.

Each migration is a file ``NNNN_name.sql`` in this folder, written once for both
backends: ``{list}`` is the list column type and ``-- [sqlite]``/``-- [postgresql]``
blocks hold what only one backend has (``Dialect.render``). PostgreSQL applies each
once, in order, in its own transaction, recorded in ``schema_migrations``; SQLite runs
them all in one transaction whenever a file is behind (every statement it runs is
idempotent) and records the version in ``meta``. Files are history: a released
migration's meaning is never changed; a change is a new file. ``{language}`` in a
PostgreSQL block stands for the text search configuration (a quoted literal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources import files

from ..dialect import Dialect

__all__ = ["MIGRATIONS", "Migration", "load_migrations", "schema_script"]

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations() -> tuple[Migration, ...]:
    """All migrations shipped with this Tether, by version; gaps or duplicates are bugs."""
    found = []
    for entry in files(__package__).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise RuntimeError("migrations must be numbered 0001, 0002, … without gaps")
    return tuple(found)


MIGRATIONS = load_migrations()


def schema_script(dialect: Dialect) -> str:
    """Every migration rendered for ``dialect``, in order: SQLite runs them all to bring
    any file up to date (each statement it runs is idempotent)."""
    return "\n".join(dialect.render(m.sql) for m in MIGRATIONS)
