"""Store/index stage: documents, versions, passages and a full-text index, and the
records the pipeline keeps (audit log, shadow log, metrics, meta, API keys).

``protocols`` has one small protocol per concern and ``Store``, all of them on one
backend. The two backends (``sqlite``, ``postgres``) share their logic
(``sql_documents``, ``sql_records``) and their schema (``migrations``); they differ
only in a ``dialect`` and in how each ranks.
``open_store`` picks the backend from the location: a filesystem path is SQLite, a
``postgresql://`` URL is PostgreSQL (the optional extra ``tether[postgres]``).
"""

from __future__ import annotations

import os

from ..config import Settings
from .protocols import (
    ApiKey,
    AuditLog,
    Collected,
    DocumentStore,
    DocumentSummary,
    KeyStore,
    MetaStore,
    MetricsStore,
    PutResult,
    ShadowLog,
    Store,
)

__all__ = [
    "POSTGRES_SCHEMES", "ApiKey", "AuditLog", "Collected", "DocumentStore", "DocumentSummary",
    "KeyStore", "MetaStore", "MetricsStore", "PutResult", "ShadowLog", "Store", "is_postgres_url", "open_store",
]

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(location: object) -> bool:
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


def open_store(
    location: str | os.PathLike[str],
    *,
    create: bool = True,
    settings: Settings | None = None,
) -> Store:
    """Open the store at ``location``: a ``postgresql://`` URL is PostgreSQL (its schema
    migrated on first use), anything else a SQLite file path."""
    if is_postgres_url(location):
        from .postgres import PostgresStore  # raises MissingExtra without psycopg

        settings = settings or Settings()
        return PostgresStore(
            str(location),
            create=create,
            language=settings.search_language,
            pool_size=settings.postgres_pool_size,
        )
    from .sqlite import SQLiteStore

    return SQLiteStore(location, create=create)
