"""The usage examples in the abstain modules' docstrings stay true."""

import doctest

import pytest

import tether.guard.answercheck
import tether.guard.answertype
import tether.modes
import tether.retrieve.calibrate
import tether.retrieve.probe
import tether.text.terms


@pytest.mark.parametrize(
    "module",
    [tether.guard.answercheck, tether.guard.answertype, tether.retrieve.calibrate, tether.modes, tether.retrieve.probe,
     tether.text.terms],
)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
