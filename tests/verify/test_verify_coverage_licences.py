"""Licences read from the coverage misses (docs/adr/0037-coverage-region-from-the-misses.md).

Each rule lets a pair through that a check refused for a reason of English it got
wrong, and each comes with pairs just past its limit, which must stay not
``supported`` (or ``contradicted`` where they were). The pairs are our own, written for
these rules, not taken from any data set.
"""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.text import lexicon
from tether.verify import check

pytestmark = pytest.mark.skipif(not lexicon.available(), reason="WordNet not installed")

# (rule, premise, claim)
SUPPORTED = [
    ("a common word opening the claim: plural hypernym", "Men in overalls are painting the fence.",
     "People in overalls are painting the fence."),
    ("a common word opening the claim: synonym", "Children are feeding the ducks.",
     "Kids are feeding the ducks."),
    ("a common word opening the claim: passive subject", "The clerk is lifting dumbbells.",
     "Weights are being lifted by the clerk."),
    ("a common word opening both texts", "The ducks are being fed by children.",
     "Kids are feeding the ducks."),
    ("a count named in groups", "A clerk and two porters are carrying the trunk.",
     "Three people are carrying the trunk."),
    ("a count named in groups, plurals first", "Two porters and a clerk are carrying the trunk.",
     "Three people are carrying the trunk."),
    ("a count named in two plural groups", "Two porters and two clerks are carrying the trunk.",
     "Four people are carrying the trunk."),
]

# (limit, premise, claim)
CONTRADICTED = [
    ("a name is said by no other name", "Paris is busy in August.", "London is busy in August."),
    ("a common word no window word says", "Adults are feeding the ducks.",
     "Kids are feeding the ducks."),
    ("co-hyponyms opening the claim", "Men are feeding the ducks.", "Women are feeding the ducks."),
    ("a hyponym for its hypernym", "People are feeding the ducks.", "Men are feeding the ducks."),
    ("a name where the claim has a common word", "Rollo is feeding the ducks.",
     "Kids are feeding the ducks."),
    ("the hypernym's kind, the wrong way", "Weights are being lifted by the clerk.",
     "Dumbbells are being lifted by the clerk."),
    ("groups that add up to another count", "A clerk and two porters are carrying the trunk.",
     "Four people are carrying the trunk."),
    ("a group that is not of the claim's noun", "A clerk and two dogs are carrying the trunk.",
     "Three people are carrying the trunk."),
    ("groups not in one run", "A clerk is talking to two porters.", "Three people are talking."),
    ("one group counted with its objects", "Two porters are carrying two trunks.",
     "Four people are carrying trunks."),
]

NOT_SUPPORTED: list[tuple[str, str, str]] = []


@pytest.mark.parametrize(("rule", "premise", "claim"), SUPPORTED, ids=[r[0] for r in SUPPORTED])
def test_now_supported(rule: str, premise: str, claim: str) -> None:
    result = check(claim, premise, settings=Settings())
    assert result.outcome == "supported", (rule, result.reasons)


@pytest.mark.parametrize(
    ("limit", "premise", "claim"), CONTRADICTED, ids=[r[0] for r in CONTRADICTED]
)
def test_limit_stays_contradicted(limit: str, premise: str, claim: str) -> None:
    result = check(claim, premise, settings=Settings())
    assert result.outcome == "contradicted", (limit, result.reasons)


@pytest.mark.parametrize(
    ("limit", "premise", "claim"), NOT_SUPPORTED, ids=[r[0] for r in NOT_SUPPORTED]
)
def test_limit_stays_not_supported(limit: str, premise: str, claim: str) -> None:
    result = check(claim, premise, settings=Settings())
    assert result.outcome != "supported", (limit, result.reasons)
