"""Tether's shipped reading models: two small cross-encoders inside the package.

- ``answerability()``: does a window of a passage answer the question?
  Pairs are (question, window); labels ``no``, ``yes``.
- ``support()``: does a premise support a claim?
  Pairs are (premise, claim); labels ``entailment``, ``neutral``, ``contradiction``.

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

__all__ = ["NAMES", "CrossEncoder", "ReaderInfo", "Window", "answerability", "model_dir", "support"]

NAMES = ("answerability", "support")
MODELS = Path(__file__).resolve().parent / "models"

_loaded: dict[str, CrossEncoder] = {}
_lock = threading.Lock()


def model_dir(name: str) -> Path:
    """Where the model ``name`` is read from (the folder need not exist): the shipped
    one, or ``$TETHER_READER_MODELS/<name>`` when that variable names a folder of
    rebuilt models (``train/train_reader.py --out``)."""
    if name not in NAMES:
        raise ConfigError(f"no shipped reading model {name!r}; there are {', '.join(NAMES)}")
    return Path(os.environ.get("TETHER_READER_MODELS") or MODELS) / name


def answerability() -> CrossEncoder:
    """The shipped answerability model, loaded once per process."""
    return _shipped("answerability")


def support() -> CrossEncoder:
    """The shipped support model, loaded once per process."""
    return _shipped("support")


def _shipped(name: str) -> CrossEncoder:
    # One lock for both: a load is rare, and two threads never load one model twice.
    # A failed load is not kept, so a repaired file is read on the next call.
    with _lock:
        model = _loaded.get(name)
        if model is None:
            model = _loaded[name] = CrossEncoder(model_dir(name))
        return model
