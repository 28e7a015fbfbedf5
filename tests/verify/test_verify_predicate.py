"""What a sentence says of its subject must be stated, not just its topic covered."""

import pytest

from tether.config import Settings
from tether.verify import check

PASSAGE = (
    "The pump house extract fan gives 12 air changes per hour when the door is closed. "
    "The fixed hydrogen sulfide detectors in the pump house are bump-tested every 30 days. "
    "Charging releases hydrogen, which is flammable and lighter than air."
)


@pytest.mark.parametrize(
    ("sentence", "outcome"),
    [
        ("Bump tests of the pump house hydrogen sulfide detectors are optional.", "mentioned"),
        ("Hydrogen released by charging is harmless.", "mentioned"),
        ("Hydrogen released by charging is not flammable.", "contradicted"),
        ("Hydrogen released by charging is flammable.", "supported"),
        ("Hydrogen released by charging is also flammable.", "supported"),
        ("The pump house detectors are bump-tested every 30 days.", "supported"),
        ("The pump house extract fan gives 12 air changes per hour when the door is closed.",
         "supported"),
    ],
)
def test_the_predicate_must_be_stated(sentence, outcome):
    result = check(sentence, PASSAGE, settings=Settings())
    assert result.outcome == outcome, result
    if outcome == "mentioned":
        assert any(r.startswith("predicate:") for r in result.reasons)
        assert result.checker == "predicate"


def test_a_condition_the_passage_states_is_not_dropped():
    # The passage gives the rate only "when the door is closed" (ADR 0030).
    result = check("The pump house extract fan gives 12 air changes per hour.", PASSAGE,
                   settings=Settings())
    assert result.outcome == "mentioned" and result.checker == "context", result
