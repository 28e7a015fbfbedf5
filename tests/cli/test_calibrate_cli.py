"""``tether calibrate``, ``tether shadow-log`` and ``ask --mode`` through the real entry point."""

import json
import sys

import pytest
from abstain_corpus import ANSWERABLE, UNANSWERABLE, make_tether

from tether.cli import main
from tether.retrieve.calibrate import META_PREFIX


def run(capsys, *args):
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


@pytest.fixture
def db(tmp_path):
    make_tether(tmp_path).close()
    return str(tmp_path / "store.db")


@pytest.fixture
def labeled(tmp_path):
    path = tmp_path / "labeled.jsonl"
    lines = [{"question": q, "answerable": True} for q in ANSWERABLE]
    lines += [{"question": q, "answerable": False} for q in UNANSWERABLE]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n", encoding="utf-8")
    return str(path)


def _saved(db):
    from tether.store.sqlite import SQLiteStore

    store = SQLiteStore(db)
    try:
        return store.get_meta(META_PREFIX + store.scorer)
    finally:
        store.close()


def test_calibrate_prints_distributions_threshold_margins_and_saves(capsys, db, labeled):
    code, out, err = run(capsys, "calibrate", labeled, "--db", db)
    assert code == 0, err
    assert "answerable" in out and "unanswerable" in out and "<- threshold" in out
    assert "margin below" in out and "margin above" in out
    assert "implied abstain precision 1.000, recall 1.000" in out
    saved = json.loads(_saved(db))
    assert f"saved: threshold {saved['threshold']:g} for scorer 'sqlite-fts5-bm25'" in out
    # ask no longer notes an uncalibrated default
    code, out, err = run(capsys, "ask", ANSWERABLE[1], "--db", db)
    assert code == 0 and "note:" not in err


def test_ask_notes_the_uncalibrated_default_once(capsys, db, tmp_path):
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(json.dumps({"id": i, "question": q})
                               for i, q in enumerate(ANSWERABLE)), encoding="utf-8")
    code, out, err = run(capsys, "ask", "--db", db, "--jsonl", str(batch))
    assert code == 0
    assert err.count("note: the probe threshold is not calibrated") == 1
    assert len(out.splitlines()) == len(ANSWERABLE)


def test_calibrate_plot_writes_a_png(capsys, db, labeled, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "dist.png"
    code, out, err = run(capsys, "calibrate", labeled, "--db", db, "--plot", str(png))
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_calibrate_plot_without_the_extra_names_it(capsys, db, labeled, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    code, out, err = run(capsys, "calibrate", labeled, "--db", db, "--plot", str(tmp_path / "x.png"))
    assert code == 2
    assert "tether[plot]" in err and "pip install 'tether[plot]'" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('["a list"]', "line 2: expected a JSON object"),
        ('{"answerable": true}', "line 2: missing key 'question'"),
        ('{"question": "Q?", "answerable": "yes"}', "line 2: 'answerable' must be a bool"),
        ('{"question": "  ", "answerable": true}', "line 2: 'question' is empty"),
    ],
)
def test_bad_input_lines_fail_cleanly_and_change_nothing(capsys, db, tmp_path, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"question": ANSWERABLE[0], "answerable": True}) + "\n" + line
                    + "\n" + json.dumps({"question": UNANSWERABLE[0], "answerable": False}) + "\n",
                    encoding="utf-8")
    code, out, err = run(capsys, "calibrate", str(path), "--db", db)
    assert code == 2
    assert err.startswith("error: ") and message in err and len(err.strip().splitlines()) == 1
    assert _saved(db) is None


def test_calibrate_needs_both_labels(capsys, db, tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"question": ANSWERABLE[0], "answerable": True}) + "\n")
    code, _, err = run(capsys, "calibrate", str(path), "--db", db)
    assert code == 2 and "both answerable and unanswerable" in err
    assert _saved(db) is None


def test_shadow_log_cli_shows_what_shadow_would_have_suppressed(capsys, db):
    code, out, err = run(capsys, "shadow-log", "--db", db)
    assert code == 0 and "empty" in out
    question = UNANSWERABLE[0]
    code, out, _ = run(capsys, "ask", question, "--db", db, "--mode", "abstain=shadow",
                       "--mode", "figures=off", "--json")
    answer = json.loads(out)
    assert not answer["refused"] and answer["modes"]["figures"] == "off"
    code, out, _ = run(capsys, "shadow-log", "--db", db, "--json")
    entries = [json.loads(x) for x in out.splitlines()]
    assert [(e["question"], e["gate"], e["trace_id"]) for e in entries] == [
        (question, "abstain", answer["trace_id"])
    ]
    code, out, _ = run(capsys, "shadow-log", "--db", db)
    assert "would suppress refusal" in out and "because:" in out


def test_ask_bad_mode_is_one_line(capsys, db):
    code, out, err = run(capsys, "ask", "anything", "--db", db, "--mode", "abstain=loud")
    assert code == 2 and err.startswith("error: mode 'loud'") and out == ""
