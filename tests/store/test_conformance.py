"""Behaviour every store backend must share."""

import pytest

from tether import ids
from tether.ingest import build_passages
from tether.records import Document, Version


def _doc(source="https://ex.org/methanol", text="Methanol boils at 64.7 °C. It is toxic.", acl=("public",)):
    document = Document(
        doc_id=ids.doc_id_for(source), source=source, title="Methanol", license="CC0",
        fetched_at="2026-01-02", media_type="text/plain", acl=acl,
    )
    version = Version(document.doc_id, ids.version_of(text), text, "text", "2026-01-02T00:00:00")
    return document, version, build_passages(version, document, max_chars=200)


def test_put_then_search_finds_the_passage(store):
    document, version, passages = _doc()
    assert store.put(document, version, passages) == "ingested"
    hits = store.search(["methanol", "boils"], limit=5)
    assert hits and hits[0].passage.doc_id == document.doc_id
    assert hits[0].score > 0
    p = hits[0].passage
    assert p.text == version.text[p.start : p.end]
    assert store.document(document.doc_id) == document


def test_reingesting_unchanged_text_is_a_noop_and_changed_text_adds_a_version(store):
    document, version, passages = _doc()
    store.put(document, version, passages)
    assert store.put(document, version, passages) == "unchanged"
    _, new_version, new_passages = _doc(text="Methanol boils at 64.7 °C. It is very toxic.")
    assert store.put(document, new_version, new_passages) == "updated"
    assert store.version(document.doc_id).version == new_version.version
    assert store.version(document.doc_id, version.version).text == version.text  # old stays
    assert {h.passage.version for h in store.search(["toxic"], limit=5)} == {new_version.version}


def test_acl_filters_search(store):
    store.put(*_doc())
    store.put(*_doc(source="https://ex.org/secret", text="Project Kestrel uses methanol.", acl=("finance",)))
    assert len(store.search(["methanol"], limit=5)) == 2
    assert {h.document.source for h in store.search(["methanol"], limit=5, principals=["public"])} == {
        "https://ex.org/methanol"
    }
    assert store.search(["kestrel"], limit=5, principals=["public"]) == []
    assert len(store.search(["kestrel"], limit=5, principals=["finance"])) == 1


def test_failed_write_leaves_nothing(store):
    document, version, passages = _doc()
    broken = passages + [passages[0]]  # duplicate passage id violates uniqueness mid-write
    with pytest.raises(Exception):
        store.put(document, version, broken)
    assert store.document(document.doc_id) is None
    assert store.search(["methanol"], limit=5) == []
    assert store.counts()["versions"] == 0


def test_query_syntax_in_terms_is_data(store):
    store.put(*_doc())
    for term in ['"', "AND", "NEAR(", "*", "methanol OR", "-", "^"]:
        store.search([term], limit=5)  # must not raise an FTS syntax error


def test_delete_and_meta_and_answers(store):
    document, version, passages = _doc()
    store.put(document, version, passages)
    assert store.delete_document(document.doc_id)
    assert store.search(["methanol"], limit=5) == []
    store.set_meta("k", "v")
    assert store.get_meta("k") == "v"
    store.record_answer("tr_1", "2026-01-01T00:00:00", {"question": "q"})
    assert store.answer_record("tr_1") == {"question": "q"}


def test_two_documents_with_identical_text_are_both_stored(store):
    text = "Identical boilerplate about methanol storage."
    first = _doc(source="https://ex.org/one", text=text)
    second = _doc(source="https://ex.org/two", text=text)
    assert store.put(*first) == "ingested"
    assert store.put(*second) == "ingested"
    assert {h.document.source for h in store.search(["boilerplate"], limit=5)} == {
        "https://ex.org/one", "https://ex.org/two"
    }
