"""BM25's pool re-ranked with the shipped embedder: reciprocal-rank fusion (ADR 0052).

BM25 finds passages that share the question's words; it ranks them by how often and
how rarely those words occur, so a passage that says the thing in other words
("compression" for "gzip", "lookup of host names" for "reverse DNS") sinks below
passages that merely repeat the question's words. The embedder reads meaning, not
words, but alone it ranks worse than BM25 on documentation (names, options and
numbers are what it blurs). Fused, each passage of BM25's top ``pool`` scores

    1 / (C + its BM25 rank) + 1 / (C + its embedder rank)          (ranks from 0)

and the ``k`` best are kept, ties broken by BM25 rank. C = 60 is the constant of
Cormack, Clarke and Büttcher (2009): large enough that neither list's top alone
decides. Nothing outside BM25's pool is ever added, so what the pipeline reads is
still what the full-text index (and its ACL filter) returned.

The passage is read as the embedder reads it: its title path (document title, then its
headings), a newline, its text; the question as asked. The passages' vectors are made
per question (ADR 0052 weighs this against storing them at ingest) and kept in a
bounded in-process cache keyed by the model's sha256 and the passage's identity, so a
passage retrieved again by a later question is not read again.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

from ..config import RETRIEVALS
from ..errors import ConfigError
from ..records import Hit
from ..store import DocumentStore
from .search import retrieve

__all__ = ["RETRIEVALS", "RRF_C", "PassageVectors", "TextEmbedder", "closest", "fuse",
           "fused_retrieve", "passage_text", "ranked", "similarities"]

RRF_C = 60
_CACHED_VECTORS = 16_384  # ~25 MiB of 384-float vectors: a working set, not a corpus


class TextEmbedder(Protocol):
    """What fusion needs of an embedder (``readers.Embedder`` is one)."""

    @property
    def sha256(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Any: ...


def fuse(rankings: Sequence[Sequence[int]], *, c: int = RRF_C) -> list[int]:
    """Items of the first ranking in fused order: by the sum of 1 / (c + rank) over the
    rankings that hold them (from 0), ties by the first ranking's order.

    >>> fuse([[0, 1, 2], [2, 1, 0]], c=60)  # 0 and 2 tie above 1; BM25's order breaks it
    [0, 2, 1]
    """
    first = list(rankings[0])
    score = dict.fromkeys(first, 0.0)
    for ranking in rankings:
        for rank, item in enumerate(ranking):
            if item in score:
                score[item] += 1.0 / (c + rank)
    position = {item: i for i, item in enumerate(first)}
    return sorted(first, key=lambda item: (-round(score[item], 12), position[item]))


def passage_text(hit: Hit) -> str:
    """A passage as the embedder reads it: title path, newline, text."""
    path = " / ".join(p for p in (hit.document.title, *hit.passage.heading) if p.strip())
    return f"{path}\n{hit.passage.text}" if path else hit.passage.text


class PassageVectors:
    """Passage vectors made for earlier questions, the least recently used dropped
    past ``capacity``. Keyed by the model's sha256 and the passage's document, version
    and id, so a new version or another model is never served an old vector."""

    def __init__(self, capacity: int = _CACHED_VECTORS) -> None:
        self.capacity = capacity
        self._vectors: OrderedDict[tuple[str, str, str, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, embedder: TextEmbedder, hits: Sequence[Hit]) -> list[Any]:
        """One vector per hit, reading only the passages not cached."""
        keys = [(embedder.sha256, h.passage.doc_id, h.passage.version, h.passage.passage_id)
                for h in hits]
        with self._lock:
            found = {key: self._vectors[key] for key in keys if key in self._vectors}
            for key in found:
                self._vectors.move_to_end(key)
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        if missing:
            text_of = {key: passage_text(h) for key, h in zip(keys, hits, strict=True)}
            made = embedder.embed([text_of[key] for key in missing])
            with self._lock:
                for key, vector in zip(missing, made, strict=True):
                    found[key] = self._vectors[key] = vector
                while len(self._vectors) > self.capacity:
                    self._vectors.popitem(last=False)
        return [found[key] for key in keys]


_CACHE = PassageVectors()


def fused_retrieve(
    store: DocumentStore,
    question: str,
    *,
    k: int,
    pool: int,
    embedder: TextEmbedder,
    principals: Sequence[str] | None = None,
    max_chars: int = 2_000,
    cache: PassageVectors | None = None,
) -> list[Hit]:
    """Top ``k`` of BM25's top ``max(pool, k)`` passages in fused order (module doc).
    Each hit keeps its BM25 score; its rank is its fused rank."""
    hits = retrieve(store, question, k=max(pool, k), principals=principals, max_chars=max_chars)
    if len(hits) < 2:
        return hits[:k]
    similarity = similarities(embedder, question, hits, cache)
    by_meaning = sorted(range(len(hits)), key=lambda i: (-similarity[i], i))
    order = fuse([range(len(hits)), by_meaning])[:k]
    return [dataclasses.replace(hits[i], rank=rank) for rank, i in enumerate(order)]


def similarities(embedder: TextEmbedder, question: str, hits: Sequence[Hit],
                 cache: PassageVectors | None = None) -> list[float]:
    """The cosine between ``question`` and each hit, read as ``passage_text`` (unit
    vectors; the passages' from ``cache``)."""
    question_vector = embedder.embed([question])[0]
    return [float(vector @ question_vector) for vector in (cache or _CACHE).vectors(embedder, hits)]


def closest(embedder: TextEmbedder, question: str, hits: Sequence[Hit],
            cache: PassageVectors | None = None) -> float:
    """The highest cosine between ``question`` and a hit, read as fusion reads them."""
    return max(similarities(embedder, question, hits, cache))


def ranked(
    store: DocumentStore,
    question: str,
    *,
    k: int,
    retrieval: str,
    pool: int,
    principals: Sequence[str] | None = None,
    max_chars: int = 2_000,
) -> list[Hit]:
    """Top ``k`` passages as the setting ``retrieval`` ranks them: ``"fused"`` (BM25's
    top ``pool`` re-ranked with the shipped embedder) or ``"bm25"`` alone."""
    if retrieval == "bm25":
        return retrieve(store, question, k=k, principals=principals, max_chars=max_chars)
    if retrieval != "fused":
        raise ConfigError(f"retrieval must be one of {', '.join(RETRIEVALS)}, got {retrieval!r}")
    from .. import readers  # loaded on first use: a BM25-only process never reads the model

    return fused_retrieve(store, question, k=k, pool=pool, embedder=readers.embedder(),
                          principals=principals, max_chars=max_chars)
