"""Integrity check of a store: is everything a citation or an answer rests on intact?

Run after a crash, a kill, a disk problem or a hand edit (``tether check``). The
checks written against the ``Store`` interface hold for every backend:

- every document has a stored current version whose id is the hash of its text
  (``ids.version_of``), so the text has not changed since it was cited;
- that version has passages, and each passage is of that document and version, lies
  inside the text, equals its slice (``text[start:end]``) and overlaps no other;
  regions (pages) lie inside the text;
- every citation in the audit log is well formed (its quote matches its hash and its
  range), and where its version is still stored the text at its range is its quote;
  resolving it gives a defined status (exact, relocated, changed or missing).

Then the backend checks its own storage (``Store.integrity_problems``): for SQLite the
file itself, the schema, the FTS5 index against the passages table, and rows that
belong to nothing (passages of a non-current version, citations without an answer).

    >>> from tether.store import open_store                   # doctest: +SKIP
    >>> report = check_store(open_store("store.db"))           # doctest: +SKIP
    >>> report.ok, report.counts["documents"]                  # doctest: +SKIP
    (True, 26)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .. import ids
from ..errors import TetherError
from ..records import KINDS, Document, Passage, Version
from ..store import Store
from .cite import check_citation, resolve

__all__ = ["CheckReport", "Problem", "check_store"]

# Problems listed per check before the rest are only counted: a store broken
# everywhere should give a readable report, not a million lines.
MAX_LISTED = 50


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong: which check found it, about what (a doc/trace id, a table)."""

    check: str
    subject: str
    message: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    problems: tuple[Problem, ...]
    counts: dict[str, int]
    # How each recorded citation resolves today (exact, relocated, changed, missing).
    citations: dict[str, int] = field(default_factory=dict)
    # Problems found beyond MAX_LISTED per check (counted, not listed).
    unlisted: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unlisted

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "problems": [
                {"check": p.check, "subject": p.subject, "message": p.message}
                for p in self.problems
            ],
            "unlisted_problems": self.unlisted,
            "counts": dict(self.counts),
            "citations": dict(self.citations),
        }


class _Problems:
    def __init__(self) -> None:
        self.listed: list[Problem] = []
        self.per_check: Counter[str] = Counter()
        self.unlisted = 0

    def add(self, problem: Problem) -> None:
        self.per_check[problem.check] += 1
        if self.per_check[problem.check] > MAX_LISTED:
            self.unlisted += 1
        else:
            self.listed.append(problem)


def _check_version(document: Document, version: Version) -> list[Problem]:
    doc_id, found = document.doc_id, []
    if version.doc_id != doc_id:
        found.append(Problem("version", doc_id, f"current version is stored under {version.doc_id}"))
    if ids.version_of(version.text) != version.version:
        found.append(Problem(
            "version", doc_id,
            f"the text of version {version.version} no longer hashes to its id (it was altered)",
        ))
    for region in version.regions:
        if not 0 <= region.start <= region.end <= len(version.text):
            found.append(Problem(
                "version", doc_id,
                f"region {region.label!r} [{region.start}, {region.end}) lies outside the text "
                f"({len(version.text)} characters)",
            ))
    return found


def _check_passages(document: Document, version: Version, passages: list[Passage]) -> list[Problem]:
    doc_id, text = document.doc_id, version.text
    if not passages:
        return [Problem("passages", doc_id, f"current version {version.version} has no "
                        "passages (the document cannot be retrieved)")]
    found: list[Problem] = []

    def add(message: str) -> None:
        found.append(Problem("passages", doc_id, message))

    last_end = 0
    seen: set[str] = set()
    for p in sorted(passages, key=lambda p: (p.start, p.end)):
        where = f"passage {p.passage_id} [{p.start}, {p.end})"
        if p.doc_id != doc_id or p.version != version.version:
            add(f"{where} belongs to {p.doc_id} {p.version}")
        if not 0 <= p.start < p.end <= len(text):
            add(f"{where} lies outside the version text ({len(text)} characters)")
        elif text[p.start : p.end] != p.text:
            add(f"{where}: its text differs from the version text there")
        if p.start < last_end:
            add(f"{where} overlaps the passage before it")
        last_end = max(last_end, p.end)
        if p.kind not in KINDS:
            add(f"{where} has unknown kind {p.kind!r}")
        if p.passage_id in seen:
            add(f"{where}: passage id used twice")
        seen.add(p.passage_id)
    return found


def _check_document(store: Store, document: Document, counts: Counter[str]) -> list[Problem] | None:
    """Problems of one document; ``None`` when it was re-ingested while being read
    (reads are not one snapshot, so its version and passages may not match)."""
    doc_id = document.doc_id
    found: list[Problem] = []
    if document.kind not in KINDS:
        found.append(Problem("documents", doc_id, f"unknown kind {document.kind!r}"))
    if not document.acl:
        found.append(Problem("documents", doc_id, "empty ACL (no one may read it)"))
    version = store.version(doc_id)
    if version is None:
        current = store.current_version(doc_id)
        if current is not None:  # None: deleted meanwhile, which is no problem
            found.append(Problem("version", doc_id, f"current version {current} is not stored"))
        return found
    passages = store.passages(doc_id, version.version)
    found += _check_version(document, version) + _check_passages(document, version, passages)
    if found and store.current_version(doc_id) != version.version:
        return None
    counts["characters"] += len(version.text)
    counts["passages"] += len(passages)
    return found


def _check_documents(store: Store, found: _Problems, counts: Counter[str]) -> None:
    for document in store.documents():
        counts["documents"] += 1
        for _ in range(3):
            problems = _check_document(store, document, counts)
            if problems is not None:
                for problem in problems:
                    found.add(problem)
                break


def _check_citations(
    store: Store, found: _Problems, counts: Counter[str], statuses: Counter[str]
) -> None:
    for trace_id, sentence, citation in store.recorded_citations():
        counts["citations"] += 1
        subject = f"citation of {trace_id} sentence {sentence}"
        try:
            check_citation(citation, where=subject)
        except TetherError as exc:
            found.add(Problem("citations", trace_id, str(exc)))
            continue
        stored = store.version_slice(citation.doc_id, citation.version, citation.start, citation.end)
        if stored is not None and stored != citation.quote:
            found.add(Problem(
                "citations", trace_id,
                f"{subject}: {citation.doc_id} {citation.version} "
                f"[{citation.start}, {citation.end}) no longer holds the quoted text",
            ))
        try:
            statuses[resolve(citation, store).status] += 1
        except TetherError as exc:
            found.add(Problem("citations", trace_id, f"{subject} does not resolve: {exc}"))


def check_store(store: Store) -> CheckReport:
    """Run every check; the report lists what is wrong (``ok`` when nothing is)."""
    found = _Problems()
    counts: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for check, subject, message in store.integrity_problems():
        found.add(Problem(check, subject, message))
    # A damaged file or schema makes every further read unreliable; the report then
    # has no counts, since nothing was read through.
    if not any(p.check in ("file", "schema") for p in found.listed):
        stored = store.counts()
        counts.update(documents=0, versions=stored.get("versions", 0), passages=0,
                      characters=0, answers=stored.get("answers", 0), citations=0)
        _check_documents(store, found, counts)
        _check_citations(store, found, counts, statuses)
    return CheckReport(
        problems=tuple(found.listed),
        counts=dict(counts),
        citations=dict(sorted(statuses.items())),
        unlisted=found.unlisted,
    )
