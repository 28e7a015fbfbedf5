"""Quantifier licences (docs/adr/0039-quantifier-licences.md).

"Some X" gives a bare "X" only in an upward context that reports an event (adverbs
between "is" and its participle allowed), never under a negation or "only"; "a large
group / a lot / a crowd of X" states "many X", of that noun only. Each licence comes
with pairs just past its limit, which must stay not ``supported``. The pairs are our
own, written for these rules, not taken from any data set.
"""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.verify import lexicon
from tether.verify import check

pytestmark = pytest.mark.skipif(not lexicon.available(), reason="WordNet not installed")

# (rule, premise, claim)
SUPPORTED = [
    ("'some' dropped, an adverb before the participle", "A clerk is slowly stacking some boxes.",
     "A clerk is slowly stacking boxes."),
    ("'some' dropped from a mass noun, adverb in both", "Some tea is being calmly poured by a porter.",
     "The porter is calmly pouring tea."),
    ("'some' dropped, passive progressive", "Some boxes are being stacked by a clerk.",
     "Boxes are being stacked by a clerk."),
    ("'a few' is 'some', upward", "A few porters are crossing the square.",
     "Porters are crossing the square."),
    ("'a large group of' states 'many'", "A large group of porters is crossing the square.",
     "Many porters are crossing the square."),
    ("'a big crowd of' states 'many'", "A big crowd of porters is crossing the square.",
     "Many porters are crossing the square."),
    ("'a lot of' states 'many'", "A lot of porters are crossing the square.",
     "Many porters are crossing the square."),
    ("'lots of' states 'many'", "Lots of porters are crossing the square.",
     "Many porters are crossing the square."),
    ("'a crowd of' states 'many' (WordNet: a large number)", "A crowd of porters is crossing the square.",
     "Many porters are crossing the square."),
    ("'a large number of' states 'many'", "A large number of porters are crossing the square.",
     "Many porters are crossing the square."),
]  # fmt: skip

NOT_SUPPORTED = [
    ("'some' under 'not'", "A clerk is not stacking some boxes.", "A clerk is not stacking boxes."),
    ("'some' under 'never'", "A clerk is never stacking some boxes.", "A clerk is never stacking boxes."),
    ("'some' under 'no'", "No clerk is stacking some boxes.", "No clerk is stacking boxes."),
    ("'some' under 'there is no'", "There is no clerk stacking some boxes.",
     "There is no clerk stacking boxes."),
    ("'some' under 'only'", "Only the clerk is stacking some boxes.", "Only the clerk is stacking boxes."),
    ("'some' under 'hardly'", "A clerk is hardly stacking some boxes.", "A clerk is hardly stacking boxes."),
    ("'some' dropped in a rule, not an event", "Some porters usually cross the square.",
     "Porters usually cross the square."),
    ("'some' dropped before a state", "Some porters are tall.", "Porters are tall."),
    ("'some' is not 'all'", "Some porters are crossing the square.", "All porters are crossing the square."),
    ("'a group of' states no number", "A group of porters is crossing the square.",
     "Many porters are crossing the square."),
    ("'a small group of' is not 'many'", "A small group of porters is crossing the square.",
     "Many porters are crossing the square."),
    ("'few' is not 'many'", "Few porters are crossing the square.", "Many porters are crossing the square."),
    ("'many' is not 'a large group' (no group is said)", "Many porters are crossing the square.",
     "A large group of porters is crossing the square."),
    ("'a large group' is not 'most'", "A large group of porters is crossing the square.",
     "Most porters are crossing the square."),
    ("'many' of another noun", "A large group of porters is watching a clerk.",
     "Many clerks are watching a porter."),
    ("'many' of another noun, no role swap", "A large group of porters is watching a clerk.",
     "A porter is watching many clerks."),
    ("a large group of two is not 'many'", "A large pair of boots is standing by the door.",
     "Many boots are standing by the door."),
    ("a large couple is two", "A large couple of porters is crossing the square.",
     "Many porters are crossing the square."),
    ("'many' under 'not'", "A large group of porters is not crossing the square.",
     "Many porters are not crossing the square."),
]  # fmt: skip

CONTRADICTED = [
    ("'few' against 'many'", "Few porters are crossing the square.", "Many porters are crossing the square."),
    ("'some' against 'all'", "Some porters are crossing the square.", "All porters are crossing the square."),
    ("'a small group of' against 'many'", "A small group of porters is crossing the square.",
     "Many porters are crossing the square."),
]  # fmt: skip


def _outcome(premise: str, claim: str) -> str:
    return check(claim, premise, settings=Settings()).outcome


@pytest.mark.parametrize(("rule", "premise", "claim"), SUPPORTED, ids=[r for r, _, _ in SUPPORTED])
def test_licence_admits(rule: str, premise: str, claim: str) -> None:
    assert _outcome(premise, claim) == "supported", rule


@pytest.mark.parametrize(("rule", "premise", "claim"), NOT_SUPPORTED, ids=[r for r, _, _ in NOT_SUPPORTED])
def test_licence_limit(rule: str, premise: str, claim: str) -> None:
    assert _outcome(premise, claim) != "supported", rule


@pytest.mark.parametrize(("rule", "premise", "claim"), CONTRADICTED, ids=[r for r, _, _ in CONTRADICTED])
def test_quantifier_clash_named(rule: str, premise: str, claim: str) -> None:
    assert _outcome(premise, claim) == "contradicted", rule
