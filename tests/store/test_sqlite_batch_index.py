"""The SQLite store indexes what a write transaction wrote once, just before its
commit (``SQLiteStore._index_written``): after any mix of writes in one batch —
documents replaced (their rowids reused), written twice, deleted, and writes that
failed part-way — the FTS5 index holds exactly the stored passages."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from tether import ids
from tether.ingest.sources import build_passages
from tether.records import Document, Version
from tether.store.sqlite import SQLiteStore


def _doc(name: str, text: str):
    source = f"https://ex.org/{name}"
    document = Document(
        doc_id=ids.doc_id_for(source), source=source, title=name, license="CC0",
        fetched_at="2026-01-02", media_type="text/plain", acl=("public",),
    )
    version = Version(document.doc_id, ids.version_of(text), text, "text", "2026-01-02T00:00:00", ())
    return document, version, build_passages(version, document, max_chars=80)


def _text(word: str, n: int) -> str:
    return " ".join(f"The {word} sample number {i} is described here." for i in range(n))


def _found(store: SQLiteStore, word: str) -> set[str]:
    return {hit.document.title for hit in store.search([word], limit=100)}


def _failing(document, version, passages):
    """The same write with a duplicate passage id: refused by the UNIQUE constraint
    after the document's old passages were deleted and the new ones partly written."""
    return document, version, [*passages, dataclasses.replace(passages[0], start=passages[0].start + 1)]


@pytest.fixture
def store(tmp_path):
    opened = SQLiteStore(tmp_path / "store.db")
    yield opened
    opened.close()


def test_every_kind_of_write_in_one_batch_leaves_the_index_exact(store):
    # Before the batch: "kept" first, "replaced" last, so its rows hold the highest
    # rowids and its replacement reuses them.
    store.put(*_doc("kept", _text("alpha", 6)))
    store.put(*_doc("deleted", _text("gamma", 4)))
    store.put(*_doc("replaced", _text("alpha", 5)))
    with store.batch():
        assert store.put(*_doc("replaced", _text("beta", 7))) == "updated"
        assert store.put(*_doc("twice", _text("alpha", 3))) == "ingested"
        assert store.put(*_doc("twice", _text("delta", 4))) == "updated"
        with pytest.raises(sqlite3.IntegrityError):
            store.put(*_failing(*_doc("kept", _text("epsilon", 4))))  # indexed rows stay
        with pytest.raises(sqlite3.IntegrityError):
            store.put(*_failing(*_doc("twice", _text("zeta", 4))))  # unindexed rows stay
        assert store.delete_document(_doc("deleted", "")[0].doc_id)
        assert store.put(*_doc("gone", _text("gamma", 2))) == "ingested"
        assert store.delete_document(_doc("gone", "")[0].doc_id)
    assert store.integrity_problems() == []
    assert _found(store, "alpha") == {"kept"}
    assert _found(store, "beta") == {"replaced"}
    assert _found(store, "delta") == {"twice"}
    assert _found(store, "gamma") == _found(store, "epsilon") == _found(store, "zeta") == set()
    assert store.counts()["documents"] == 3


def test_a_document_written_alone_is_indexed_at_its_commit(store):
    store.put(*_doc("one", _text("alpha", 3)))
    store.put(*_doc("one", _text("beta", 3)))
    with pytest.raises(sqlite3.IntegrityError):
        store.put(*_failing(*_doc("one", _text("gamma", 3))))
    assert store.integrity_problems() == []
    assert _found(store, "beta") == {"one"}
    assert _found(store, "alpha") == _found(store, "gamma") == set()
