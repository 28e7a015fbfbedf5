"""Re-segmentation keeps provenance and never indexes a stale version."""

import pytest
from citehelp import put_text

from tether.errors import InputError
from tether.ingest.reindex import reindex
from tether.store.sqlite import SQLiteStore

TEXT = " ".join(f"Sentence number {n} says something about methanol." for n in range(40))


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "store.db")
    yield s
    s.close()


def test_reindex_resegments_every_document_with_its_provenance(store):
    a, va = put_text(store, TEXT, source="https://ex.org/a", passage_chars=600)
    b, vb = put_text(store, TEXT.replace("methanol", "ethanol"), source="https://ex.org/b", kind="transcribed",
                     process="speech-to-text: whisper", passage_chars=600)
    before = store.counts()["passages"]
    seen = []
    result = reindex(store, passage_chars=120, progress=seen.append)
    assert (result.documents, result.skipped, result.passages_before) == (2, 0, before)
    assert result.passages_after == store.counts()["passages"] > before
    assert {d.doc_id for d in seen} == {a.doc_id, b.doc_id}
    for document, version in ((a, va), (b, vb)):
        passages = store.passages(document.doc_id, version.version)
        assert all(p.end - p.start <= 120 for p in passages)
        assert all(p.text == version.text[p.start : p.end] for p in passages)
        assert {(p.kind, p.process) for p in passages} == {(document.kind, document.process)}
    # Retrieval sees only the new passages.
    hits = store.search(["methanol", "ethanol"], limit=100)
    assert len(hits) == result.passages_after


def test_passage_chars_must_be_positive(store):
    with pytest.raises(InputError, match="at least 1"):
        reindex(store, passage_chars=0)


def test_a_deleted_document_is_skipped(store, monkeypatch):
    a, _ = put_text(store, TEXT, source="https://ex.org/a")
    put_text(store, TEXT + " Another.", source="https://ex.org/b")

    def delete_a(document):  # the document vanishes while the run goes on
        if document.doc_id == a.doc_id:
            store.delete_document(a.doc_id)

    result = reindex(store, passage_chars=100, progress=delete_a)
    assert (result.documents, result.skipped) == (1, 1)
    assert store.document(a.doc_id) is None
