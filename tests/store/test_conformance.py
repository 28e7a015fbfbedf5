"""Behaviour every store backend must share (run once per entry of ``BACKENDS``).

Covered here: ingest, versions, no-op re-ingest, retrieval sanity, ACL filtering,
transactional failure, concurrent writers, deletion, meta and the answer log. The
retrieval probe and citation resolution after reindexing belong to their own stages;
their conformance cases join this file when those stages land.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from dataclasses import replace

import pytest

from tether import ids
from tether.config import Settings
from tether.facade import Tether
from tether.ingest.plan import build_passages
from tether.records import Document, Region, Version
from tether.retrieve.search import query_terms


def _doc(
    source="https://ex.org/methanol",
    text="Methanol boils at 64.7 °C. It is toxic.",
    acl=("public",),
    max_chars=200,
    regions=(),
):
    document = Document(
        doc_id=ids.doc_id_for(source), source=source, title="Methanol", license="CC0",
        fetched_at="2026-01-02", media_type="text/plain", acl=acl,
    )
    version = Version(
        document.doc_id, ids.version_of(text), text, "text", "2026-01-02T00:00:00", regions
    )
    return document, version, build_passages(version, document, max_chars=max_chars)


def _counts(store, expected):
    """The store's counts of the tables ``expected`` names (stores count more tables
    than a test writes to, and gain some over time)."""
    counts = store.counts()
    return {table: counts[table] for table in expected}


# -- ingest and versions -------------------------------------------------------------


def test_put_then_search_finds_the_passage(store):
    document, version, passages = _doc()
    assert store.put(document, version, passages) == "ingested"
    hits = store.search(["methanol", "boils"], limit=5)
    assert hits and hits[0].passage.doc_id == document.doc_id
    assert hits[0].score > 0
    p = hits[0].passage
    assert p.text == version.text[p.start : p.end]
    assert store.document(document.doc_id) == document
    assert store.documents() == [document]


def test_records_round_trip_unchanged(store):
    text = "Page one says 1,000 ppm. 🧪 Ünïcode survives. Page two says more."
    document, version, passages = _doc(
        text=text, regions=(Region(0, 24, "p. 1"), Region(24, len(text), "p. 2")), max_chars=30
    )
    document = replace(document, kind="transcribed", process="OCR: test", acl=("a", "b"))
    passages = [replace(p, kind="transcribed", process="OCR: test", flags=("imperative",))
                for p in passages]
    store.put(document, version, passages)
    assert store.document(document.doc_id) == document
    assert store.version(document.doc_id) == version
    assert store.version(document.doc_id, version.version) == version
    assert store.passages(document.doc_id, version.version) == sorted(passages, key=lambda p: p.start)
    for p in store.passages(document.doc_id, version.version):
        assert p.text == text[p.start : p.end]


def test_reingesting_unchanged_text_is_a_noop_and_changed_text_adds_a_version(store):
    document, version, passages = _doc()
    store.put(document, version, passages)
    assert store.put(document, version, passages) == "unchanged"
    assert store.counts()["versions"] == 1
    _, new_version, new_passages = _doc(text="Methanol boils at 64.7 °C. It is very toxic.")
    assert store.put(document, new_version, new_passages) == "updated"
    assert store.version(document.doc_id).version == new_version.version
    assert store.version(document.doc_id, version.version).text == version.text  # old stays
    assert {h.passage.version for h in store.search(["toxic"], limit=5)} == {new_version.version}
    # Only the current version is indexed; the old one keeps its text, not its passages.
    assert store.passages(document.doc_id, version.version) == []
    assert store.passages(document.doc_id, new_version.version) == new_passages
    expected = {"documents": 1, "versions": 2, "passages": len(new_passages), "answers": 0, "citations": 0}
    assert _counts(store, expected) == expected
    # Going back to the first text makes it current again without a third version.
    assert store.put(document, version, passages) == "updated"
    assert store.version(document.doc_id).version == version.version
    assert store.counts()["versions"] == 2


def test_unknown_document_and_version_are_none(store):
    assert store.document("doc_missing") is None
    assert store.version("doc_missing") is None
    assert store.version("doc_missing", "sha256:00") is None
    assert store.passages("doc_missing", "sha256:00") == []
    assert store.answer_record("tr_missing") is None
    assert store.get_meta("missing") is None


def test_two_documents_with_the_same_text_are_both_stored(backend):
    store = backend.open()
    store.put(*_doc(source="https://ex.org/a"))
    store.put(*_doc(source="https://ex.org/b"))
    assert {h.document.source for h in store.search(["methanol"], limit=5)} == {
        "https://ex.org/a", "https://ex.org/b"
    }


def test_replace_passages_reindexes_the_current_version(store):
    document, version, passages = _doc(text="Alpha beta gamma. Delta epsilon zeta.", max_chars=20)
    store.put(document, version, passages)
    whole = build_passages(version, document, max_chars=1000)
    assert len(whole) == 1 and len(passages) == 2
    store.replace_passages(document.doc_id, whole)
    assert store.passages(document.doc_id, version.version) == whole
    hits = store.search(["alpha", "zeta"], limit=5)
    assert [h.passage.passage_id for h in hits] == [whole[0].passage_id]


# -- retrieval -----------------------------------------------------------------------


def test_retrieval_ranks_the_passage_with_the_rare_and_more_terms_first(store):
    filler = " ".join(f"Solvent note {i} mentions storage." for i in range(12))
    store.put(*_doc(source="https://ex.org/common", text=filler, max_chars=60))
    store.put(*_doc(source="https://ex.org/target",
                    text="Benzene storage requires a flammables cabinet.", max_chars=200))
    hits = store.search(query_terms("Where is benzene storage required?"), limit=3)
    assert len(hits) == 3
    assert hits[0].document.source == "https://ex.org/target"
    assert [h.rank for h in hits] == [0, 1, 2]
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))
    assert all(h.score > 0 for h in hits)


def test_retrieval_stems_and_matches_figures_as_questions_split_them(store):
    store.put(*_doc())
    # "boiling" matches "boils"; the figure 64.7 arrives as the terms 64 and 7.
    assert store.search(["boiling"], limit=5)
    assert query_terms("Is it 64.7?") == ["64", "7"]
    assert store.search(["64"], limit=5) and store.search(["7"], limit=5)
    assert store.search(["unrelated"], limit=5) == []
    assert store.search([], limit=5) == [] and store.search(["  "], limit=5) == []


def test_a_question_with_hundreds_of_terms_still_searches(store):
    store.put(*_doc())
    terms = [f"word{i}" for i in range(600)] + ["methanol"]
    hits = store.search(terms, limit=5)
    assert [h.document.source for h in hits] == ["https://ex.org/methanol"]


def test_limit_is_respected(store):
    text = " ".join(f"Sentence {i} about methanol." for i in range(30))
    store.put(*_doc(text=text, max_chars=40))
    assert len(store.search(["methanol"], limit=4)) == 4


def test_query_syntax_in_terms_is_data(store):
    store.put(*_doc())
    for term in ['"', "AND", "NEAR(", "*", "methanol OR", "-", "^", "'", "a:*", "&", "|",
                 "!", "<->", "methanol:A", "(", "):*", "\\", "%s", "{0}"]:
        store.search([term], limit=5)  # must not raise a query syntax error
    assert store.search(["methanol:*", "'methanol'"], limit=5)  # quoted text still matches


def test_pipeline_answers_with_citations_from_the_store(backend, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "methanol.md").write_text(
        "# Methanol\n\nMethanol boils at 64.7 °C at sea level. It is toxic if swallowed.\n",
        encoding="utf-8",
    )
    (tmp_path / "docs" / "acetone.md").write_text(
        "# Acetone\n\nAcetone has a flash point of −20 °C. It evaporates quickly.\n", encoding="utf-8"
    )
    with Tether(store=backend.open(), settings=Settings()) as tether:
        assert [r.status for r in tether.ingest(tmp_path / "docs")] == ["ingested", "ingested"]
        answer = tether.ask("What is the boiling point of methanol?")
        assert not answer.refused
        assert any("64.7" in s.text for s in answer.sentences)
        for sentence in answer.sentences:
            for citation in sentence.citations:
                text = tether.store.version(citation.doc_id, citation.version).text
                assert text[citation.start : citation.end] == citation.quote
        assert tether.store.answer_record(answer.trace_id)["question"] == answer.question
        assert tether.ask("Who founded the company?").refused


# -- access control ------------------------------------------------------------------


def test_acl_filters_search(store):
    store.put(*_doc())
    store.put(*_doc(source="https://ex.org/secret", text="Project Kestrel uses methanol.", acl=("finance",)))
    assert len(store.search(["methanol"], limit=5)) == 2
    assert {h.document.source for h in store.search(["methanol"], limit=5, principals=["public"])} == {
        "https://ex.org/methanol"
    }
    assert store.search(["kestrel"], limit=5, principals=["public"]) == []
    assert len(store.search(["kestrel"], limit=5, principals=["finance"])) == 1
    assert len(store.search(["methanol"], limit=5, principals=["public", "finance"])) == 2
    assert store.search(["methanol"], limit=5, principals=[]) == []


def test_acl_filter_applies_before_the_limit(store):
    # Many readable-by-nobody passages outrank the one public passage; the public one
    # must still come back (filtering after LIMIT would return nothing).
    secret = " ".join(f"Kestrel methanol methanol note {i}." for i in range(20))
    store.put(*_doc(source="https://ex.org/secret", text=secret, acl=("finance",), max_chars=40))
    store.put(*_doc(source="https://ex.org/public", text="A note on methanol.", acl=("public",)))
    hits = store.search(["methanol"], limit=2, principals=["public"])
    assert [h.document.source for h in hits] == ["https://ex.org/public"]


def test_a_new_version_with_a_narrower_acl_hides_the_document(store):
    store.put(*_doc())
    document, version, passages = _doc(text="Methanol is now restricted.", acl=("safety",))
    assert store.put(document, version, passages) == "updated"
    assert store.search(["methanol"], limit=5, principals=["public"]) == []
    assert len(store.search(["methanol"], limit=5, principals=["safety"])) == 1


def test_reingesting_the_same_text_with_a_narrower_acl_hides_the_document(store):
    document, version, passages = _doc()
    store.put(document, version, passages)
    assert store.search(["methanol"], limit=5, principals=["public"])
    narrowed = replace(document, acl=("safety",))
    assert store.put(narrowed, version, passages) == "updated"
    assert store.search(["methanol"], limit=5, principals=["public"]) == []
    assert store.term_counts(["methanol"], principals=["public"]) == (0, {"methanol": 0})
    (hit,) = store.search(["methanol"], limit=5, principals=["safety"])
    assert hit.document == narrowed and store.document(document.doc_id) == narrowed
    assert store.counts()["versions"] == 1  # the text did not change: no new version
    assert store.put(narrowed, version, passages) == "unchanged"


def test_an_acl_change_on_the_same_text_reaches_search_filtering_on_every_backend(store):
    # put re-indexes when what passages depend on changes: kind, process, and the ACL
    # (PostgreSQL filters on a copy of it in every passage row; SQLite reads documents).
    document, version, passages = _doc(acl=("public",))
    store.put(document, version, passages)
    widened = replace(document, acl=("public", "safety"))
    assert store.put(widened, version, passages) == "updated"
    (hit,) = store.search(["methanol"], limit=5, principals=["safety"])
    assert hit.document == widened and hit.passage == passages[0]
    assert store.term_counts(["methanol"], principals=["safety"]) == (1, {"methanol": 1})
    moved = replace(widened, acl=("safety",))
    assert store.put(moved, version, passages) == "updated"
    assert store.search(["methanol"], limit=5, principals=["public"]) == []
    assert store.term_counts(["methanol"], principals=["public"]) == (0, {"methanol": 0})
    assert [h.document for h in store.search(["methanol"], limit=5, principals=["safety"])] == [moved]
    assert store.passages(document.doc_id, version.version) == passages
    assert store.integrity_problems() == []


def test_reingesting_the_same_text_with_new_metadata_updates_document_and_passages(store):
    document, version, passages = _doc()
    store.put(document, version, passages)
    transcribed = replace(document, title="Methanol (transcribed)", license="CC BY 4.0",
                          fetched_at="2026-03-04", kind="transcribed", process="OCR: test")
    # Passages carry the document's provenance, as ingest builds them.
    rebuilt = build_passages(version, transcribed, max_chars=200)
    assert store.put(transcribed, version, rebuilt) == "updated"
    assert store.document(document.doc_id) == transcribed
    assert store.passages(document.doc_id, version.version) == rebuilt
    assert {(p.kind, p.process) for p in store.passages(document.doc_id, version.version)} == {
        ("transcribed", "OCR: test")}
    (hit,) = store.search(["methanol"], limit=5)
    assert hit.document == transcribed and hit.passage.kind == "transcribed"
    assert store.version(document.doc_id).version == version.version
    assert store.counts()["versions"] == 1
    assert store.put(transcribed, version, rebuilt) == "unchanged"


def test_reingesting_the_same_text_fetched_again_updates_only_the_document(store):
    document, version, passages = _doc()
    store.put(document, version, passages)
    refetched = replace(document, fetched_at="2026-05-06")
    assert store.put(refetched, version, passages) == "updated"
    assert store.document(document.doc_id) == refetched
    assert store.passages(document.doc_id, version.version) == passages
    (hit,) = store.search(["methanol"], limit=5, principals=["public"])
    assert hit.document == refetched and hit.passage == passages[0]


# -- transactions and concurrency ----------------------------------------------------


def test_failed_write_leaves_nothing(store):
    document, version, passages = _doc()
    broken = passages + [passages[0]]  # duplicate passage id violates uniqueness mid-write
    with pytest.raises(Exception):
        store.put(document, version, broken)
    assert store.document(document.doc_id) is None
    assert store.search(["methanol"], limit=5) == []
    assert store.counts()["versions"] == 0


def test_failed_update_keeps_the_previous_version_current_and_indexed(store):
    document, version, passages = _doc()
    store.put(document, version, passages)
    _, new_version, new_passages = _doc(text="Methanol boils at 65 °C. It is harmless.")
    with pytest.raises(Exception):
        store.put(document, new_version, new_passages + [new_passages[0]])
    assert store.version(document.doc_id).version == version.version
    assert store.version(document.doc_id, new_version.version) is None
    assert store.passages(document.doc_id, version.version) == passages
    assert store.search(["harmless"], limit=5) == []
    assert store.search(["toxic"], limit=5)
    # The store is still usable after a failed transaction.
    assert store.put(document, new_version, new_passages) == "updated"


def _concurrently(functions):
    barrier = threading.Barrier(len(functions))
    results, errors = [None] * len(functions), []

    def run(i, fn):
        try:
            barrier.wait()
            results[i] = fn()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, fn)) for i, fn in enumerate(functions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    return results


def test_concurrent_writers_of_the_same_text_ingest_it_once(backend):
    stores = [backend.open() for _ in range(4)]
    document, version, passages = _doc()
    results = _concurrently([lambda s=s: s.put(document, version, passages) for s in stores])
    assert Counter(results) == Counter({"ingested": 1, "unchanged": 3})
    expected = {"documents": 1, "versions": 1, "passages": len(passages), "answers": 0, "citations": 0}
    assert _counts(stores[0], expected) == expected


def test_concurrent_writers_of_different_texts_resolve_to_one_version(backend):
    stores = [backend.open() for _ in range(4)]
    drafts = [_doc(text=f"Methanol edition {i}. " * (i + 1), max_chars=30) for i in range(4)]
    results = _concurrently(
        [lambda s=s, d=d: s.put(*d) for s, d in zip(stores, drafts)]
    )
    assert Counter(results) == Counter({"ingested": 1, "updated": 3})
    store = stores[0]
    doc_id = drafts[0][0].doc_id
    current = store.version(doc_id)
    winner = next(d for d in drafts if d[1].version == current.version)
    # Exactly the winner's passages are indexed: no mix of editions.
    assert store.passages(doc_id, current.version) == winner[2]
    expected = {"documents": 1, "versions": 4, "passages": len(winner[2]), "answers": 0, "citations": 0}
    assert _counts(store, expected) == expected
    assert {h.passage.version for h in store.search(["methanol"], limit=50)} == {current.version}


def test_concurrent_writers_of_many_documents_lose_nothing(backend):
    stores = [backend.open() for _ in range(3)]
    batches = [[_doc(source=f"https://ex.org/{w}/{i}", text=f"Writer {w} document {i} on methanol.")
                for i in range(15)] for w in range(3)]

    def write(store, batch):
        return [store.put(*d) for d in batch]

    results = _concurrently([lambda s=s, b=b: write(s, b) for s, b in zip(stores, batches)])
    assert all(r == ["ingested"] * 15 for r in results)
    assert stores[1].counts()["documents"] == 45
    assert len(stores[2].search(["methanol"], limit=100)) == 45


# -- deletion, meta, the answer log --------------------------------------------------


def test_delete_and_meta_and_answers(store):
    document, version, passages = _doc()
    store.put(document, version, passages)
    assert store.delete_document(document.doc_id)
    assert not store.delete_document(document.doc_id)
    assert store.search(["methanol"], limit=5) == []
    assert store.document(document.doc_id) is None and store.version(document.doc_id) is None
    store.set_meta("k", "v")
    assert store.get_meta("k") == "v"
    store.set_meta("k", "w")
    assert store.get_meta("k") == "w"
    payload = {"question": "q", "nested": {"list": [1, 2.5, None, True]}, "text": "é \u0000 🧪"}
    store.record_answer("tr_1", "2026-01-01T00:00:00", payload)
    assert store.answer_record("tr_1") == payload
    store.record_answer("tr_1", "2026-01-01T00:00:01", {"question": "again"})
    assert store.answer_record("tr_1") == {"question": "again"}
    assert {k: store.counts()[k] for k in ("documents", "versions", "passages", "answers")} == {
        "documents": 0, "versions": 0, "passages": 0, "answers": 1}


def test_location_names_the_store_as_given(backend):
    # What messages show (``tether ingest`` ends with it): the path, or the URL.
    assert backend.open().location == backend.location


def test_scorer_names_differ_between_backends(backend):
    # Probe thresholds are calibrated per scorer; two backends must never share a name.
    from tether.store.sqlite import SQLiteStore

    store = backend.open()
    assert store.scorer
    if backend.name != "sqlite":
        assert store.scorer != SQLiteStore.scorer
