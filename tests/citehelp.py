"""Helpers for citation tests: a document written straight into a store, and a
citation cut from it exactly as the guard cuts one."""

from __future__ import annotations

from tether import ids
from tether.ingest.plan import build_passages
from tether.records import Citation, Document, Passage, Version
from tether.store import Store


def put_text(
    store: Store,
    text: str,
    *,
    source: str = "https://ex.org/doc",
    kind: str = "original",
    process: str | None = None,
    acl: tuple[str, ...] = ("public",),
    passage_chars: int = 120,
) -> tuple[Document, Version]:
    document = Document(
        doc_id=ids.doc_id_for(source), source=source, title="Doc", license="CC0",
        fetched_at="2026-01-02", media_type="text/plain", acl=acl, kind=kind,  # type: ignore[arg-type]
        process=process,
    )
    version = Version(document.doc_id, ids.version_of(text), text, "text", "2026-01-02T00:00:00")
    store.put(document, version, build_passages(version, document, max_chars=passage_chars))
    return document, version


def cite(document: Document, version: Version, start: int, end: int) -> Citation:
    quote = version.text[start:end]
    return Citation(
        doc_id=document.doc_id, version=version.version, start=start, end=end, quote=quote,
        quote_hash=ids.quote_hash(quote), passage_id="p_stale_hint", source=document.source,
        title=document.title, license=document.license, fetched_at=document.fetched_at,
        kind=document.kind, process=document.process,
    )


def overlapping(passages: list[Passage], start: int, end: int) -> tuple[str, ...]:
    """Independent answer to 'which passages cover this range today'."""
    return tuple(p.passage_id for p in passages if p.start < end and p.end > start)
