"""Records from table rows, one builder per record for every backend.

The backends share one schema shape: the same tables, columns and column order.
They differ only in how a list column (``acl``, ``flags``) comes back — SQLite
keeps it as JSON text, PostgreSQL as an array — which ``listed`` absorbs.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from ..records import Citation, Document, Passage, Region, Version

__all__ = [
    "CITATION_FIELDS", "HEADING_MARK", "SHADOW_FIELDS", "Row", "citation_from_row",
    "document_from_row", "flag_column", "listed", "passage_from_row", "version_from_row",
]

# Columns of a shadow-log entry, in table order after ``id``.
SHADOW_FIELDS = ("created_at", "trace_id", "question", "gate", "layer", "reason", "suppressed", "text")
# Columns of a stored citation after (trace_id, seq, sentence), in table order.
CITATION_FIELDS = (
    "doc_id", "version", "start", "end", "quote", "quote_hash", "passage_id", "source",
    "title", "license", "fetched_at", "kind", "region", "process",
)


class Row(Protocol):
    """A row read by column name: ``sqlite3.Row`` or psycopg's dict row."""

    def __getitem__(self, key: str, /) -> Any: ...


def listed(value: Any) -> tuple[str, ...]:
    """A list column as a tuple: JSON text (SQLite) or an array (PostgreSQL)."""
    return tuple(json.loads(value) if isinstance(value, str) else value)


# Columns that come back as they are stored (list and aliased columns are named below).
_DOCUMENT_FIELDS = ("doc_id", "source", "title", "license", "fetched_at", "media_type")
_VERSION_FIELDS = ("doc_id", "version", "text", "extractor", "created_at")
_PASSAGE_FIELDS = (
    "passage_id", "doc_id", "version", "start", "end", "text", "kind", "region", "process",
)


def document_from_row(row: Row, prefix: str = "") -> Document:
    """A document from its row; ``prefix`` names the ``kind``/``process`` columns
    where a join with ``passages`` had to alias them (``doc_kind``)."""
    return Document(
        **{name: row[name] for name in _DOCUMENT_FIELDS},
        acl=listed(row["acl"]), kind=row[prefix + "kind"], process=row[prefix + "process"],
    )


# A passage's heading path rides in its list column ``flags``, each part after this
# mark (no flag code has a colon), after the flags: a migration cannot add a column
# to ``passages`` that SQLite can run again without change (docs/adr/0021).
HEADING_MARK = "heading:"


def flag_column(flags: tuple[str, ...], heading: tuple[str, ...]) -> list[str]:
    """What the ``flags`` column holds: the flags, then the heading path, marked."""
    return [*flags, *(HEADING_MARK + part for part in heading)]


def passage_from_row(row: Row) -> Passage:
    stored = listed(row["flags"])
    flags = tuple(f for f in stored if not f.startswith(HEADING_MARK))
    heading = tuple(f[len(HEADING_MARK):] for f in stored if f.startswith(HEADING_MARK))
    return Passage(**{name: row[name] for name in _PASSAGE_FIELDS}, flags=flags, heading=heading)


def version_from_row(row: Row) -> Version:
    regions = tuple(Region(s, e, label) for s, e, label in json.loads(row["regions"]))
    return Version(**{name: row[name] for name in _VERSION_FIELDS}, regions=regions)


def citation_from_row(row: Row) -> Citation:
    return Citation(**{name: row[name] for name in CITATION_FIELDS})
