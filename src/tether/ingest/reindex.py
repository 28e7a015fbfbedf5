"""Re-segmentation: cut every document's current version into passages again.

Passages are only retrieval units: their ids are hints and citations are ranges of
version text, so changing the segmentation changes what retrieval returns but never
what a stored citation points at. Each document is swapped in its own transaction,
so a reader sees either the old passages of a document or the new ones, never a mix,
and an interrupted run leaves every document searchable.

>>> from tether.store import open_store                        # doctest: +SKIP
>>> reindex(open_store("store.db"), passage_chars=300)          # doctest: +SKIP
Reindexed(documents=26, passages_before=151, passages_after=298, skipped=0, seconds=0.2)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InputError
from ..records import Document
from ..store import Store
from .plan import sliced_passages

__all__ = ["Reindexed", "reindex"]


@dataclass(frozen=True, slots=True)
class Reindexed:
    documents: int
    passages_before: int
    passages_after: int
    skipped: int  # documents deleted while the run went on
    seconds: float


def _resegment(store: Store, document: Document, passage_chars: int) -> int | None:
    """New passages for one document; ``None`` if it has gone. A concurrent ingest
    that adds a version between reading and writing makes the store refuse the
    write; the document is then re-read and cut again."""
    for _ in range(3):
        version = store.version(document.doc_id)
        current = store.document(document.doc_id)
        if version is None or current is None:
            return None
        passages = sliced_passages(version, current, max_chars=passage_chars)
        if store.replace_passages(document.doc_id, passages):
            return len(passages)
    return None


def reindex(
    store: Store,
    *,
    passage_chars: int,
    progress: Callable[[Document], None] | None = None,
) -> Reindexed:
    """Re-segment every document's current version into passages of about
    ``passage_chars`` characters (whole sentences, never across a page)."""
    if passage_chars < 1:
        raise InputError(f"passage_chars must be at least 1, got {passage_chars}")
    started = time.perf_counter()
    before = store.counts()["passages"]
    documents = skipped = after = 0
    for document in store.documents():
        if progress is not None:
            progress(document)
        count = _resegment(store, document, passage_chars)
        if count is None:
            skipped += 1
            continue
        documents += 1
        after += count
    return Reindexed(
        documents=documents,
        passages_before=before,
        passages_after=after,
        skipped=skipped,
        seconds=round(time.perf_counter() - started, 3),
    )
