"""The usage examples in the verifier's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["__init__", "core", "lexical", "figures", "checks", "polarity", "text", "evaluate"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module("tether.verify" if name == "__init__" else f"tether.verify.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
