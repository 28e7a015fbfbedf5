"""Identity recipes. These are a compatibility contract: stored citations and audit
records depend on them, so they are versioned and pinned by golden tests.

- ``doc_id``: from the source identity (URL or path), never the content, so an edited
  document keeps its identity and gains a version.
- ``version``: ``sha256:`` of the extracted text, so identical text is one version.
- ``passage_id``: a hint only (document + version + range); citations never depend
  on it. The document is part of it because two documents can share identical text.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable

__all__ = ["doc_id_for", "passage_id_for", "passage_ids", "quote_hash", "trace_id", "version_of"]

_DOC_RECIPE = "tether-doc-v1"


def _sha256(data: str) -> str:
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def doc_id_for(source: str) -> str:
    """``doc_`` + 20 hex of the normalised source; trailing slashes and case of the
    scheme/host do not change identity, anything else does."""
    normalised = source.strip()
    if "://" in normalised:
        scheme, _, rest = normalised.partition("://")
        host, slash, path = rest.partition("/")
        normalised = f"{scheme.lower()}://{host.lower()}{slash}{path}".rstrip("/")
    return "doc_" + _sha256(f"{_DOC_RECIPE}\0{normalised}")[:20]


def version_of(text: str) -> str:
    return "sha256:" + _sha256(text)


def passage_id_for(doc_id: str, version: str, start: int, end: int) -> str:
    return "p_" + _sha256(f"{doc_id}\0{version}\0{start}\0{end}")[:16]


def passage_ids(doc_id: str, version: str, ranges: Iterable[tuple[int, int]]) -> list[str]:
    """``passage_id_for`` of each range of one version, its shared prefix hashed once."""
    prefix = hashlib.sha256(f"{doc_id}\0{version}\0".encode())
    ids = []
    for start, end in ranges:
        digest = prefix.copy()
        digest.update(f"{start}\0{end}".encode())
        ids.append("p_" + digest.hexdigest()[:16])
    return ids


def quote_hash(quote: str) -> str:
    return "sha256:" + _sha256(quote)


def trace_id() -> str:
    return "tr_" + uuid.uuid4().hex
