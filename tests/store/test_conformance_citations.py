"""Audit log, version retention and the range methods citation resolution relies on:
behaviour every store backend must share (runs on each backend in ``BACKENDS``)."""

from citehelp import cite, put_text

from tether.ingest.plan import build_passages

TEXT = "Methanol boils at 64.7 °C. It is toxic.\n\nStore it cool. Keep it shut."


def test_answer_and_citations_are_recorded_together_in_order(store):
    document, version = put_text(store, TEXT)
    first, second = cite(document, version, 0, 26), cite(document, version, 27, 39)
    store.record_answer("tr_1", "2026-01-01T00:00:00", {"question": "q"}, [(0, first), (1, second)])
    assert store.answer_record("tr_1") == {"question": "q"}
    assert store.answer_citations("tr_1") == [(0, first), (1, second)]
    # Recording the same trace again replaces its citations, never adds to them.
    store.record_answer("tr_1", "2026-01-01T00:00:00", {"question": "q"}, [(0, second)])
    assert store.answer_citations("tr_1") == [(0, second)]
    assert store.answer_citations("tr_unknown") == []


def test_provenance_survives_the_audit_log(store):
    document, version = put_text(store, TEXT, kind="transcribed", process="OCR: tesseract 5")
    citation = cite(document, version, 0, 26)
    store.record_answer("tr_2", "2026-01-01T00:00:00", {}, [(0, citation)])
    (_, stored), = store.answer_citations("tr_2")
    assert (stored.kind, stored.process) == ("transcribed", "OCR: tesseract 5")


def test_range_reads(store):
    document, version = put_text(store, TEXT, passage_chars=20)
    assert store.current_version(document.doc_id) == version.version
    assert store.current_version("doc_none") is None
    assert store.version_slice(document.doc_id, version.version, 0, 8) == "Methanol"
    assert store.version_slice(document.doc_id, version.version, 27, 39) == TEXT[27:39]
    assert store.version_slice(document.doc_id, version.version, len(TEXT) - 2, len(TEXT) + 5) == "t."
    assert store.version_slice(document.doc_id, "sha256:none", 0, 8) is None
    covering = store.covering_passages(document.doc_id, version.version, 20, 45)
    assert covering and all(p.start < 45 and p.end > 20 for p in covering)
    every = store.passages(document.doc_id, version.version)
    assert [p for p in every if p.start < 45 and p.end > 20] == covering


def test_replace_passages_refuses_passages_of_an_old_version(store):
    document, old = put_text(store, TEXT)
    stale = build_passages(old, document, max_chars=10)
    _, new = put_text(store, TEXT + " Updated.")
    before = store.passages(document.doc_id, new.version)
    assert store.replace_passages(document.doc_id, stale) is False
    assert store.passages(document.doc_id, new.version) == before
    fresh = build_passages(new, document, max_chars=10)
    assert store.replace_passages(document.doc_id, fresh) is True
    assert store.passages(document.doc_id, new.version) == fresh


def test_collect_versions_keeps_current_and_cited_versions(store):
    document, v1 = put_text(store, TEXT)
    _, v2 = put_text(store, TEXT + " Second.")
    _, v3 = put_text(store, TEXT + " Third, with ünïcode.")
    _, v4 = put_text(store, TEXT + " Fourth.")
    store.record_answer("tr_1", "2026-01-01T00:00:00", {}, [(0, cite(document, v2, 0, 8))])
    dry = store.collect_versions(dry_run=True)
    assert (dry.removed, dry.kept_cited) == (2, 1)
    assert dry.freed_bytes == len(v1.text.encode()) + len(v3.text.encode())
    assert store.version(document.doc_id, v1.version) is not None  # a dry run changes nothing
    done = store.collect_versions()
    assert done == dry
    assert store.version(document.doc_id, v1.version) is None
    assert store.version(document.doc_id, v3.version) is None
    assert store.version(document.doc_id, v2.version).text == v2.text
    assert store.version(document.doc_id).version == v4.version
    again = store.collect_versions()
    assert (again.removed, again.freed_bytes, again.kept_cited) == (0, 0, 1)


def test_collecting_while_writers_switch_versions_never_loses_the_current_one(backend):
    # Writers keep switching one document between three texts (each switch back makes
    # an old version current again) while gc runs: gc must never delete a version that
    # a writer is making current. Only gc deletes versions, and it runs in this thread,
    # so a current version that is missing here was deleted by mistake.
    import threading

    writers = [backend.open() for _ in range(3)]
    collector = backend.open()
    texts = [f"{TEXT} Edition {i}." for i in range(3)]
    document, _ = put_text(collector, texts[0])
    done = threading.Event()
    errors: list[BaseException] = []

    def write(store, first):
        try:
            for i in range(first, first + 120):
                put_text(store, texts[i % 3])
        except BaseException as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(s, k)) for k, s in enumerate(writers)]
    for t in threads:
        t.start()
    missing = runs = 0
    while any(t.is_alive() for t in threads) or not runs:
        collector.collect_versions()
        runs += 1
        current = collector.current_version(document.doc_id)
        if collector.version(document.doc_id, current) is None:
            missing += 1
    for t in threads:
        t.join()
    assert errors == [] and missing == 0, (errors, missing, runs)
