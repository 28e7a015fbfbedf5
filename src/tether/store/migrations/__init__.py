"""Versioned schema migrations for the PostgreSQL store.

Each migration is a file ``NNNN_name.sql`` in this folder, applied once, in order, in
its own transaction, and recorded in ``schema_migrations``. Files are history: a
released migration is never edited; a change is a new file. ``{language}`` in a file
stands for the text search configuration (a quoted literal), the only parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources import files

__all__ = ["MIGRATIONS", "Migration", "load_migrations"]

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
