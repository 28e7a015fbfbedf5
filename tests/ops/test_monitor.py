"""Per-answer metrics, the independent re-check, windows and drift flags."""

import dataclasses
import datetime as dt
import json
import math

import pytest

from tether import Tether
from tether.config import Settings
from tether.ops.monitor import (
    AnswerMetrics,
    drift_flags,
    measure_answer,
    metrics_time,
    rate,
    recheck_sentence,
    summarise,
    windows,
)

DOC = (
    "Methanol boils at 64.7 °C at sea level. Methanol is toxic when swallowed. "
    "The OASB 8-hour limit for methanol is 200 ppm."
)


@pytest.fixture
def tether(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "methanol.txt").write_text(DOC)
    t = Tether(tmp_path / "t.db", settings=Settings())
    t.ingest(tmp_path / "docs", source="https://ex.org/methanol", license="CC0")
    yield t
    t.close()


def test_rate_has_no_nan_and_null_only_when_nothing_is_measured():
    assert rate(0, 0) == {"value": None, "count": 0, "n": 0}
    assert rate(0, 5) == {"value": 0.0, "count": 0, "n": 5}
    assert rate(2, 3)["value"] == pytest.approx(2 / 3)
    json.dumps(rate(0, 0), allow_nan=False)


def test_every_rendered_sentence_rechecks_grounded(tether):
    answer = tether.ask("At what temperature does methanol boil?", record=False)
    assert answer.sentences
    for sentence in answer.sentences:
        assert recheck_sentence(sentence, tether.store, settings=tether.settings).grounded


def _with_citation(sentence, **changes):
    citation = dataclasses.replace(sentence.citations[0], **changes)
    return dataclasses.replace(sentence, citations=(citation,))


def test_recheck_catches_a_quote_that_is_not_the_stored_text(tether):
    sentence = tether.ask("At what temperature does methanol boil?", record=False).sentences[0]
    c = sentence.citations[0]
    moved = _with_citation(sentence, start=c.start + 1, end=c.end + 1)
    result = recheck_sentence(moved, tether.store, settings=tether.settings)
    assert not result.grounded and "quote differs from the stored text" in result.problems[0]


def test_recheck_catches_a_missing_version_a_bad_hash_and_an_unsupporting_quote(tether):
    sentence = tether.ask("At what temperature does methanol boil?", record=False).sentences[0]
    missing = _with_citation(sentence, version="sha256:" + "0" * 64)
    assert "version not in the store" in recheck_sentence(missing, tether.store, settings=tether.settings).problems[0]
    bad_hash = _with_citation(sentence, quote_hash="sha256:" + "f" * 64)
    assert any("quote_hash" in p for p in recheck_sentence(bad_hash, tether.store, settings=tether.settings).problems)
    wrong = dataclasses.replace(sentence, text="Methanol boils at 90 °C at sea level.")
    result = recheck_sentence(wrong, tether.store, settings=tether.settings)
    assert not result.grounded and "re-verified as contradicted" in result.problems[0]
    uncited = dataclasses.replace(sentence, citations=())
    assert recheck_sentence(uncited, tether.store, settings=tether.settings).problems == ("no citation",)


def test_a_refusal_counts_as_a_refusal_and_adds_nothing_to_sentence_rates(tether):
    answer = tether.ask("Who painted the Mona Lisa?", record=False)
    assert answer.refused
    metrics, rechecks = measure_answer(answer, tether.store, settings=tether.settings)
    assert (metrics.sentences, metrics.drafts, metrics.refused, rechecks) == (0, 0, True, [])
    summary = summarise([metrics])
    assert summary["groundedness"] == {"value": None, "count": 0, "n": 0}
    assert summary["refusal_rate"] == {"value": 1.0, "count": 1, "n": 1}
    assert summary["refusal_rate_by_layer"] == {"probe": {"value": 1.0, "count": 1, "n": 1}}


def test_stream_records_metrics_unless_told_not_to(tether):
    tether.ask("At what temperature does methanol boil?")
    tether.ask("At what temperature does methanol boil?", record=False)
    records = tether.store.metric_records()
    assert len(records) == 1
    metrics = AnswerMetrics.from_json(records[0][1])
    assert metrics.sentences >= 1 and metrics.grounded == metrics.sentences == metrics.cited
    assert metrics.total_ms is not None


def test_metrics_time_is_fixed_width_utc():
    naive = metrics_time(dt.datetime(2026, 3, 1, 12, 0))
    aware = metrics_time(dt.datetime(2026, 3, 1, 13, 0, tzinfo=dt.timezone(dt.timedelta(hours=1))))
    assert naive == aware == "2026-03-01T12:00:00.000000Z"


def _day(day, *, sentences=40, grounded=None, drafts=40, supported=None, cited=None):
    return (
        metrics_time(dt.datetime(2026, 3, day, 9, 30, tzinfo=dt.timezone.utc)),
        AnswerMetrics(
            sentences=sentences, cited=sentences if cited is None else cited,
            grounded=sentences if grounded is None else grounded, drafts=drafts,
            drafts_supported=drafts if supported is None else supported, drafts_cited=drafts,
        ),
    )


def test_windows_pool_counts_and_flag_a_fall_beyond_the_margin():
    records = [
        _day(1),
        _day(2, supported=37),  # 92.5%: a 7.5-point fall, beyond 5 points
        _day(3, supported=36),  # 90%: 2.5 points below day 2, within the margin
        _day(4, grounded=39),   # one sentence failed the re-check
    ]
    found = windows(records, size=dt.timedelta(days=1), settings=Settings())
    assert [w.start.day for w in found] == [1, 2, 3, 4]
    assert found[0].flags == ()
    assert len(found[1].flags) == 1 and found[1].flags[0].startswith("draft_faithfulness fell 7.5%")
    assert found[2].flags == ()
    assert found[3].flags[0].startswith("groundedness 97.50% < 100%")
    # day 4 recovered draft faithfulness: rising is never flagged
    assert not any("draft_faithfulness" in f for f in found[3].flags)


def test_small_windows_are_not_compared_but_groundedness_is_always_checked():
    settings = Settings(drift_min_n=20)
    records = [_day(1, sentences=5, drafts=5), _day(2, sentences=5, drafts=5, supported=2, grounded=4)]
    found = windows(records, size=dt.timedelta(days=1), settings=settings)
    assert len(found[1].flags) == 1 and found[1].flags[0].startswith("groundedness")


def test_drift_flags_on_coverage_and_the_margin_is_a_setting():
    before = summarise([_day(1)[1]])
    after = summarise([_day(2, cited=38)[1]])  # coverage 95%: a 5-point fall
    assert drift_flags(after, before, margin=0.05, min_n=20) == ()
    assert drift_flags(after, before, margin=0.04, min_n=20)[0].startswith("citation_coverage fell")


def test_windows_skip_empty_periods_and_compare_with_the_last_non_empty_one():
    found = windows([_day(1), _day(5, supported=30)], size=dt.timedelta(days=1), settings=Settings())
    assert [w.start.day for w in found] == [1, 5]
    assert found[1].flags and "draft_faithfulness" in found[1].flags[0]
    assert all(not (isinstance(v, float) and math.isnan(v)) for v in found[1].to_json().values())


def test_recheck_refuses_a_sentence_shown_without_a_supported_verdict(tether):
    sentence = tether.ask("At what temperature does methanol boil?", record=False).sentences[0]
    shown = dataclasses.replace(sentence, verdict=dataclasses.replace(sentence.verdict, outcome="mentioned"))
    result = recheck_sentence(shown, tether.store, settings=tether.settings)
    assert not result.grounded and result.problems == ("shown with a mentioned verdict",)


def test_record_answer_writes_audit_shadow_and_metrics_rows(tether):
    from tether.ops.monitor import record_answer

    answer = tether.ask("At what temperature does methanol boil?", record=False)
    note = {"sentence": "x", "outcome": "supported", "would_be": "contradicted", "reasons": "shadow:figure"}
    rechecks = record_answer(answer, tether.store, settings=tether.settings, shadow=[note])
    assert len(rechecks) == len(answer.sentences) and all(r.grounded for r in rechecks)
    assert len(tether.store.metric_records()) == 1
    (row,) = tether.store.shadow_entries()
    assert (row["gate"], row["suppressed"], row["trace_id"]) == ("figures", "sentence", answer.trace_id)
