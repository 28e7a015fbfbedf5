"""Golden questions and the labels that go with a corpus.

A golden file is JSON lines::

    {"id": "q01", "question": "What is the boiling point of methanol?", "answerable": true,
     "expect_contains": ["64.7"], "expect_docs": ["substances/methanol.md"],
     "forbid_contains": ["safe to drink"]}

``expect_contains`` are alternatives: an answer is correct when its rendered text
contains at least one of them (case-insensitive, Unicode- and whitespace-folded).
``expect_docs`` names documents retrieval should reach, as a manifest path, a source,
a title or a ``doc_id`` (see ``doc_matches``). ``forbid_contains`` lists text that must
never be rendered (an injected payload); ``payloads`` are the sentences a generator
that obeyed the planted instructions would write (``ObedientGenerator``, ``tether eval
--obedient``). Other keys are ignored.

A manifest entry (``ingest --manifest``) may carry ``"planted": [{"text", "where"}]``:
the instructions an adversary planted in that document and where (``prose``,
``html-visible``, ``html-comment``, ``html-hidden``, ``markdown-comment``, ``pdf-text``,
``pdf-hidden-text``). Documents without it are clean. Ingest ignores the key.
"""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import ids
from ..errors import InputError
from ..ingest.files import load_manifest
from ..records import Document

__all__ = ["GoldenItem", "Labels", "Planted", "doc_matches", "load_golden", "load_labels"]


@dataclass(frozen=True, slots=True)
class GoldenItem:
    id: str
    question: str
    answerable: bool
    expect_contains: tuple[str, ...] = ()
    expect_docs: tuple[str, ...] = ()
    forbid_contains: tuple[str, ...] = ()
    payloads: tuple[str, ...] = ()


def _strings(obj: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = obj.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InputError(f"{where}: {key!r} must be a list of non-empty strings")
    return tuple(value)


def parse_item(obj: dict[str, Any], *, where: str) -> GoldenItem:
    item_id = obj.get("id")
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)) or str(item_id) == "":
        raise InputError(f"{where}: needs an 'id' (string or number)")
    question = obj.get("question")
    if not isinstance(question, str) or not question.strip():
        raise InputError(f"{where}: 'question' must be a non-empty string")
    answerable = obj.get("answerable")
    if not isinstance(answerable, bool):
        raise InputError(f"{where}: 'answerable' must be true or false")
    return GoldenItem(
        id=str(item_id),
        question=question,
        answerable=answerable,
        expect_contains=_strings(obj, "expect_contains", where),
        expect_docs=_strings(obj, "expect_docs", where),
        forbid_contains=_strings(obj, "forbid_contains", where),
        payloads=_strings(obj, "payloads", where),
    )


def load_golden(path: str | Path) -> list[GoldenItem]:
    """Every line validated before any question is asked; a bad one is an ``InputError``."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read golden file {path}: {exc}") from exc
    items: list[GoldenItem] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
        item = parse_item(obj, where=where)
        if item.id in seen:
            raise InputError(f"{where}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise InputError(f"{path}: no golden questions in the file")
    return items


@dataclass(frozen=True, slots=True)
class Planted:
    doc_id: str
    path: str
    text: str
    where: str


@dataclass(frozen=True, slots=True)
class Labels:
    """What the manifests say: path → source, and planted instructions per document.

    ``documents`` maps every manifest document's ``doc_id`` to its manifest path; a
    document is clean when ``planted`` has no entry for it.
    """

    sources: dict[str, str] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)
    planted: dict[str, tuple[Planted, ...]] = field(default_factory=dict)

    def merged(self, other: Labels) -> Labels:
        return Labels(
            {**self.sources, **other.sources},
            {**self.documents, **other.documents},
            {**self.planted, **other.planted},
        )

    def planted_texts(self) -> list[str]:
        return [p.text for items in self.planted.values() for p in items]


def load_labels(manifest: str | Path) -> Labels:
    """Labels from one manifest (paths are as written in it, relative to its folder)."""
    entries = load_manifest(manifest)
    sources: dict[str, str] = {}
    documents: dict[str, str] = {}
    planted: dict[str, tuple[Planted, ...]] = {}
    for resolved, entry in entries.items():
        rel = str(entry["path"])
        # What ingest would use as the source when the entry names none.
        source = str(entry.get("source") or resolved.as_uri())
        doc_id = ids.doc_id_for(source)
        sources[rel] = source
        documents[doc_id] = rel
        items = entry.get("planted") or []
        if not isinstance(items, list) or not all(
            isinstance(p, dict) and isinstance(p.get("text"), str) and isinstance(p.get("where"), str)
            for p in items
        ):
            raise InputError(f"{manifest}: {rel}: 'planted' must be a list of {{'text', 'where'}}")
        if items:
            planted[doc_id] = tuple(Planted(doc_id, rel, p["text"], p["where"]) for p in items)
    return Labels(sources, documents, planted)


def doc_matches(entry: str, document: Document, labels: Labels | None = None) -> bool:
    """Does ``expect_docs`` entry name ``document``?

    In order: the document's ``doc_id``, ``source`` or ``title`` equal to the entry; a
    manifest path whose source is the document's (``ids.doc_id_for`` normalises the
    comparison); or a source ending in ``/`` + the entry, so a path relative to any
    ingested folder matches a ``file://`` source without a manifest.
    """
    if entry in (document.doc_id, document.source, document.title):
        return True
    if labels is not None and entry in labels.sources:
        return ids.doc_id_for(labels.sources[entry]) == document.doc_id
    tail = "/" + entry.strip().lstrip("./")
    return urllib.parse.unquote(document.source).endswith(tail)
