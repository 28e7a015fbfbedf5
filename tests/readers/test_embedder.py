"""The shipped embedder as it runs: shapes, unit vectors, the long input rule, any
text; and its files, missing or altered: one ModelFileError naming the file and how
to rebuild it (exit code 3 at the command line), never a fallback.

How well it ranks is measured in bench/retrieval_recall.py, not here."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tether import readers
from tether.errors import ConfigError, InputError, ModelFileError
from tether.readers import Embedder

from .conftest import shipped
from .test_crossencoder import ODD_TEXTS

REBUILD = "python train/export_embedder.py"


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    shipped(readers.EMBEDDER)
    return readers.embedder()


@pytest.fixture
def copied(tmp_path: Path) -> Path:
    target = tmp_path / readers.EMBEDDER
    shutil.copytree(shipped(readers.EMBEDDER), target)
    return target


def test_texts_become_unit_vectors_in_the_order_given(embedder: Embedder):
    texts = ["How do I restart the daemon?", "Send it SIGHUP to reload its configuration files."]
    vectors = embedder.embed(texts)
    assert vectors.shape == (2, embedder.info.dimension) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    swapped = embedder.embed(texts[::-1])
    assert np.allclose(vectors, swapped[::-1], atol=1e-5)
    assert embedder.embed([]).shape == (0, embedder.info.dimension)


def test_the_shipped_files_are_the_ones_reader_json_names(embedder: Embedder):
    directory = readers.model_dir(readers.EMBEDDER)
    assert hashlib.sha256((directory / "model.onnx").read_bytes()).hexdigest() == embedder.sha256
    assert (directory / "model.onnx").stat().st_size <= 30 * 1024 * 1024
    assert readers.embedder() is embedder  # loaded once per process


def test_a_long_text_is_read_from_its_start_up_to_max_length_tokens(embedder: Embedder):
    limit = embedder.info.max_length
    head = "the retention period of the log files is set per directory " * 60
    ids = embedder.tokens(head)
    assert len(ids) == limit and len(embedder.tokens(head + " and more words at the end")) == limit
    assert ids[-1] == embedder.tokens("")[-1]  # still closed by [SEP]
    # Nothing past the limit is read: a different ending gives the very same vector.
    alone = Embedder(readers.model_dir(readers.EMBEDDER), batch_size=1, threads=1)
    a, b = alone.embed([head + " one ending"]), alone.embed([head + " quite another ending here"])
    assert np.array_equal(a, b)


@pytest.mark.parametrize("text", ODD_TEXTS)
def test_any_text_has_a_vector(embedder: Embedder, text: str):
    (vector,) = embedder.embed([text])
    assert np.isfinite(vector).all() and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-3


def test_an_empty_text_is_read_as_the_special_tokens_alone(embedder: Embedder):
    assert len(embedder.tokens("")) == 2
    (vector,) = embedder.embed([""])
    assert np.isfinite(vector).all()


def test_a_text_that_is_not_a_string_is_bad_input(embedder: Embedder):
    with pytest.raises(InputError, match="text 1 is not a string"):
        embedder.embed(["fine", b"bytes"])  # type: ignore[list-item]


def test_bad_sizes_are_refused(copied: Path):
    with pytest.raises(ConfigError):
        Embedder(copied, batch_size=0)


def refused(directory: Path, file: str, *words: str) -> None:
    with pytest.raises(ModelFileError) as caught:
        Embedder(directory)
    message = str(caught.value)
    assert caught.value.exit_code == 3 and "\n" not in message
    assert str(directory / file) in message and f"rebuild with {REBUILD}" in message
    for word in words:
        assert word in message


def _edit_reader(directory: Path, **changes: object) -> None:
    path = directory / "reader.json"
    info = json.loads(path.read_text(encoding="utf-8"))
    info.update(changes)
    path.write_text(json.dumps(info), encoding="utf-8")


def test_a_missing_model_is_named(copied: Path):
    (copied / "model.onnx").unlink()
    refused(copied, "model.onnx", "missing")


def test_a_model_that_does_not_match_its_sha256_is_refused(copied: Path):
    with (copied / "model.onnx").open("ab") as f:
        f.write(b"\x00")
    refused(copied, "model.onnx", "does not match its sha256 in reader.json")


def test_a_corrupt_model_with_a_matching_sha256_fails_to_parse(copied: Path):
    garbage = b"not an ONNX protobuf \x00\xff" * 500
    (copied / "model.onnx").write_bytes(garbage)
    _edit_reader(copied, sha256=hashlib.sha256(garbage).hexdigest())
    refused(copied, "model.onnx", "not a loadable ONNX model")


def test_a_cross_encoder_in_its_place_is_refused(copied: Path):
    cross = shipped("support")
    shutil.copy(cross / "model.onnx", copied / "model.onnx")
    _edit_reader(copied, sha256=hashlib.sha256((cross / "model.onnx").read_bytes()).hexdigest())
    refused(copied, "model.onnx", "not a bi-encoder's")


def test_a_dimension_the_model_does_not_give_is_refused(copied: Path):
    _edit_reader(copied, dimension=768)
    with pytest.raises(ModelFileError, match="dimension 768"):
        Embedder(copied).embed(["a"])


@pytest.mark.parametrize("damage", ["delete", "garbage"])
def test_a_missing_or_unreadable_tokenizer_is_named(copied: Path, damage: str):
    if damage == "delete":
        (copied / "tokenizer.json").unlink()
    else:
        (copied / "tokenizer.json").write_text("{not a tokenizer", encoding="utf-8")
    refused(copied, "tokenizer.json")


@pytest.mark.parametrize("damage", ["delete", "garbage", "no dimension"])
def test_an_unreadable_reader_json_names_the_export_command(copied: Path, damage: str):
    path = copied / "reader.json"
    if damage == "delete":
        path.unlink()
    elif damage == "garbage":
        path.write_bytes(b"\xff\xfe{")
    else:
        info = json.loads(path.read_text(encoding="utf-8"))
        del info["dimension"]
        path.write_text(json.dumps(info), encoding="utf-8")
    refused(copied, "reader.json")
