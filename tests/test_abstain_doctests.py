"""The usage examples in the abstain modules' docstrings stay true."""

import doctest

import pytest

import tether.answercheck
import tether.answertype
import tether.calibrate
import tether.modes
import tether.probe
import tether.terms


@pytest.mark.parametrize(
    "module",
    [tether.answercheck, tether.answertype, tether.calibrate, tether.modes, tether.probe,
     tether.terms],
)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
