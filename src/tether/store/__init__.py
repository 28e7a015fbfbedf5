"""Store/index stage: documents, versions, passages and a full-text index.

``Store`` is the one interface every backend implements (SQLite embedded by default).
``open_store`` picks the backend from the location: a filesystem path is SQLite.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..records import Document, Hit, Passage, Version

__all__ = ["ApiKey", "PutResult", "Store", "open_store"]

PutResult = str  # "ingested" | "updated" | "unchanged"


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A service API key as listed: its name and principals, never the key or its hash."""

    name: str
    principals: tuple[str, ...]
    created_at: str


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

    # -- service API keys (only their SHA-256 is stored) ---------------------------

    def add_key(self, name: str, principals: Sequence[str], key_hash: str) -> None:
        """Store a key's hash; a name already in use is an ``InputError``."""
        ...

    def keys(self) -> list[ApiKey]: ...

    def revoke_key(self, name: str) -> bool: ...

    def principals_for(self, key_hash: str) -> tuple[str, ...] | None:
        """The principals of the key with this hash, ``None`` for no such key."""
        ...

    def close(self) -> None: ...


def open_store(location: str | os.PathLike[str], *, create: bool = True) -> Store:
    """Open the store at ``location`` (a path: SQLite)."""
    from .sqlite import SQLiteStore

    return SQLiteStore(location, create=create)
