"""The examples in the package's docstrings run (a stale example is a wrong document)."""

from __future__ import annotations

import doctest
import importlib
import os
import pkgutil

import pytest

import tether
from tether.errors import MissingExtra

# ``__main__`` runs the CLI when imported.
MODULES = sorted(m.name for m in pkgutil.walk_packages(tether.__path__, "tether.")
                 if not m.name.endswith(".__main__"))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except MissingExtra as exc:  # a framework adapter (tether.integrations) without its framework
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name}: {exc} (the test extra installs it)", pytrace=False)
        pytest.skip(f"{exc}; CI=true makes this a failure")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
        runner.run(test)
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} of {attempted} examples in {name} fail (run pytest --doctest-modules {module.__file__})"
