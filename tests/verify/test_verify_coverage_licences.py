"""Licences read from the coverage misses (docs/adr/0037-coverage-region-from-the-misses.md).

Each rule lets a pair through that a check refused for a reason of English it got
wrong, and each comes with pairs just past its limit, which must stay not
``supported`` (or ``contradicted`` where they were). The pairs are our own, written for
these rules, not taken from any data set.
"""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.verify import lexicon
from tether.verify import check
from tether.verify.lexical import prepare

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
    ("modifiers in a series, one phrase",
     "The dancers are wearing costumes which are red, gold and white.",
     "The dancers are wearing red, gold and white costumes."),
    ("a plural possessive is one phrase", "The porters' trolley is blocking the door.",
     "The trolley of the porters is blocking the door."),
    ("modifiers in a series, with a serial comma",
     "The dancers are wearing costumes which are red, gold and white.",
     "The dancers are wearing red, gold, and white costumes."),
]

# (limit, premise, claim)
CONTRADICTED = [
    ("a name is said by no other name", "Paris is busy in August.", "London is busy in August."),
    ("a common word no window word says", "Adults are feeding the ducks.",
     "Kids are feeding the ducks."),
    ("co-hyponyms opening the claim", "Men are feeding the ducks.", "Women are feeding the ducks."),
    ("a hyponym for its hypernym", "People are feeding the ducks.", "Men are feeding the ducks."),
    ("plural possessives traded", "The clerks' dog is chasing the porters' cat.",
     "The porters' dog is chasing the clerks' cat."),
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

NOT_SUPPORTED = [
    ("a series member changed", "The dancers are wearing costumes which are red, gold and white.",
     "The dancers are wearing red, gold and blue costumes."),
    ("a series member added", "The dancers are wearing costumes which are red and white.",
     "The dancers are wearing red, gold and white costumes."),
]


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


def _clauses(text: str) -> list[list[str]]:
    p = prepare(text)
    out: dict[int, list[str]] = {}
    for word, clause in zip(p.low, p.clause):
        out.setdefault(clause, []).append(word)
    return list(out.values())


def test_a_series_of_modifiers_before_a_noun_is_one_clause() -> None:
    assert len(_clauses("The dancers are wearing red, gold and white costumes.")) == 1
    assert len(_clauses("A long, narrow, and dusty road.")) == 1


@pytest.mark.parametrize("text", [
    "The flag is red, white and blue.",  # no noun after the series
    "The shirt is black, white dogs are barking.",  # no "and": two clauses
    "Paris, London and Rome are busy.",  # names, not modifiers
    "The flag is red, and the sky is blue.",  # "and" opens a clause
])
def test_a_comma_outside_a_series_of_modifiers_still_ends_a_clause(text: str) -> None:
    assert len(_clauses(text)) > 1


def test_a_plural_possessive_is_no_closing_quote() -> None:
    assert len(_clauses("The clerks' dog is chasing the porters' cat.")) == 1
    assert len(_clauses("The nurses' union met. The boys' dog barked.")) == 2  # two sentences
    # A quote opened before it: the apostrophe closes the quote.
    assert len(_clauses("He called them 'the boys' and left.")) > 1
