"""The service with a broken reading model: 503 naming the file, never a bare 500."""

import shutil
from pathlib import Path

from tether import Tether, readers
from tether.config import load_settings

from .conftest import ingest_text


def test_a_broken_model_file_is_503_with_the_file_named(tmp_path: Path, client_for, monkeypatch):
    root = tmp_path / "models"
    for name in readers.NAMES:
        shutil.copytree(readers.model_dir(name), root / name)
    (root / "answerability" / "model.onnx").write_bytes(b"not an onnx file")
    monkeypatch.setenv("TETHER_READER_MODELS", str(root))
    monkeypatch.setattr(readers, "_loaded", {})  # no model this process loaded before
    with Tether(tmp_path / "s.db", settings=load_settings(reader="trained")) as tether:
        ingest_text(tether, "file:///pump.txt", "Pump P-7", "The P-7 pump moves 120 litres a minute.",
                    ("public",))
        response = client_for(tether).post("/v1/answers",
                                           json={"question": "How much does the P-7 pump move?"})
    assert response.status_code == 503
    body = response.json()
    assert body["type"] == "urn:tether:problem:model-file-error"
    assert "model.onnx" in body["detail"] and "train_reader.py" in body["detail"]
