"""The SQLite store indexes what a write transaction wrote once, just before its
commit (``SQLiteStore._index_written``): after any mix of writes in one batch —
documents replaced (their rowids reused), written twice, deleted, and writes that
failed part-way — the FTS5 index holds exactly the stored passages."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from tether import ids
from tether.ingest.plan import build_passages
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


def test_passages_from_a_worker_are_stored_as_the_records_they_stand_for(tmp_path):
    # A worker's Built arrives pickled, its passages as SlicedPassages: the rows the
    # store writes from the pieces are those it writes from the Passage records.
    import pickle

    from tether.config import Settings
    from tether.ingest.files import Metadata
    from tether.ingest.plan import build_document
    from tether.records import SlicedPassages

    text = "# Title\n\n" + _text("alpha", 9) + "\n\n## Part\n\n" + _text("beta", 7)
    built = build_document(text.encode(), "text/markdown", Metadata(license="CC0"), name="a.md",
                           default_source="file:///a.md", default_title="a", settings=Settings())
    arrived = pickle.loads(pickle.dumps(built))
    assert isinstance(arrived.passages, SlicedPassages)
    assert arrived.passages == built.passages and len(arrived.passages) == len(built.passages) > 1
    assert arrived.passages[1] == built.passages[1] and arrived.passages[0:2] == built.passages[0:2]
    assert arrived.flags == built.flags and arrived == built
    stores = [SQLiteStore(tmp_path / f"{n}.db") for n in ("records", "pieces")]
    for one, b in zip(stores, (built, arrived)):
        with one.batch():
            one.put(b.document, b.version, b.passages)
    rows = [one._db.execute("SELECT * FROM passages ORDER BY rowid").fetchall() for one in stores]
    assert [tuple(r) for r in rows[0]] == [tuple(r) for r in rows[1]]
    for one in stores:
        assert one.integrity_problems() == []
        assert _found(one, "beta") == {"Title"}
        one.close()


def test_a_batch_keeps_its_savepoints_journal_in_memory_and_only_while_it_lasts(store):
    # A large document's savepoint journal was a temporary file (ingest wrote 40 % of
    # its bytes there); a sort or temporary table outside a batch still goes to files.
    def temp_store() -> int:
        return store._db.execute("PRAGMA temp_store").fetchone()[0]

    assert temp_store() == 0
    with store.batch():
        assert temp_store() == 2  # MEMORY
        store.put(*_doc("big", _text("alpha", 400)))
        with pytest.raises(sqlite3.IntegrityError):
            store.put(*_failing(*_doc("refused", _text("beta", 400))))
    assert temp_store() == 0
    assert _found(store, "alpha") == {"big"} and _found(store, "beta") == set()
    with pytest.raises(RuntimeError), store.batch():
        raise RuntimeError("the writer failed")
    assert temp_store() == 0
