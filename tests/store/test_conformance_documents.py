"""Listing and removing documents behave the same on every backend (``BACKENDS``):
``list_documents`` pages by (source, doc_id) with the ACL applied before the limit,
and a removal recorded by ``ops.documents`` makes citations resolve ``missing`` with
its reason, for callers who could read the document only."""

from __future__ import annotations

from datetime import datetime, timezone

from tether import ids
from tether.ingest.plan import build_passages
from tether.ops.cite import resolve
from tether.ops.documents import removal_of, remove_document, summaries, summary
from tether.records import Citation, Document, Version


def _put(store, source, text, *, acl=("public",), created="2026-01-02T00:00:00", max_chars=200):
    document = Document(
        doc_id=ids.doc_id_for(source), source=source, title=source.rsplit("/", 1)[-1],
        license="CC0", fetched_at="2026-01-02", media_type="text/plain", acl=acl,
    )
    version = Version(document.doc_id, ids.version_of(text), text, "text", created, ())
    passages = build_passages(version, document, max_chars=max_chars)
    store.put(document, version, passages)
    return document, version, passages


def _sources(entries):
    return [e.document.source for e in entries]


def test_list_documents_pages_by_source_with_counts(store):
    # Sources whose byte order differs from a case-folding collation: both backends
    # must order (and page) the same way.
    names = ["https://ex.org/b", "https://ex.org/B2", "https://ex.org/a", "https://ex.org/Z", "https://ex.org/é"]
    for name in names:
        _put(store, name, f"Text of {name}. It has two sentences.")
    document, _, _ = _put(store, "https://ex.org/a", "Methanol boils at 64.7 °C. " * 20,
                          created="2026-03-04T05:06:07", max_chars=120)
    first = store.list_documents(None, limit=2)
    assert _sources(first) == ["https://ex.org/B2", "https://ex.org/Z"]
    rest = store.list_documents(None, limit=10, after=(first[-1].document.source, first[-1].document.doc_id))
    assert _sources(rest) == ["https://ex.org/a", "https://ex.org/b", "https://ex.org/é"]
    a = rest[0]
    assert a.document == document
    assert a.versions == 2 and a.passages == len(store.passages(document.doc_id, a.current_version)) > 1
    assert a.current_version == store.current_version(document.doc_id)
    assert a.ingested_at == "2026-03-04T05:06:07"
    assert store.list_documents(None, limit=10, after=(rest[-1].document.source, rest[-1].document.doc_id)) == []
    assert store.list_documents(None, limit=0) == []


def test_list_documents_filters_by_acl_before_the_limit(store):
    for n in range(4):
        _put(store, f"https://ex.org/secret{n}", "Kestrel budget is 42 million euros.", acl=("finance",))
    _put(store, "https://ex.org/zzz-public", "Methanol boils at 64.7 °C.")
    assert _sources(store.list_documents(["public"], limit=1)) == ["https://ex.org/zzz-public"]
    assert len(store.list_documents(["finance"], limit=10)) == 4
    assert len(store.list_documents(["public", "finance"], limit=10)) == 5
    assert store.list_documents(["nobody"], limit=10) == []
    assert store.list_documents([], limit=10) == []


def test_summaries_walk_every_page(store, monkeypatch):
    from tether.ops import documents

    monkeypatch.setattr(documents, "_PAGE", 2)  # several pages from a small store
    for n in range(5):
        _put(store, f"https://ex.org/{n}", f"Document number {n} says something.")
    assert _sources(summaries(store, None)) == [f"https://ex.org/{n}" for n in range(5)]
    assert summary(store, ids.doc_id_for("https://ex.org/3"), ["public"]).document.source == "https://ex.org/3"
    assert summary(store, ids.doc_id_for("https://ex.org/3"), ["finance"]) is None


def _citation(document, version, passage):
    return Citation(
        doc_id=document.doc_id, version=version.version, start=passage.start, end=passage.end,
        quote=passage.text, quote_hash=ids.quote_hash(passage.text), passage_id=passage.passage_id,
        source=document.source, title=document.title, license=document.license,
        fetched_at=document.fetched_at,
    )


def _fields(citation):
    return {name: getattr(citation, name) for name in Citation.__slots__}


def test_a_removed_document_resolves_missing_with_its_recorded_reason(store):
    document, version, passages = _put(store, "https://ex.org/memo", "Kestrel budget is 42 million euros.",
                                       acl=("finance",))
    keep, *_ = _put(store, "https://ex.org/other", "Methanol boils at 64.7 °C.")
    cited = _citation(document, version, passages[0])
    assert resolve(cited, store).status == "exact"
    assert remove_document(store, document.doc_id, by="cli (test)", principals=["public"]) is None
    assert store.document(document.doc_id) == document  # not readable: nothing removed

    when = datetime(2026, 5, 6, 7, 8, 9, tzinfo=timezone.utc)
    removal = remove_document(store, document.doc_id, by="cli (test)", reason="superseded", now=when)
    assert removal is not None and (removal.versions, removal.passages) == (1, len(passages))
    assert store.document(document.doc_id) is None and store.version(document.doc_id) is None
    assert store.document(keep.doc_id) == keep
    assert removal_of(store, document.doc_id) == removal  # read back through the store

    for principals in (None, ["finance"]):
        resolution = resolve(cited, store, principals=principals)
        assert resolution.status == "missing"
        assert resolution.note == (f"document {document.doc_id} (https://ex.org/memo) was removed on "
                                   "2026-05-06T07:08:09+00:00 by cli (test): superseded")
    # A caller who could not read it learns nothing beyond "missing".
    hidden = resolve(cited, store, principals=["public"])
    never = resolve(Citation(**{**_fields(cited), "doc_id": "doc_" + "0" * 20}), store)
    assert hidden.status == never.status == "missing"
    assert hidden.note == never.note.replace("doc_" + "0" * 20, document.doc_id)
    assert "removed" not in hidden.note and "memo" not in hidden.note

def test_a_document_ingested_again_after_removal_is_simply_there(store):
    document, version, passages = _put(store, "https://ex.org/memo", "Kestrel budget is 42 million euros.")
    cited = _citation(document, version, passages[0])
    remove_document(store, document.doc_id, by="cli (test)")
    assert resolve(cited, store).status == "missing"
    _put(store, "https://ex.org/memo", "Kestrel budget is 42 million euros.")
    assert resolve(cited, store).status == "exact"
    assert removal_of(store, document.doc_id) is None  # only read for an absent document
