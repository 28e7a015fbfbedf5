"""What ``tether check`` needs from every backend (runs on each backend in ``BACKENDS``):
the audit log's citations listed, and no backend problems in a sound store."""

from citehelp import cite, put_text

from tether.ops.consistency import check_store

TEXT = "Methanol boils at 64.7 °C. It is toxic.\n\nStore it cool. Keep it shut."


def test_recorded_citations_lists_the_audit_log_in_order(store):
    document, version = put_text(store, TEXT)
    first, second = cite(document, version, 0, 26), cite(document, version, 27, 39)
    store.record_answer("tr_b", "2026-01-01T00:00:00", {}, [(0, first), (2, second)])
    store.record_answer("tr_a", "2026-01-01T00:00:00", {}, [(1, second)])
    store.record_answer("tr_refusal", "2026-01-01T00:00:00", {})
    assert store.recorded_citations() == [("tr_a", 1, second), ("tr_b", 0, first), ("tr_b", 2, second)]


def test_a_sound_store_has_no_problems(store):
    document, old = put_text(store, TEXT, passage_chars=20)
    store.record_answer("tr_1", "2026-01-01T00:00:00", {}, [(0, cite(document, old, 0, 26))])
    put_text(store, TEXT + " Updated.", passage_chars=20)  # the cited version is now old
    put_text(store, "Acetone is flammable.", source="https://ex.org/acetone")
    store.delete_document(put_text(store, "Gone soon.", source="https://ex.org/gone")[0].doc_id)
    assert store.integrity_problems() == []
    report = check_store(store)
    assert report.ok, report.problems
    assert report.counts["documents"] == 2 and report.counts["citations"] == 1
    assert report.citations == {"relocated": 1}
