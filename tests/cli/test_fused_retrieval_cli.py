"""Fused retrieval through real processes: `tether ask` ranks with the shipped embedder
by default; a broken embedder file is one line and exit 3 (never a silent return to
BM25); `retrieval = "bm25"` needs no model file for retrieval."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tether import readers

from .conftest import run_tether

FUSED = {"TETHER_RETRIEVAL": "fused"}


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
    assert run_tether("ingest", str(folder), "--db", str(db)).code == 0
    return db


def test_ask_ranks_with_the_embedder(store: Path):
    run = run_tether("ask", "How many litres per minute does the P-7 pump move?", "--db", str(store),
                     "--json", env=FUSED)
    assert run.code == 0, run.err
    answer = json.loads(run.out)
    assert "120 litres" in answer["sentences"][0]["text"]


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_broken_embedder_file_is_one_line_and_exit_3(store: Path, tmp_path: Path, damage: str):
    root = tmp_path / "models"
    shutil.copytree(readers.model_dir(readers.EMBEDDER), root / readers.EMBEDDER)
    onnx = root / readers.EMBEDDER / "model.onnx"
    if damage == "missing":
        onnx.unlink()
    else:
        onnx.write_bytes(onnx.read_bytes()[:1000])
    run = run_tether("ask", "How fast does the P-7 pump move water?", "--db", str(store),
                     env={**FUSED, "TETHER_READER_MODELS": str(root)})
    assert run.code == 3, run.err
    lines = [line for line in run.err.strip().splitlines() if not line.startswith("note:")]
    assert len(lines) == 1 and "Traceback" not in run.err
    assert str(onnx) in lines[0] and "export_embedder.py" in lines[0]


def test_the_trained_readers_choice_reads_the_embedder_even_with_bm25(store: Path, tmp_path: Path):
    # The reader weighs its candidates with the embedder's similarity (ADR 0078): with
    # BM25 retrieval a broken embedder is still one line and exit 3, never a choice
    # made silently without it.
    root = tmp_path / "models"
    for name in (*readers.NAMES, readers.EMBEDDER):
        shutil.copytree(readers.model_dir(name), root / name)
    onnx = root / readers.EMBEDDER / "model.onnx"
    onnx.write_bytes(onnx.read_bytes()[:1000])
    run = run_tether("ask", "How many litres per minute does the P-7 pump move?", "--db", str(store),
                     env={"TETHER_RETRIEVAL": "bm25", "TETHER_READER": "trained",
                          "TETHER_READER_MODELS": str(root)})
    assert run.code == 3, run.err
    lines = [line for line in run.err.strip().splitlines() if not line.startswith("note:")]
    assert len(lines) == 1 and str(onnx) in lines[0] and "Traceback" not in run.err


def test_bm25_alone_needs_no_model_file(store: Path, tmp_path: Path):
    run = run_tether("ask", "How fast does the P-7 pump move water?", "--db", str(store),
                     env={"TETHER_RETRIEVAL": "bm25", "TETHER_READER_MODELS": str(tmp_path / "none")})
    assert run.code in (0, 1), run.err
