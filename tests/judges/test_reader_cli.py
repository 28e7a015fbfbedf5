"""``--judge gguf:PATH`` on ``tether verify`` and ``tether ask``, through the real CLI
process, on SmolLM2.

The decisions are forced with thresholds at the ends of [0, 1] (pinned in the
configuration or stored by a calibration), so what is asserted is what ``verify`` does
with the reader's judgement and which thresholds it reads, not what the model believes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.facade import Tether
from tether.judges.gguf import file_sha256
from tether.judges.reader import META_PREFIX, Thresholds

try:
    from .reader_model import smollm2_path
except ImportError:
    from reader_model import smollm2_path  # type: ignore[no-redef]

PASSAGE = "Corvane boils at 71 degrees Celsius under normal pressure."
REQUEST = json.dumps({"passages": [{"id": "p1", "text": PASSAGE}],
                      "sentences": ["Corvane boils at 71 degrees Celsius."]})


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    path = smollm2_path()
    return str(path), file_sha256(path)


def _tether(tmp_path: Path, *args: str, stdin: str = REQUEST, pinned: str = "",
            model: tuple[str, str] | None = None, command: str = "verify"
            ) -> subprocess.CompletedProcess[str]:
    lines = ["judge_ctx = 1024", "judge_threads = 1", "judge_timeout = 300.0", 'reader = "lexical"']
    if pinned and model is not None:
        lines.append(f'judge_threshold = "{model[1]}={pinned}"')
    config = tmp_path / "tether.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    env["TETHER_DB"] = str(tmp_path / "no-default-store.db")  # no store unless --db
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    return subprocess.run(
        [sys.executable, "-m", "tether", "--config", str(config), command, *args],
        input=stdin, capture_output=True, text=True, env=env, timeout=600, check=False,
    )


def _only(proc: subprocess.CompletedProcess[str]) -> tuple[dict[str, object], str]:
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    [sentence] = out["sentences"]
    return sentence, str(out.get("judge", ""))


def test_without_a_judge_the_lexical_verdict_stands(tmp_path: Path) -> None:
    sentence, judge = _only(_tether(tmp_path))
    assert sentence["outcome"] == "supported" and judge == ""


def test_the_judge_flag_withholds_support_under_pinned_thresholds(tmp_path, model) -> None:
    proc = _tether(tmp_path, "--judge", f"gguf:{model[0]}", pinned="support:1,answers:0",
                   model=model)
    sentence, judge = _only(proc)
    assert sentence["outcome"] != "supported"
    assert str(sentence["checker"]).startswith("gguf:")
    assert any("downgraded from lexical 'supported'" in r for r in sentence["reasons"])  # type: ignore[attr-defined]
    assert "support >= 1" in judge and "config thresholds" in judge


def test_a_shadow_judge_gate_only_notes_what_it_would_do(tmp_path, model) -> None:
    proc = _tether(tmp_path, "--judge", f"gguf:{model[0]}", "--mode", "judge=shadow",
                   pinned="support:1,answers:0", model=model)
    sentence, _ = _only(proc)
    assert sentence["outcome"] == "supported"
    assert any(str(r).startswith("shadow:") for r in sentence["reasons"])  # type: ignore[attr-defined]


def test_the_judge_gate_off_leaves_the_judge_out(tmp_path, model) -> None:
    proc = _tether(tmp_path, "--judge", f"gguf:{model[0]}", "--mode", "judge=off",
                   pinned="support:1,answers:0", model=model)
    sentence, _ = _only(proc)
    assert sentence["outcome"] == "supported" and sentence["checker"] != "gguf"


def _store_with(tmp_path: Path, sha: str, support: float, *, key: str | None = None) -> Path:
    db = tmp_path / "calibrated.db"
    with Tether(db, create=True) as tether:
        tether.store.set_meta(META_PREFIX + (key or sha), Thresholds(sha, support, 0.0).to_meta())
    return db


def test_verify_reads_the_stores_calibration_for_the_model(tmp_path, model) -> None:
    db = _store_with(tmp_path, model[1], support=1.0)
    sentence, judge = _only(_tether(tmp_path, "--judge", f"gguf:{model[0]}", "--db", str(db)))
    assert sentence["outcome"] != "supported"
    assert "calibrated thresholds" in judge and "support >= 1" in judge
    # The same judge with no store: default thresholds, said so.
    _, judge = _only(_tether(tmp_path, "--judge", f"gguf:{model[0]}"))
    assert "default thresholds" in judge


def test_pinned_thresholds_win_over_the_stored_calibration(tmp_path, model) -> None:
    db = _store_with(tmp_path, model[1], support=1.0)
    proc = _tether(tmp_path, "--judge", f"gguf:{model[0]}", "--db", str(db),
                   pinned="support:0,answers:0", model=model)
    sentence, judge = _only(proc)
    assert sentence["outcome"] == "supported" and "config thresholds" in judge


def test_another_models_calibration_is_not_used(tmp_path, model) -> None:
    db = _store_with(tmp_path, "ab" * 32, support=1.0)
    _, judge = _only(_tether(tmp_path, "--judge", f"gguf:{model[0]}", "--db", str(db)))
    assert "default thresholds" in judge and "support >= 0.5" in judge


def test_a_calibration_naming_another_model_is_refused_in_one_line(tmp_path, model) -> None:
    db = _store_with(tmp_path, "ab" * 32, support=0.5, key=model[1])  # a tampered record
    proc = _tether(tmp_path, "--judge", f"gguf:{model[0]}", "--db", str(db))
    assert proc.returncode == 2 and proc.stdout == ""
    assert "abababab" in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2


def test_a_bad_judge_spec_is_a_usage_error(tmp_path: Path) -> None:
    proc = _tether(tmp_path, "--judge", "no-colon-here")
    assert proc.returncode == 2 and "KIND:TARGET" in proc.stderr and proc.stdout == ""


def test_bad_input_is_reported_before_the_model_is_loaded(tmp_path: Path) -> None:
    # The model path does not exist: the input error, not the model's, is what shows.
    proc = _tether(tmp_path, "--judge", f"gguf:{tmp_path / 'missing.gguf'}", stdin="{nope")
    assert proc.returncode == 2 and "missing.gguf" not in proc.stderr
    proc = _tether(tmp_path, "--judge", f"gguf:{tmp_path / 'missing.gguf'}")
    assert proc.returncode == 2 and "missing.gguf" in proc.stderr


def test_ask_takes_the_judge_flag(tmp_path, model) -> None:
    doc = tmp_path / "corvane.txt"
    doc.write_text(PASSAGE + "\n", encoding="utf-8")
    db = str(tmp_path / "ask.db")
    ingest = _tether(tmp_path, "--db", db, str(doc), command="ingest", stdin="")
    assert ingest.returncode == 0, ingest.stderr
    question = "What does corvane boil at?"
    plain = _tether(tmp_path, question, "--db", db, "--json", command="ask", stdin="")
    assert plain.returncode == 0, plain.stderr
    judged = _tether(tmp_path, question, "--db", db, "--json", "--judge", f"gguf:{model[0]}",
                     pinned="support:0,answers:1", model=model, command="ask", stdin="")
    assert judged.returncode == 1, judged.stderr  # refused: the reader did not read an answer
    answer = json.loads(judged.stdout)
    assert answer["refused"] and "P(yes)" in answer["refusal_reason"]
