"""The shipped reading models, or a skip that says they are not there yet.

The models are trained by ``train/train_reader.py`` and dropped into
``src/tether/readers/models/<name>/``; a checkout without them skips these tests
(only when ``model.onnx`` itself is absent: any other broken file fails).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tether import readers


def shipped(name: str) -> Path:
    directory = readers.model_dir(name)
    if not (directory / "model.onnx").is_file():
        pytest.skip(f"the shipped {name} model is not in this checkout ({directory / 'model.onnx'} "
                    "is absent; train/train_reader.py writes it)")
    return directory


@pytest.fixture(params=readers.NAMES)
def name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def copied(tmp_path: Path, name: str) -> Path:
    """A private copy of a shipped model directory, for a test to break."""
    target = tmp_path / name
    shutil.copytree(shipped(name), target)
    return target
