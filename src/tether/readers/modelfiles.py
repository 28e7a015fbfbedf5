"""The files of a shipped model, read and checked: one loader for every model in
``models/`` (the cross-encoders and the embedder).

A model directory holds ``model.onnx``, ``tokenizer.json`` and ``reader.json`` (what
the model is, the sha256 of ``model.onnx`` and the command that rebuilds it). A file
that is missing, unreadable or does not match its sha256 raises ``ModelFileError``
naming the file and how to rebuild it (exit code 3 at the command line); nothing is
ever fetched and nothing else is ever used in its place.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from pathlib import Path
from typing import Any

from ..errors import ModelFileError

__all__ = ["MODEL", "READER", "TOKENIZER", "broken", "checked_session", "load_tokenizer",
           "pad_id", "read_reader_json", "scalar"]

MODEL, TOKENIZER, READER = "model.onnx", "tokenizer.json", "reader.json"
_SURROGATE = re.compile("[\ud800-\udfff]")


def broken(path: Path, rebuild: str, problem: str) -> ModelFileError:
    return ModelFileError(f"{path}: {problem}; rebuild with {rebuild}")


def read_reader_json(directory: Path, fallback: str) -> tuple[dict[str, Any], str]:
    """``reader.json`` as a dict, and the rebuild command it names (``fallback`` when it
    names none or cannot be read: the message must still say how to rebuild)."""
    path = directory / READER
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise broken(path, fallback, "missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise broken(path, fallback, f"not readable JSON ({exc})") from exc
    if not isinstance(raw, dict):
        raise broken(path, fallback, "not a valid reader.json (not an object)")
    rebuild = raw.get("rebuild")
    return raw, rebuild if isinstance(rebuild, str) and rebuild.strip() else fallback


def load_tokenizer(path: Path, rebuild: str) -> Any:
    """The tokenizer, with its own truncation and padding off: every model here cuts
    and pads by its module's stated rule, never behind its back."""
    if not path.is_file():
        raise broken(path, rebuild, "missing")
    tokenizers = importlib.import_module("tokenizers")
    try:
        tokenizer = tokenizers.Tokenizer.from_file(str(path))
    except Exception as exc:  # noqa: BLE001 - the Rust binding raises bare Exception
        raise broken(path, rebuild, f"not a readable tokenizer ({exc})") from exc
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def pad_id(tokenizer: Any) -> int:
    found = tokenizer.token_to_id("[PAD]")
    # Padded positions carry attention_mask 0, so any id is inert there.
    return int(found) if found is not None else 0


def checked_session(path: Path, sha256: str, rebuild: str, threads: int) -> Any:
    """An onnxruntime session on CPU, from the very bytes whose sha256 was checked."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise broken(path, rebuild, "missing") from None
    except OSError as exc:
        raise broken(path, rebuild, f"not readable ({exc})") from exc
    if hashlib.sha256(data).hexdigest() != sha256:
        raise broken(path, rebuild, f"does not match its sha256 in {READER}")
    ort = importlib.import_module("onnxruntime")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001 - onnxruntime's error types are not public
        problem = " ".join(str(exc).split())[:200]
        raise broken(path, rebuild, f"not a loadable ONNX model ({problem})") from exc


def scalar(text: str) -> str:
    """``text`` with each lone surrogate (not UTF-8, so the tokenizer refuses it) read
    as U+FFFD: one character for one, so character spans stay where they were."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
