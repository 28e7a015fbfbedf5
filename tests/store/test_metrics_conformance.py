"""Every store backend keeps per-answer metrics and reads them back by time range."""


def test_metric_records_round_trip_in_time_order_with_a_half_open_range(store):
    store.record_metrics("tr_b", "2026-03-02T00:00:00.000000Z", {"sentences": 2, "grounded": 2})
    store.record_metrics("tr_a", "2026-03-01T12:00:00.000000Z", {"sentences": 1, "grounded": 1})
    store.record_metrics("tr_c", "2026-03-03T00:00:00.000000Z", {"sentences": 0, "refused": True})
    assert [t for t, _ in store.metric_records()] == [
        "2026-03-01T12:00:00.000000Z", "2026-03-02T00:00:00.000000Z", "2026-03-03T00:00:00.000000Z",
    ]
    window = store.metric_records(since="2026-03-02T00:00:00.000000Z", until="2026-03-03T00:00:00.000000Z")
    assert window == [("2026-03-02T00:00:00.000000Z", {"sentences": 2, "grounded": 2})]
    assert store.metric_records(since="2026-04-01T00:00:00.000000Z") == []


def test_recording_metrics_again_for_a_trace_replaces_them(store):
    store.record_metrics("tr_a", "2026-03-01T00:00:00.000000Z", {"sentences": 1})
    store.record_metrics("tr_a", "2026-03-01T00:00:00.000000Z", {"sentences": 3})
    assert store.metric_records() == [("2026-03-01T00:00:00.000000Z", {"sentences": 3})]
