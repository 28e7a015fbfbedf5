"""Tether's shipped reading models: two small cross-encoders and an embedder inside
the package.

- ``answerability()``: does a window of a passage answer the question?
  Pairs are (question, window); labels ``no``, ``yes``.
- ``support()``: does a premise support a claim?
  Pairs are (premise, claim); labels ``entailment``, ``neutral``, ``contradiction``.
- ``embedder()``: texts to unit vectors (all-MiniLM-L6-v2, not fine-tuned), which
  retrieval fuses with BM25 (``tether.retrieve.fused``).

Each lives in ``models/<name>/`` (``model.onnx``, ``tokenizer.json``, ``reader.json``),
written by ``train/train_reader.py``; each is loaded, and its files checked, once per
process, and shared by every thread. A missing or altered file raises
``ModelFileError``; nothing is fetched or substituted. How long inputs are windowed
and their windows aggregated: ``tether.readers.crossencoder``.

    >>> from tether import readers                                    # doctest: +SKIP
    >>> readers.answerability().prob([("Who founded it?", "Ada founded it.")], "yes")  # doctest: +SKIP
    [0.97]
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..errors import ConfigError
from .crossencoder import CrossEncoder, ReaderInfo, Window
from .embedder import Embedder, EmbedderInfo

__all__ = ["EMBEDDER", "NAMES", "CrossEncoder", "Embedder", "EmbedderInfo", "ReaderInfo", "Window",
           "answerability", "embedder", "model_dir", "support"]

NAMES = ("answerability", "support")  # the cross-encoders
EMBEDDER = "embedder"
MODELS = Path(__file__).resolve().parent / "models"

_loaded: dict[str, CrossEncoder] = {}
_embedder: list[Embedder] = []
_lock = threading.Lock()


def model_dir(name: str) -> Path:
    """Where the model ``name`` is read from (the folder need not exist): the shipped
    one, or ``$TETHER_READER_MODELS/<name>`` when that variable names a folder of
    rebuilt models (``train/train_reader.py --out``)."""
    if name not in (*NAMES, EMBEDDER):
        raise ConfigError(f"no shipped reading model {name!r}; there are "
                          f"{', '.join((*NAMES, EMBEDDER))}")
    return Path(os.environ.get("TETHER_READER_MODELS") or MODELS) / name


def answerability() -> CrossEncoder:
    """The shipped answerability model, loaded once per process."""
    return _shipped("answerability")


def support() -> CrossEncoder:
    """The shipped support model, loaded once per process."""
    return _shipped("support")


def embedder() -> Embedder:
    """The shipped embedder, loaded once per process."""
    with _lock:
        if not _embedder:  # a failed load is not kept, as for the cross-encoders
            _embedder.append(Embedder(model_dir(EMBEDDER)))
        return _embedder[0]


def _shipped(name: str) -> CrossEncoder:
    # One lock for both: a load is rare, and two threads never load one model twice.
    # A failed load is not kept, so a repaired file is read on the next call.
    with _lock:
        model = _loaded.get(name)
        if model is None:
            model = _loaded[name] = CrossEncoder(model_dir(name))
        return model
