"""A verbatim piece of a passage sentence is not supported when the rest of the
sentence restricts it, makes it conditional, or reports it as someone's claim."""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.verify import check

SETTINGS = Settings()

NOT_STATED = [
    ("The antidote is effective.", "The antidote is effective only within six hours of exposure."),
    ("The solvent is stable.", "The solvent is stable except at temperatures above 40 °C."),
    ("The dose is safe.", "The dose is safe unless the patient has kidney disease."),
    ("the gas escapes.", "If the valve is left open, the gas escapes."),
    ("the alarm sounds.", "When the sensor detects smoke, the alarm sounds."),
    ("the drug causes no harm.", "The manufacturer claims that the drug causes no harm."),
    ("the levels were normal.", "The operator insisted the levels were normal."),
    ("vaccines cause autism.", "It is a myth that vaccines cause autism."),
    ("the bridge is closed.", "Nobody knows whether the bridge is closed."),
]

STILL_STATED = [
    ("Water boils at 100 °C.", "Water boils at 100 °C, and ice melts at 0 °C."),
    ("The report was published in May.", "The report was published in May. Only a few read it."),
    ("The pump failed.", "The pump failed; the crew replaced it the next day."),
    ("the bridge is not safe for trucks.", "Engineers said the bridge is not safe for trucks."),
    ("Kestrel Board set the limit at 30 ppm.", "Kestrel Board set the limit at 30 ppm."),
]


@pytest.mark.parametrize(("claim", "passage"), NOT_STATED)
def test_a_framed_piece_is_mentioned_not_supported(claim: str, passage: str) -> None:
    result = check(claim, passage, settings=SETTINGS)
    assert result.outcome == "mentioned", result
    assert result.checker == "context" and "verbatim piece" in result.reasons


@pytest.mark.parametrize(("claim", "passage"), STILL_STATED)
def test_a_piece_the_sentence_does_not_frame_stays_supported(claim: str, passage: str) -> None:
    result = check(claim, passage, settings=SETTINGS)
    assert result.outcome == "supported" and result.checker == "verbatim", result
