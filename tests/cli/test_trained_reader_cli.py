"""The trained reader through real processes: the shipped models answer, a broken or
missing model file is one line and exit 3 (never a silent return to the rules), and
`tether calibrate` stores the answer threshold for the shipped model."""

import json
import shutil
from pathlib import Path

import pytest

from tether import readers

from .conftest import run_tether

TRAINED = {"TETHER_READER": "trained"}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "pump.md").write_text(
        "# Pump P-7\n\nThe P-7 pump moves 120 litres per minute.\n"
        "Its seals must be replaced every 2,000 hours.\n", encoding="utf-8")
    (folder / "valve.md").write_text(
        "# Valve V-2\n\nThe V-2 valve closes in 4 seconds.\n", encoding="utf-8")
    db = tmp_path / "t.db"
    assert run_tether("ingest", str(folder), "--db", str(db), env=TRAINED).code == 0
    return db


def _models_copy(tmp_path: Path) -> Path:
    root = tmp_path / "models"
    for name in readers.NAMES:
        shutil.copytree(readers.model_dir(name), root / name)
    return root


def test_ask_reads_with_the_shipped_models(store: Path):
    run = run_tether("ask", "How many litres per minute does the P-7 pump move?", "--db", str(store),
                     "--json", env=TRAINED)
    assert run.code in (0, 1), run.err  # an answer, or a refusal: never an error
    answer = json.loads(run.out)
    for sentence in answer["sentences"]:
        assert sentence["citations"][0]["quote"] == sentence["text"]


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_broken_model_file_is_one_line_and_exit_3(store: Path, tmp_path: Path, damage: str):
    root = _models_copy(tmp_path)
    onnx = root / "answerability" / "model.onnx"
    if damage == "missing":
        onnx.unlink()
    else:
        onnx.write_bytes(onnx.read_bytes()[:1000])
    run = run_tether("ask", "How fast does the P-7 pump move water?", "--db", str(store),
                     env={**TRAINED, "TETHER_READER_MODELS": str(root)})
    assert run.code == 3, run.err
    lines = [line for line in run.err.strip().splitlines() if not line.startswith("note:")]
    assert len(lines) == 1 and "Traceback" not in run.err
    assert "model.onnx" in lines[0] and "train_reader.py" in lines[0]


def test_the_lexical_reader_needs_no_model_file(store: Path, tmp_path: Path):
    run = run_tether("ask", "How fast does the P-7 pump move water?", "--db", str(store),
                     env={"TETHER_READER": "lexical", "TETHER_READER_MODELS": str(tmp_path / "none")})
    assert run.code in (0, 1), run.err


def test_an_unknown_reader_is_a_config_error(store: Path):
    run = run_tether("ask", "How fast?", "--db", str(store), env={"TETHER_READER": "psychic"})
    assert run.code == 2 and "reader must be one of" in run.err


def test_calibrate_stores_the_answer_threshold(store: Path, tmp_path: Path):
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_text("\n".join(json.dumps(x) for x in [
        {"question": "How many litres per minute does the P-7 pump move?", "answerable": True},
        {"question": "How often must the P-7 seals be replaced?", "answerable": True},
        {"question": "How long does the V-2 valve take to close?", "answerable": True},
        {"question": "What colour is the P-7 pump?", "answerable": False},
        {"question": "Who makes the V-2 valve?", "answerable": False},
    ]) + "\n", encoding="utf-8")
    run = run_tether("calibrate", str(labelled), "--db", str(store), "--max-false-refusal", "1",
                     env=TRAINED)
    assert run.code == 0, run.err
    assert "answer threshold (trained reader)" in run.out
    assert "saved: answer threshold" in run.out
    from tether import Tether
    from tether.guard.answerable import meta_key

    with Tether(store) as t:
        assert t.store.get_meta(meta_key()) is not None


def test_verify_names_the_model_and_an_exact_check_keeps_its_contradiction(tmp_path: Path):
    request = {"passages": [{"id": "p1", "text": "Operators must wear gloves when handling the solvent."}],
               "sentences": ["Operators must not wear gloves when handling the solvent.",
                             "Operators must wear gloves when handling the solvent."]}
    run = run_tether("verify", stdin=json.dumps(request),
                     env={**TRAINED, "TETHER_DB": str(tmp_path / "none.db")})
    assert run.code in (0, 1), run.err
    negated, copy = json.loads(run.out)["sentences"]
    # The negation check is exact: whatever the model reads, the contradiction stands,
    # and the verdict says what the model said.
    assert negated["outcome"] == "contradicted" and negated["checker"] == "polarity"
    assert any(r.startswith("support-model:") for r in negated["reasons"])
    # A whole-sentence quote is not sent to the model (ADR 0029).
    assert copy["outcome"] == "supported" and copy["checker"] == "verbatim"
