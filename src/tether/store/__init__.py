"""Store/index stage: documents, versions, passages and a full-text index.

``Store`` is the one interface every backend implements (SQLite embedded by default).
``open_store`` picks the backend from the location: a filesystem path is SQLite, a
``postgresql://`` URL is PostgreSQL (the optional extra ``tether[postgres]``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol

from ..config import Settings
from ..records import Document, Hit, Passage, Version

__all__ = ["POSTGRES_SCHEMES", "PutResult", "Store", "is_postgres_url", "open_store"]

PutResult = str  # "ingested" | "updated" | "unchanged"


class Store(Protocol):
    """Persistence for the pipeline. ``search`` is the one hot method."""

    scorer: str

    def search(
        self, terms: Sequence[str], *, limit: int, principals: Sequence[str] | None = None
    ) -> list[Hit]:
        """Passages of current versions matching any of ``terms``, best first."""
        ...

    def put(self, document: Document, version: Version, passages: Sequence[Passage]) -> PutResult:
        """Write a document version and its passages atomically."""
        ...

    def document(self, doc_id: str) -> Document | None: ...

    def version(self, doc_id: str, version: str | None = None) -> Version | None:
        """A stored version; ``None`` for ``version`` means the current one."""
        ...

    def passages(self, doc_id: str, version: str) -> list[Passage]: ...

    def delete_document(self, doc_id: str) -> bool: ...

    def record_answer(self, trace_id: str, created_at: str, payload: dict[str, Any]) -> None: ...

    def answer_record(self, trace_id: str) -> dict[str, Any] | None: ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def counts(self) -> dict[str, int]: ...

    def close(self) -> None: ...


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
