"""The usage examples in the verifier's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "tether.verify", "tether.verify.core", "tether.verify.lexical", "tether.verify.figures",
    "tether.verify.checks", "tether.verify.polarity", "tether.verify.shallow", "tether.verify.reading",
    "tether.text.fold", "tether.evaluate.verifier",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
