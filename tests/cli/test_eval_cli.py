"""``tether eval`` and ``tether stats`` as a user runs them."""

import datetime as dt
import json
import uuid

from tether.ops.monitor import AnswerMetrics, metrics_time
from tether.store.sqlite import SQLiteStore

from .conftest import run_tether

REQUIRED = {"groundedness", "citation_coverage", "draft_faithfulness", "draft_citation_coverage",
            "drop_rate", "refusal_rate", "answer_accuracy", "abstain_precision", "abstain_recall",
            "latency_ms", "questions"}


def _no_nan(text):
    def refuse(value):
        raise AssertionError(f"{value} in JSON")
    return json.loads(text, parse_constant=refuse)


def test_eval_demo_suite_json_has_the_contract_keys_and_writes_a_report(tmp_path):
    report = tmp_path / "report.html"
    run = run_tether("eval", "--suite", "demo", "--json", "--html", str(report))
    assert run.code == 0, run.err
    out = _no_nan(run.out)
    assert REQUIRED <= set(out)
    assert {"retrieval_hit_rate", "drop_rate_by_outcome", "refusal_rate_by_layer",
            "instruction_leaks", "injection_detection"} <= set(out)
    assert out["groundedness"]["value"] == 1.0 and len(out["questions"]) == 40
    assert set(out["latency_ms"]) >= {"p50", "p95"}
    html = report.read_text(encoding="utf-8")
    assert "Invariants hold" in html and html.count("<svg") >= 4


def test_eval_against_a_store_with_a_golden_file_and_text_summary(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    assert run_tether("ingest", str(mixed_folder), "--db", str(db)).code == 0
    golden = tmp_path / "g.jsonl"
    golden.write_text(
        '{"id": "a", "question": "What is the flash point of acetone?", "answerable": true,'
        ' "expect_contains": ["-20 °C"], "expect_docs": ["acetone.md"]}\n'
        '{"id": "b", "question": "Who painted the Mona Lisa?", "answerable": false}\n'
    )
    run = run_tether("eval", str(golden), "--db", str(db))
    assert run.code == 0, run.err
    assert "groundedness             100.00%" in run.out
    assert "retrieval hit rate       100.00%  (1/1)" in run.out
    assert "abstain recall           100.00%  (1/1)" in run.out
    # evaluation traffic is not recorded as live answers
    assert SQLiteStore(db).metric_records() == []


def test_eval_exits_1_when_a_rendered_sentence_is_not_grounded(tmp_path, mixed_folder):
    import sqlite3

    db = tmp_path / "t.db"
    run_tether("ingest", str(mixed_folder), "--db", str(db))
    with sqlite3.connect(db) as con:
        con.execute("UPDATE versions SET text = replace(text, '-20', '-99')")
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": "a", "question": "What is the flash point of acetone?", "answerable": true}\n')
    run = run_tether("eval", str(golden), "--db", str(db), "--json")
    assert run.code == 1
    assert _no_nan(run.out)["groundedness"]["value"] < 1.0
    assert "eval: invariant broken: groundedness" in run.err and "Traceback" not in run.err


def test_eval_obedient_generator_on_the_injection_suite_reports_rendered_payloads(tmp_path):
    run = run_tether("eval", "--suite", "injection", "--obedient", "--json")
    out = _no_nan(run.out)
    leaked = out["instruction_leaks"]["count"]
    assert (run.code == 1) == (leaked > 0)
    assert out["run"]["generator"] == "obedient"


def test_eval_bad_input_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "question": "Q?"}\n')
    for args in (["eval"], ["eval", str(bad), "--db", str(tmp_path / "t.db")],
                 ["eval", "--suite", "demo", "--obedient"],
                 ["eval", "--suite", "nope"]):
        run = run_tether(*args)
        assert run.code == 2, (args, run.err)
        assert run.err.count("\n") == 1 and "Traceback" not in run.err
    assert "'answerable' must be true or false" in run_tether("eval", str(bad), "--db", "x.db").err
    missing = run_tether("eval", str(bad).replace("bad", "none"), "--db", str(tmp_path / "t.db"))
    assert missing.code == 2 and "cannot read golden file" in missing.err


def test_eval_needs_an_existing_store(tmp_path):
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": 1, "question": "Q?", "answerable": false}\n')
    run = run_tether("eval", str(golden), "--db", str(tmp_path / "none.db"))
    assert run.code == 3 and "no store at" in run.err
    assert not (tmp_path / "none.db").exists()


def _record(store, when, **counts):
    store.record_metrics(f"tr_{uuid.uuid4().hex}", metrics_time(when), AnswerMetrics(**counts).to_json())


def test_stats_windows_flags_and_check(tmp_path):
    db = tmp_path / "t.db"
    store = SQLiteStore(db)
    day = dt.datetime(2026, 3, 1, 8, tzinfo=dt.timezone.utc)
    for i in range(3):  # day 1: three clean answers, 10 drafts each
        _record(store, day + dt.timedelta(minutes=i), sentences=10, cited=10, grounded=10, drafts=10,
                drafts_supported=10, drafts_cited=10)
    _record(store, day + dt.timedelta(days=1), refused=True, refusal_layer="guard", drafts=2,
            dropped={"unsupported": 2})
    for i in range(3):  # day 2: faithfulness of drafts falls to 24/32
        _record(store, day + dt.timedelta(days=1, hours=i), sentences=8, cited=8, grounded=8,
                drafts=10, drafts_supported=8, drafts_cited=10, dropped={"contradicted": 2})
    store.close()
    run = run_tether("stats", "--db", str(db), "--since", "2026-03-01", "--json")
    assert run.code == 0, run.err
    out = _no_nan(run.out)
    assert [w["start"][:10] for w in out["windows"]] == ["2026-03-01", "2026-03-02"]
    first, second = out["windows"]
    assert first["flags"] == [] and first["answers"] == 3
    assert second["draft_faithfulness"] == {"value": 0.75, "count": 24, "n": 32}
    assert second["refusal_rate"] == {"value": 0.25, "count": 1, "n": 4}
    assert second["flags"][0].startswith("draft_faithfulness fell 25.0%")
    assert out["latest_flags"] == second["flags"]
    assert out["total"]["answers"] == 7

    text = run_tether("stats", "--db", str(db), "--since", "2026-03-01")
    assert "2026-03-02" in text.out and "! 2026-03-02: draft_faithfulness fell" in text.out
    assert run_tether("stats", "--db", str(db), "--since", "2026-03-01", "--check").code == 1
    only_first = run_tether("stats", "--db", str(db), "--since", "2026-03-01",
                            "--until", "2026-03-02", "--check", "--json")
    assert only_first.code == 0 and len(_no_nan(only_first.out)["windows"]) == 1
    hourly = _no_nan(run_tether("stats", "--db", str(db), "--since", "2026-03-01",
                                "--window", "1h", "--json").out)
    assert len(hourly["windows"]) == 4  # 08:00 on day 1; 08:00, 09:00, 10:00 on day 2


def test_stats_counts_answers_asked_through_the_cli(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    run_tether("ingest", str(mixed_folder), "--db", str(db))
    run_tether("ask", "What is the flash point of acetone?", "--db", str(db))
    run_tether("ask", "Who painted the Mona Lisa?", "--db", str(db))
    out = _no_nan(run_tether("stats", "--db", str(db), "--since", "1d", "--json").out)
    total = out["total"]
    assert total["answers"] == 2 and total["refusal_rate"]["count"] == 1
    assert total["groundedness"]["value"] == 1.0 and total["groundedness"]["n"] >= 1


def test_stats_bad_options_and_empty_store(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    run_tether("ingest", str(mixed_folder), "--db", str(db))
    assert run_tether("stats", "--db", str(db)).out.strip() == "no answers recorded"
    for args in (["--window", "0d"], ["--window", "soon"], ["--since", "yesterday"],
                 ["--since", "2026-03-02", "--until", "2026-03-01"]):
        run = run_tether("stats", "--db", str(db), *args)
        assert run.code == 2 and run.err.startswith("error: ") and "Traceback" not in run.err, args
