"""The shipped embedder: all-MiniLM-L6-v2 as a bi-encoder (int8 ONNX), for retrieval.

A model directory holds ``model.onnx`` (inputs ``input_ids``, ``attention_mask``,
``token_type_ids``, int64 [batch, seq]; output ``embedding`` [batch, dimension]: the
last hidden states mean-pooled over the attention mask and L2-normalised, in the
graph), ``tokenizer.json`` and ``reader.json`` (``max_length``, ``dimension``, the
sha256 of ``model.onnx``, the rebuild command), written by
``train/export_embedder.py``. Files are read and checked by ``readers.modelfiles``:
a missing or altered one raises ``ModelFileError`` naming it and how to rebuild it.

**Long input rule.** A text is read from its start: its first ``max_length`` tokens,
``[CLS]`` and ``[SEP]`` included (254 word pieces at 256); the rest is not read. This is
how the upstream model was trained and is used (sentence-transformers' max_seq_length).
An empty text is read as ``[CLS] [SEP]`` and has a vector like any other.

**Batches.** Texts run ``batch_size`` at a time, sorted by length so that padding
stays small. Dynamic int8 quantisation scales a run's activations as a whole, so a
text's vector moves a little with its batch-mates (cosine > 0.99 to itself alone);
retrieval compares vectors made in one call, and the same pool gives the same batches.

    >>> vectors = embedder().embed(["How do I restart it?", "Restart with -r."])  # doctest: +SKIP
    >>> float(vectors[0] @ vectors[1])  # doctest: +SKIP
    0.61
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError
from ..workers import default_workers
from .crossencoder import INPUTS, MAX_THREADS
from .modelfiles import (
    MODEL,
    READER,
    TOKENIZER,
    broken,
    checked_session,
    load_tokenizer,
    pad_id,
    read_reader_json,
    scalar,
)

__all__ = ["Embedder", "EmbedderInfo"]

OUTPUT = "embedding"
REBUILD = "python train/export_embedder.py"


@dataclass(frozen=True, slots=True)
class EmbedderInfo:
    """What ``reader.json`` says about the embedder beside it."""

    name: str
    max_length: int
    dimension: int
    sha256: str
    rebuild: str


class Embedder:
    """A bi-encoder read from ``directory``: texts to unit vectors.

    ``threads`` is onnxruntime's intra-op thread count (default: the cores this process
    may use, at most 4). Loading checks every file (``ModelFileError``); ``embed`` is
    safe to call from several threads."""

    def __init__(self, directory: str | Path, *, threads: int | None = None,
                 batch_size: int = 16) -> None:
        if batch_size < 1 or (threads is not None and threads < 1):
            raise ConfigError(f"an embedder needs batch_size >= 1 and threads >= 1; "
                              f"got {batch_size} and {threads}")
        self._np = importlib.import_module("numpy")
        self.directory = Path(directory)
        self.info = _read_info(self.directory)
        self.batch_size = batch_size
        self._tokenizer = load_tokenizer(self.directory / TOKENIZER, self.info.rebuild)
        # The long input rule: the first max_length tokens, special tokens included.
        self._tokenizer.enable_truncation(self.info.max_length)
        self._pad_id = pad_id(self._tokenizer)
        self._session, self._inputs = _load_session(
            self.directory / MODEL, self.info, threads or min(MAX_THREADS, default_workers()))

    @property
    def sha256(self) -> str:
        return self.info.sha256

    def tokens(self, text: str) -> list[int]:
        """The token ids the model reads for ``text`` (after the long input rule)."""
        return list(self._tokenizer.encode(scalar(_checked_text(text, 0))).ids)

    def embed(self, texts: Sequence[str]) -> Any:
        """A float32 array [len(texts), dimension] of unit vectors, in the order given."""
        np = self._np
        checked = [scalar(_checked_text(t, i)) for i, t in enumerate(texts)]
        out = np.zeros((len(checked), self.info.dimension), dtype=np.float32)
        if not checked:
            return out
        encoded = self._tokenizer.encode_batch(checked)
        order = sorted(range(len(encoded)), key=lambda k: len(encoded[k].ids))
        for start in range(0, len(order), self.batch_size):
            chunk = order[start : start + self.batch_size]
            out[chunk] = self._run([encoded[k].ids for k in chunk])
        return out

    def _run(self, rows: list[list[int]]) -> Any:
        np = self._np
        width = max(len(r) for r in rows)
        arrays = {name: np.zeros((len(rows), width), dtype=np.int64) for name in INPUTS}
        arrays["input_ids"].fill(self._pad_id)
        for i, ids in enumerate(rows):
            arrays["input_ids"][i, : len(ids)] = ids
            arrays["attention_mask"][i, : len(ids)] = 1
        feed = {name: arrays[name] for name in self._inputs}
        try:
            vectors = np.asarray(self._session.run([OUTPUT], feed)[0], dtype=np.float32)
            if vectors.shape != (len(rows), self.info.dimension):
                raise ValueError(f"an {OUTPUT} of shape {vectors.shape} for {len(rows)} texts "
                                 f"of dimension {self.info.dimension}")
        except Exception as exc:  # noqa: BLE001 - onnxruntime's error types are not public
            problem = " ".join(str(exc).split())[:200]
            raise broken(self.directory / MODEL, self.info.rebuild,
                         f"loaded but failed to run ({problem})") from exc
        return vectors


def _checked_text(text: object, i: int) -> str:
    if not isinstance(text, str):
        raise InputError(f"text {i} is not a string: {text!r:.80}")
    return text


def _read_info(directory: Path) -> EmbedderInfo:
    path = directory / READER
    raw, rebuild = read_reader_json(directory, REBUILD)
    try:
        info = EmbedderInfo(name=str(raw["name"]), max_length=int(raw["max_length"]),
                            dimension=int(raw["dimension"]), sha256=str(raw["sha256"]).lower(),
                            rebuild=rebuild)
    except (KeyError, TypeError, ValueError) as exc:
        raise broken(path, rebuild, f"not a valid reader.json ({type(exc).__name__}: {exc})") from exc
    if info.max_length < 8 or info.dimension < 1 or len(info.sha256) != 64:
        raise broken(path, rebuild, "not a valid reader.json (max_length, dimension or sha256)")
    return info


def _load_session(path: Path, info: EmbedderInfo, threads: int) -> tuple[Any, tuple[str, ...]]:
    """The checked session, and its inputs once they are a bi-encoder's."""
    session = checked_session(path, info.sha256, info.rebuild, threads)
    inputs = tuple(spec.name for spec in session.get_inputs())
    outputs = {spec.name: spec.shape for spec in session.get_outputs()}
    if "input_ids" not in inputs or set(inputs) - set(INPUTS) or OUTPUT not in outputs:
        raise broken(path, info.rebuild, f"inputs {list(inputs)} and outputs {list(outputs)} are "
                     f"not a bi-encoder's ({', '.join(INPUTS)} -> {OUTPUT})")
    width = outputs[OUTPUT][-1] if outputs[OUTPUT] else None
    if isinstance(width, int) and width != info.dimension:
        raise broken(path, info.rebuild, f"gives vectors of {width} but {READER} names "
                     f"dimension {info.dimension}")
    return session, inputs
