"""File records on every backend: kept, replaced, and trusted only while they still
describe the store (the version current, the document row as written)."""

from __future__ import annotations

import dataclasses

from tether import ids
from tether.records import Document, Passage, Version
from tether.store import Store
from tether.store.protocols import FileRecord


def _put(store: Store, text: str, **doc: object) -> tuple[Document, Version]:
    source = "file:///docs/a.txt"
    document = Document(ids.doc_id_for(source), source, "A", "CC0", "2026-01-01", "text/plain",
                        **doc)  # type: ignore[arg-type]
    version = Version(document.doc_id, ids.version_of(text), text, "test", "2026-01-01")
    passage = Passage(ids.passage_id_for(document.doc_id, version.version, 0, len(text)),
                      document.doc_id, version.version, 0, len(text), text)
    store.put(document, version, [passage])
    return document, version


def _record(document: Document, version: Version, **changes: object) -> FileRecord:
    record = FileRecord("/docs/a.txt", 40, 1_700_000_000_000_000_000, "ab" * 32, "fp", document.doc_id,
                        version.version, 1, 40, ("conceal",), (("white text", 2),))
    return dataclasses.replace(record, **changes)  # type: ignore[arg-type]


def test_a_record_comes_back_as_written_and_is_replaced(store: Store) -> None:
    assert store.file_record("/docs/a.txt") is None
    document, version = _put(store, "Valve 1 is checked weekly.")
    record = _record(document, version)
    store.record_file(record, document)
    assert store.file_record("/docs/a.txt") == record
    newer = dataclasses.replace(record, size=41, mtime_ns=0)
    store.record_file(newer, document)
    assert store.file_record("/docs/a.txt") == newer


def test_a_record_is_not_trusted_once_the_store_moved_on(store: Store) -> None:
    document, version = _put(store, "Valve 1 is checked weekly.")
    store.record_file(_record(document, version), document)
    _put(store, "Valve 1 is checked daily.")  # another version is current
    assert store.file_record("/docs/a.txt") is None
    document, version = _put(store, "Valve 1 is checked weekly.")
    store.record_file(_record(document, version), document)
    _put(store, "Valve 1 is checked weekly.", acl=("team",))  # same text, relabelled
    assert store.file_record("/docs/a.txt") is None
    document, version = _put(store, "Valve 1 is checked weekly.")
    store.record_file(_record(document, version), document)
    assert store.delete_document(document.doc_id)
    assert store.file_record("/docs/a.txt") is None
