"""Browse and remove documents: one path for ``tether documents`` and ``/v1/documents``.

``summaries`` pages through what a caller may read; ``summary`` is one document's
line; ``remove_document`` deletes a document with all its versions and records the
removal first, so a stored citation of it later resolves ``missing`` with the reason
(``ops.cite``) instead of "deleted, or never ingested".

Removals are recorded in the store's meta table under ``removed:<doc_id>`` (one JSON
object: who, when, why, the document's source, title and ACL, what was deleted), so
both backends keep them without a schema change (docs/adr/0014). The record is only
read for a document that is absent: a document ingested again at the same source is
simply there again. A removal record is shown only to callers who could read the
document, so it reveals nothing that the document itself would not have.

Reading is not writing: ``may_write`` says whether a caller may replace or delete a
document through the service — it must hold one of the document's writers (recorded
when it was first uploaded: the uploader's non-public principals), or, for a document
without recorded writers (CLI ingests), one of the non-public principals of its ACL;
a public document ingested by the CLI is rewritten only by the operator (the CLI, or
an anonymous loopback server).

    >>> from tether.store import open_store                      # doctest: +SKIP
    >>> store = open_store("store.db")                            # doctest: +SKIP
    >>> remove_document(store, "doc_…", by="cli", reason="superseded").versions  # doctest: +SKIP
    2
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol, cast

from .. import ids
from ..errors import InputError, NotFound
from ..records import PUBLIC, Document, to_json
from ..store import DocumentSummary, Store

__all__ = [
    "META_PREFIX", "Removal", "WriterStore", "check_doc_id", "doc_id_of_source", "may_write",
    "not_found", "readable", "removal_of", "remove_document", "summaries", "summary",
    "summary_json", "writers_for", "writers_of",
]

META_PREFIX = "removed:"


class WriterStore(Protocol):
    """The store's record of who may write a document (both SQL backends)."""

    def writers(self, doc_id: str) -> tuple[str, ...] | None: ...

    def claim_writers(self, doc_id: str, writers: Sequence[str]) -> tuple[str, ...]: ...

    def release_writers(self, doc_id: str) -> None: ...


def writers_for(principals: Sequence[str]) -> tuple[str, ...]:
    """Who owns what a caller with ``principals`` writes: its non-public principals
    (``public`` alone for an anonymous caller)."""
    own = tuple(dict.fromkeys(p for p in principals if p != PUBLIC))
    return own or (PUBLIC,)


def writers_of(store: Store, document: Document) -> tuple[str, ...]:
    """The recorded writers of ``document``, else the non-public principals of its ACL
    (possibly none: then only the operator writes it)."""
    recorded = cast(WriterStore, store).writers(document.doc_id)
    if recorded is not None:
        return recorded
    return tuple(a for a in document.acl if a != PUBLIC)


def may_write(store: Store, document: Document, principals: Sequence[str]) -> bool:
    """Whether a caller with ``principals`` may replace or delete ``document``."""
    allowed = writers_of(store, document)
    if not allowed:  # a public document from the CLI: the operator's own
        return tuple(principals) == (PUBLIC,)
    return not set(allowed).isdisjoint(principals)
_DOC_ID = re.compile(r"^doc_[0-9a-f]{20}$")
_PAGE = 500  # rows per query when walking every document


@dataclass(frozen=True, slots=True)
class Removal:
    """What ``remove_document`` deleted, and the record a later resolution reads."""

    doc_id: str
    source: str
    title: str
    acl: tuple[str, ...]
    versions: int
    passages: int
    removed_at: str  # UTC, ISO 8601
    by: str  # who removed it: "cli (user)" or "service (principals)"
    reason: str | None

    def note(self) -> str:
        """The ``missing`` note of a citation of this document."""
        why = f": {self.reason}" if self.reason else " (no reason given)"
        return (f"document {self.doc_id} ({self.source}) was removed on {self.removed_at} "
                f"by {self.by}{why}")


def check_doc_id(doc_id: str) -> str:
    """``doc_id`` if it has the shape of a document id, else ``InputError`` (exit 2)."""
    if not _DOC_ID.match(doc_id):
        raise InputError(f"{doc_id!r} is not a document id",
                         hint="ids look like doc_ and 20 hex digits; see tether documents list")
    return doc_id


def readable(document: Document | None, principals: Sequence[str] | None) -> bool:
    """``principals=None`` reads everything (the operator on the command line)."""
    return document is not None and (principals is None or not set(document.acl).isdisjoint(principals))


def summaries(store: Store, principals: Sequence[str] | None) -> Iterator[DocumentSummary]:
    """Every document ``principals`` may read, by source, fetched a page at a time."""
    after: tuple[str, str] | None = None
    while True:
        page = store.list_documents(principals, limit=_PAGE, after=after)
        yield from page
        if len(page) < _PAGE:
            return
        after = (page[-1].document.source, page[-1].document.doc_id)


def summary(store: Store, doc_id: str, principals: Sequence[str] | None) -> DocumentSummary | None:
    """One document's summary, ``None`` when absent or not readable by ``principals``."""
    document = store.document(doc_id)
    if not readable(document, principals):
        return None
    assert document is not None
    # The smallest key with this source is this document's (a source has one doc_id).
    page = store.list_documents(principals, limit=1, after=(document.source, ""))
    return page[0] if page and page[0].document.doc_id == doc_id else None


def summary_json(entry: DocumentSummary) -> dict[str, Any]:
    """A summary as ``documents list --json`` and ``GET /v1/documents`` give it."""
    return {**to_json(entry.document), "version": entry.current_version,
            "version_count": entry.versions, "passage_count": entry.passages,
            "ingested_at": entry.ingested_at}


def removal_of(store: Store, doc_id: str, principals: Sequence[str] | None = None) -> Removal | None:
    """The recorded removal of an absent document, if ``principals`` could read it."""
    if store.document(doc_id) is not None:
        return None
    raw = store.get_meta(META_PREFIX + doc_id)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        removal = Removal(**{**data, "acl": tuple(data["acl"])})
    except (ValueError, TypeError, KeyError):
        return None  # a damaged record is not a reason to fail a resolution
    if principals is not None and set(removal.acl).isdisjoint(principals):
        return None
    return removal


def not_found(store: Store, doc_id: str, principals: Sequence[str] | None) -> NotFound:
    """The error for an id the caller cannot see, naming a removal it may know of."""
    removal = removal_of(store, doc_id, principals)
    if removal is None:
        return NotFound(f"no such document {doc_id}")
    return NotFound(f"no such document {doc_id}: {removal.note()}")


def remove_document(
    store: Store,
    doc_id: str,
    *,
    by: str,
    reason: str | None = None,
    principals: Sequence[str] | None = None,
    now: datetime | None = None,
) -> Removal | None:
    """Delete ``doc_id`` with all its versions, recording who, when and why first.

    ``None`` (nothing changed) when the document is absent or ``principals`` cannot
    read it. The record is written before the delete: a crash between the two leaves
    the document in place with a record that is never read while it exists.
    """
    entry = summary(store, doc_id, principals)
    if entry is None:
        return None
    when = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    removal = Removal(
        doc_id=doc_id, source=entry.document.source, title=entry.document.title,
        acl=entry.document.acl, versions=entry.versions, passages=entry.passages,
        removed_at=when.isoformat(timespec="seconds"),
        by=by, reason=(reason or "").strip() or None,
    )
    store.set_meta(META_PREFIX + doc_id, json.dumps(to_json(removal), ensure_ascii=False))
    store.delete_document(doc_id)
    return removal


def doc_id_of_source(source: str) -> str:
    """The id a source has (``rm --source``): the same recipe ingest uses."""
    if not source.strip():
        raise InputError("the source is empty")
    return ids.doc_id_for(source)
