"""What the store offers, one small protocol per concern.

A caller asks for the concern it uses (``retrieve`` a ``DocumentStore``, the service's
auth a ``KeyStore``); ``Store`` is all of them on one backend, as ``open_store`` gives.

    DocumentStore   documents, versions, passages and their full-text index
    AuditLog        recorded answers and the citation rows that keep versions alive
    ShadowLog       what gates in ``shadow`` mode would have suppressed
    MetricsStore    per-answer counts for monitoring
    MetaStore       small settings of the store (schema version, calibration)
    KeyStore        service API keys (only their SHA-256)
    FileRecords     what ingest last saw of each file (unchanged files skipped on stat)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..records import Citation, Document, Hit, Passage, Version

__all__ = [
    "ApiKey", "AuditLog", "Collected", "DocumentStore", "DocumentSummary", "FileRecord",
    "FileRecords", "KeyStore", "MetaStore", "MetricsStore", "PutResult", "ShadowLog", "Store",
]

PutResult = str  # "ingested" | "updated" | "unchanged"


@dataclass(frozen=True, slots=True)
class Collected:
    """What ``DocumentStore.collect_versions`` removed (or, on a dry run, would remove)."""

    removed: int  # old versions no stored citation points at
    freed_bytes: int  # UTF-8 bytes of their text
    kept_cited: int  # old versions kept because a stored citation points at them


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    """A document as ``DocumentStore.list_documents`` lists it: its metadata and counts."""

    document: Document
    current_version: str
    versions: int  # stored versions, the current one included
    passages: int  # passages of the current version
    ingested_at: str  # when the current version was stored (its ``created_at``)


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A service API key as listed: its name and principals, never the key or its hash."""

    name: str
    principals: tuple[str, ...]
    created_at: str


@dataclass(frozen=True, slots=True)
class FileRecord:
    """A file as an ingest saw it (its ``stat`` and bytes) and what it became."""

    path: str  # resolved path
    size: int
    mtime_ns: int  # 0: not to be trusted (the file was changing as it was read)
    sha256: str  # of the bytes read
    fingerprint: str  # of the metadata and settings it was ingested with
    doc_id: str
    version: str
    passages: int
    chars: int
    flags: tuple[str, ...]
    dropped: tuple[tuple[str, int], ...]


class DocumentStore(Protocol):
    """Documents, their versions and passages, and the index over current passages.
    ``search`` is the one hot method."""

    scorer: str

    def search(
        self, terms: Sequence[str], *, limit: int, principals: Sequence[str] | None = None
    ) -> list[Hit]:
        """Passages of current versions matching any of ``terms``, best first."""
        ...

    def term_counts(
        self, words: Sequence[str], *, principals: Sequence[str] | None = None
    ) -> tuple[int, dict[str, int]]:
        """Passages the principals may read, and how many contain each word (for IDF)."""
        ...

    def put(self, document: Document, version: Version, passages: Sequence[Passage]) -> PutResult:
        """Write a document version and its passages atomically: ``"ingested"`` for a new
        document, ``"updated"`` for new text or new metadata (ACL, title, kind…) on the
        same text, ``"unchanged"`` (nothing written) when neither changed."""
        ...

    def document(self, doc_id: str) -> Document | None: ...

    def documents(self) -> list[Document]:
        """Every document (re-segmentation walks them)."""
        ...

    def list_documents(
        self,
        principals: Sequence[str] | None,
        *,
        limit: int,
        after: tuple[str, str] | None = None,
    ) -> list[DocumentSummary]:
        """One page of the documents ``principals`` may read (``None``: all), ordered by
        ``(source, doc_id)``; ``after`` is the ``(source, doc_id)`` of the previous page's
        last entry (keyset paging: an entry removed meanwhile does not shift the pages)."""
        ...

    def version(self, doc_id: str, version: str | None = None) -> Version | None:
        """A stored version; ``None`` for ``version`` means the current one."""
        ...

    def current_version(self, doc_id: str) -> str | None:
        """The id of a document's current version; ``None`` for an unknown document."""
        ...

    def version_slice(self, doc_id: str, version: str, start: int, end: int) -> str | None:
        """``text[start:end]`` of a stored version without loading the whole text
        (shorter than ``end - start`` where the range runs past the end); ``None`` when
        that version is not stored. Citation resolution's fast path."""
        ...

    def passages(self, doc_id: str, version: str) -> list[Passage]: ...

    def covering_passages(self, doc_id: str, version: str, start: int, end: int) -> list[Passage]:
        """Passages of a version that overlap ``[start, end)``, in text order."""
        ...

    def replace_passages(self, doc_id: str, passages: Sequence[Passage]) -> bool:
        """Re-segmentation: swap a document's passages (and index) in one transaction.

        Returns ``False`` and changes nothing when ``passages`` are not of the document's
        current version any more (a concurrent ingest added one).
        """
        ...

    def delete_document(self, doc_id: str) -> bool: ...

    def collect_versions(self, *, dry_run: bool = False) -> Collected:
        """Delete versions that are neither current nor cited by a recorded answer."""
        ...


class AuditLog(Protocol):
    """Recorded answers with their citations."""

    def record_answer(
        self,
        trace_id: str,
        created_at: str,
        payload: dict[str, Any],
        citations: Sequence[tuple[int, Citation]] = (),
    ) -> None:
        """The audit log: the Answer JSON and its citations, written in one transaction.

        ``citations`` are ``(sentence index, citation)`` pairs in answer order; they are
        kept as rows (not only inside ``payload``) so ``collect_versions`` can see which
        versions are cited. Recording a ``trace_id`` again replaces both.
        """
        ...

    def answer_record(self, trace_id: str) -> dict[str, Any] | None: ...

    def answer_citations(self, trace_id: str) -> list[tuple[int, Citation]]:
        """The ``(sentence index, citation)`` pairs recorded with an answer, in order."""
        ...

    def recorded_citations(self) -> list[tuple[str, int, Citation]]:
        """Every citation of the audit log: ``(trace id, sentence index, citation)``
        (``tether check`` verifies each still points at its quote)."""
        ...


class ShadowLog(Protocol):
    def record_shadow(self, entry: dict[str, Any]) -> None:
        """Append what a gate in ``shadow`` mode would have suppressed."""
        ...

    def shadow_entries(self, *, limit: int | None = None) -> list[dict[str, Any]]:
        """Shadow-log entries, oldest first (the last ``limit`` when given)."""
        ...


class MetricsStore(Protocol):
    def record_metrics(self, trace_id: str, created_at: str, metrics: dict[str, Any]) -> None:
        """Per-answer counts for monitoring (``monitor.AnswerMetrics``); ``created_at``
        is ``monitor.metrics_time`` (fixed-width UTC, so strings compare as times)."""
        ...

    def metric_records(
        self, *, since: str | None = None, until: str | None = None
    ) -> list[tuple[str, dict[str, Any]]]:
        """``(created_at, metrics)`` with ``since <= created_at < until``, oldest first."""
        ...


class MetaStore(Protocol):
    def get_meta(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...


class KeyStore(Protocol):
    """Service API keys; only their SHA-256 is stored."""

    def add_key(self, name: str, principals: Sequence[str], key_hash: str) -> None:
        """Store a key's hash; a name already in use is an ``InputError``."""
        ...

    def keys(self) -> list[ApiKey]: ...

    def revoke_key(self, name: str) -> bool: ...

    def principals_for(self, key_hash: str) -> tuple[str, ...] | None:
        """The principals of the key with this hash, ``None`` for no such key."""
        ...

    def key_for(self, key_hash: str) -> ApiKey | None:
        """The key with this hash as listed (name and principals), ``None`` for none."""
        ...


class FileRecords(Protocol):
    """What ``tether ingest`` last saw of each file."""

    def file_record(self, path: str) -> FileRecord | None:
        """The record of ``path`` while it still describes the store (its version is
        the document's current one, the document row as that ingest wrote it)."""
        ...

    def record_file(self, record: FileRecord, document: Document) -> None:
        """Keep (or replace) the record of ``record.path``, written after ``document``'s
        version committed."""
        ...


class Store(
    DocumentStore, AuditLog, ShadowLog, MetricsStore, MetaStore, KeyStore, FileRecords, Protocol
):
    """Every concern on one backend (what ``open_store`` returns)."""

    location: str  # where the store is, for messages: a file path, or a URL without its password

    def counts(self) -> dict[str, int]: ...

    def integrity_problems(self) -> list[tuple[str, str, str]]:
        """What only the backend can check (its files, schema, search index, rows that
        belong to nothing), as ``(check, subject, message)``; empty when sound."""
        ...

    def close(self) -> None: ...
