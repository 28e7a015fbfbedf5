"""Document writers (migration 0004), on every backend: the first claim wins, the
record goes with the document, and a claim for a document that never landed can be
released."""

from __future__ import annotations

from tether.ops.documents import may_write, remove_document, writers_of

from .test_conformance_documents import _put as _put_document


def _put(store, source, text, **options):
    document, _, _ = _put_document(store, source, text, **options)
    return document.doc_id


def test_the_first_claim_wins_and_goes_with_the_document(store):
    doc_id = _put(store, "https://example.org/w", "Water boils at 100 degrees.")
    assert store.writers(doc_id) is None
    assert store.claim_writers(doc_id, ["team"]) == ("team",)
    assert store.claim_writers(doc_id, ["mallory"]) == ("team",)
    document = store.document(doc_id)
    assert writers_of(store, document) == ("team",)
    assert may_write(store, document, ["team", "public"])
    assert not may_write(store, document, ["mallory", "public"])
    assert remove_document(store, doc_id, by="test") is not None
    assert store.writers(doc_id) is None  # a later upload of the source owns it afresh


def test_writers_fall_back_to_the_acl_and_a_public_document_to_the_operator(store):
    shared = store.document(_put(store, "https://example.org/a", "Acetone boils at 56 C.",
                                 acl=("finance", "public")))
    assert writers_of(store, shared) == ("finance",)
    assert may_write(store, shared, ["finance"]) and not may_write(store, shared, ["public", "hr"])
    public = store.document(_put(store, "https://example.org/p", "Ethanol boils at 78 C."))
    assert writers_of(store, public) == ()
    assert may_write(store, public, ["public"])  # the anonymous (loopback) operator
    assert not may_write(store, public, ["reader", "public"])


def test_a_claim_is_released_only_while_its_document_does_not_exist(store):
    store.claim_writers("doc_never", ["team"])
    store.release_writers("doc_never")
    assert store.writers("doc_never") is None
    doc_id = _put(store, "https://example.org/k", "Kerosene is a fuel.")
    store.claim_writers(doc_id, ["team"])
    store.release_writers(doc_id)
    assert store.writers(doc_id) == ("team",)
