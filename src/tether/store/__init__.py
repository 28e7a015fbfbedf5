"""Store/index stage: documents, versions, passages and a full-text index.

``Store`` is the one interface every backend implements (SQLite embedded by default).
``open_store`` picks the backend from the location: a filesystem path is SQLite.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol

from ..records import Document, Hit, Passage, Version

__all__ = ["PutResult", "Store", "open_store"]

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

    def record_metrics(self, trace_id: str, created_at: str, metrics: dict[str, Any]) -> None:
        """Per-answer counts for monitoring (``monitor.AnswerMetrics``); ``created_at``
        is ``monitor.metrics_time`` (fixed-width UTC, so strings compare as times)."""
        ...

    def metric_records(
        self, *, since: str | None = None, until: str | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """``(created_at, metrics)`` with ``since <= created_at < until``, oldest first."""
        ...

    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def counts(self) -> dict[str, int]: ...

    def close(self) -> None: ...


def open_store(location: str | os.PathLike[str], *, create: bool = True) -> Store:
    """Open the store at ``location`` (a path: SQLite)."""
    from .sqlite import SQLiteStore

    return SQLiteStore(location, create=create)
