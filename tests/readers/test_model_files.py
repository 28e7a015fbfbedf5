"""A shipped model's files, missing or altered: one ModelFileError that names the file
and says how to rebuild it, exit code 3; never a fallback."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tether.errors import ModelFileError, TetherError
from tether.readers import CrossEncoder


def rebuild_of(directory: Path) -> str:
    return str(json.loads((directory / "reader.json").read_text(encoding="utf-8"))["rebuild"])


def refused(directory: Path, file: str, *words: str) -> ModelFileError:
    with pytest.raises(ModelFileError) as caught:
        CrossEncoder(directory)
    error = caught.value
    message = str(error)
    assert isinstance(error, TetherError) and error.exit_code == 3
    assert "\n" not in message
    assert str(directory / file) in message
    assert "rebuild with" in message
    for word in words:
        assert word in message
    return error


def test_an_intact_copy_loads(copied: Path):
    assert CrossEncoder(copied).predict([("a", "b")])


def test_a_missing_model_onnx_is_named(copied: Path):
    (copied / "model.onnx").unlink()
    refused(copied, "model.onnx", "missing", rebuild_of(copied))


def test_a_corrupt_model_onnx_with_a_matching_sha256_fails_to_parse(copied: Path):
    garbage = b"this is not an ONNX protobuf \x00\xff" * 1000
    (copied / "model.onnx").write_bytes(garbage)
    reader = json.loads((copied / "reader.json").read_text(encoding="utf-8"))
    reader["sha256"] = hashlib.sha256(garbage).hexdigest()
    (copied / "reader.json").write_text(json.dumps(reader), encoding="utf-8")
    refused(copied, "model.onnx", "not a loadable ONNX model", rebuild_of(copied))


def test_a_model_onnx_that_does_not_match_its_sha256_is_refused(copied: Path):
    with (copied / "model.onnx").open("ab") as f:
        f.write(b"\x00")
    refused(copied, "model.onnx", "does not match its sha256 in reader.json", rebuild_of(copied))


def test_a_reader_json_with_another_sha256_is_refused(copied: Path):
    reader = json.loads((copied / "reader.json").read_text(encoding="utf-8"))
    reader["sha256"] = "0" * 64
    (copied / "reader.json").write_text(json.dumps(reader), encoding="utf-8")
    refused(copied, "model.onnx", "does not match its sha256")


@pytest.mark.parametrize("damage", ["delete", "garbage"])
def test_a_missing_or_unreadable_tokenizer_is_named(copied: Path, damage: str):
    if damage == "delete":
        (copied / "tokenizer.json").unlink()
    else:
        (copied / "tokenizer.json").write_text("{not a tokenizer", encoding="utf-8")
    refused(copied, "tokenizer.json", rebuild_of(copied))


@pytest.mark.parametrize("damage", ["delete", "garbage", "no labels"])
def test_an_unreadable_reader_json_names_the_training_command(copied: Path, name: str, damage: str):
    path = copied / "reader.json"
    if damage == "delete":
        path.unlink()
        words = ["missing", f"python train/train_reader.py --task {name}"]
    elif damage == "garbage":
        path.write_bytes(b"\xff\xfe{")
        words = [f"python train/train_reader.py --task {name}"]
    else:
        reader = json.loads(path.read_text(encoding="utf-8"))
        del reader["labels"]
        path.write_text(json.dumps(reader), encoding="utf-8")
        words = ["not a valid reader.json", reader["rebuild"]]
    refused(copied, "reader.json", *words)


def test_labels_that_do_not_match_the_model_output_are_refused(copied: Path):
    reader = json.loads((copied / "reader.json").read_text(encoding="utf-8"))
    reader["labels"] = [*reader["labels"], "extra"]
    (copied / "reader.json").write_text(json.dumps(reader), encoding="utf-8")
    refused(copied, "model.onnx", "logits")


def test_a_missing_directory_is_named(tmp_path: Path):
    missing = tmp_path / "support"
    refused(missing, "reader.json", "python train/train_reader.py --task support")
