"""After BM25: the units a question names exactly, and one copy of each repeated passage.

Two things the ranking alone gets wrong on real documentation (ADR 0022):

* **Focus units.** "What does the -v option of grep do?" has two useful words, and
  neither stands in the unit that answers it (``-v, --invert-match`` / ``Invert the
  sense of matching``): BM25 drops the one-letter ``v`` and ranks passages that
  repeat "grep" and "option". When a question names an option or an identifier
  (``tether.text.focus``), the documents of its subject — those retrieved, and those
  whose title names the subject (``GREP(1)``) — are read for a unit whose term line
  names it; such units come first.
* **Near-duplicates.** Node.js's ``all.html`` repeats every other page of its API
  docs; the same passage twice fills the sources and the answer with one fact. A
  passage whose words (3-word shingles) are nearly all another kept passage's is
  dropped, and the kept one says where else it stands (``Hit.also``).

    >>> from tether.records import Document, Hit, Passage
    >>> def hit(doc, text, rank):
    ...     return Hit(Passage(f"p{rank}", doc, "v", 0, len(text), text),
    ...                Document(doc, f"file:///{doc}.html", doc, "", "", "text/html"), 1.0, rank)
    >>> text = "Returns the default highWaterMark used by streams. Defaults to 65536."
    >>> kept = collapse([hit("stream", text, 0), hit("all", text, 1)])
    >>> [(h.document.doc_id, h.also) for h in kept]
    [('stream', ('file:///all.html',))]
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

from ..config import Settings
from ..records import Document, Hit
from ..store import Store
from ..text.focus import (
    Focus,
    defined,
    defines,
    mentions,
    read_focus,
    term_like,
    term_of,
)
from ..text.terms import stems
from .fused import ranked

__all__ = ["collapse", "focus_units", "refine", "sources", "subject_passages"]

_MAX_DOCS = 4  # documents read whole for a focus unit, per question
_MAX_UNITS = 4  # focus units added before the ranked hits
_OWN_PAGES = 2  # a subject with at most this many documents titled for it has its own
_SUBJECT_PASSAGES = 2  # passages of a subject's own page added, best first
_NEAR = 0.8  # share of a passage's shingles another kept passage has: a copy
_WORD = re.compile(r"\w+")


def refine(
    store: Store, question: str, hits: Sequence[Hit], *, k: int,
    principals: Sequence[str] | None = None,
) -> list[Hit]:
    """``hits`` with the question's focus units first and near-duplicates collapsed,
    at most ``k`` (ranks renumbered)."""
    merged = [*focus_units(store, question, hits, principals=principals),
              *subject_passages(store, question, principals=principals), *hits]
    kept = collapse(merged)[:k]
    return [dataclasses.replace(h, rank=i) for i, h in enumerate(kept)]


def sources(
    store: Store, question: str, settings: Settings, *, k: int,
    principals: Sequence[str] | None = None,
) -> list[Hit]:
    """The passages an answer to ``question`` starts from, at most ``k``: ranked by the
    ``retrieval`` setting, twice ``k`` of them so that ``k`` remain once copies collapse
    (``refine``). ``ask`` and ``search`` both start here, so a search shows what an
    answer would cite."""
    hits = ranked(store, question, k=2 * k, retrieval=settings.retrieval,
                  pool=settings.retrieval_pool, principals=principals,
                  max_chars=settings.max_question_chars)
    return refine(store, question, hits, k=k, principals=principals)


def focus_units(
    store: Store, question: str, hits: Sequence[Hit], *, principals: Sequence[str] | None = None
) -> list[Hit]:
    """Passages of the subject's documents holding a unit whose term names the
    question's option or identifier, best documents first."""
    focus = read_focus(question)
    if not focus.exact:
        return []
    top = hits[0].score if hits else 1.0
    asked = stems(question)
    found: list[tuple[int, int, Hit]] = []
    for document in _subject_documents(store, focus, hits, principals):
        version = store.current_version(document.doc_id)
        if version is None:
            continue
        for passage in store.passages(document.doc_id, version):
            if _names_unit(passage.text, focus):
                # Of the units that name it, those sharing most of the question's other
                # words ("writable" for stream.Writable's highWaterMark) come first.
                shared = len(asked & stems(" ".join((*passage.heading, passage.text))))
                found.append((-shared, len(found), Hit(passage, document, top, 0)))
    return [hit for *_, hit in sorted(found)[:_MAX_UNITS]]


def subject_passages(
    store: Store, question: str, *, principals: Sequence[str] | None = None
) -> list[Hit]:
    """Passages of the subject's own page ("zip" of "the default compression level
    of zip": the document titled ``zip(1)``) that share most of the question's other
    words, when the question names a subject, no option, and at most ``_OWN_PAGES``
    documents are titled for it (a collection whose every title names it has no
    page of its own for it)."""
    focus = read_focus(question)
    thing = defined(question)  # "What is Memcheck?": its page defines it
    subjects = focus.subjects or ((thing,) if thing else ())
    if focus.exact or not subjects:
        return []
    pages = [d for d in store.documents() if _readable(d, principals)
             and all(mentions(d.title, s) for s in subjects)]
    if not pages or len(pages) > _OWN_PAGES:
        return []
    asked = stems(question) - stems(" ".join(subjects))
    found: list[tuple[int, int, Hit]] = []
    for document in pages:
        version = store.current_version(document.doc_id)
        for passage in store.passages(document.doc_id, version) if version else ():
            shared = 2 if thing and defines(question, passage.text) else len(
                asked & stems(passage.text))
            if shared >= 2:
                found.append((-shared, len(found), Hit(passage, document, 0.0, 0)))
    return [hit for *_, hit in sorted(found)[:_SUBJECT_PASSAGES]]


def _names_unit(text: str, focus: Focus) -> bool:
    for line in text.split("\n"):
        if term_like(line) or line.rstrip().endswith("#"):
            term = term_of(line) or line.strip()
            if any(mentions(term, item) for item in focus.exact):
                return True
    return False


def _readable(document: Document, principals: Sequence[str] | None) -> bool:
    return principals is None or bool(set(document.acl) & set(principals))


def _subject_documents(
    store: Store, focus: Focus, hits: Sequence[Hit], principals: Sequence[str] | None
) -> list[Document]:
    """Retrieved documents first, then any whose title names the subject; with a
    subject, only documents whose title names it."""
    seen: dict[str, Document] = {h.document.doc_id: h.document for h in hits}
    found = list(seen.values())
    if focus.subjects:
        found += [d for d in store.documents() if d.doc_id not in seen and _readable(d, principals)]
        found = [d for d in found if all(mentions(d.title, s) for s in focus.subjects)]
    return found[:_MAX_DOCS]


def _shingles(text: str) -> frozenset[tuple[str, ...]]:
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < 3:
        return frozenset([tuple(words)])
    return frozenset(zip(words, words[1:], words[2:]))


def collapse(hits: Iterable[Hit]) -> list[Hit]:
    """One hit per repeated passage (the best ranked), with ``also`` naming the
    sources of the copies dropped; the same passage met twice is kept once."""
    kept: list[tuple[Hit, frozenset[tuple[str, ...]]]] = []
    also: dict[int, list[str]] = {}
    seen: set[tuple[str, str, int]] = set()
    for h in hits:
        key = (h.passage.doc_id, h.passage.version, h.passage.start)
        if key in seen:
            continue
        seen.add(key)
        mine = _shingles(h.passage.text)
        twin = next((i for i, (_, other) in enumerate(kept) if _copy(mine, other)), None)
        if twin is None:
            kept.append((h, mine))
        elif h.document.source != kept[twin][0].document.source:
            also.setdefault(twin, []).append(h.document.source)
    return [
        dataclasses.replace(h, also=tuple(dict.fromkeys((*h.also, *also.get(i, ())))))
        if i in also else h
        for i, (h, _) in enumerate(kept)
    ]


def _copy(a: frozenset[tuple[str, ...]], b: frozenset[tuple[str, ...]]) -> bool:
    if not a or not b:
        return False
    shared = len(a & b)
    return shared >= _NEAR * min(len(a), len(b)) and min(len(a), len(b)) >= _NEAR * max(len(a), len(b))

