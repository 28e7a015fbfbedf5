"""How far the trained support model's word may move a lexical verdict (ADR 0044)."""

import pytest

from tether.guard.citation import carries_negation
from tether.judges.base import EXACT_CHECKERS, LIFTABLE_CHECKERS, Judgement, combine

ENTAILS = Judgement("entailment", {"entailment": 0.97, "neutral": 0.02, "contradiction": 0.01},
                    "support-model:test", (0, 10))
NEUTRAL = Judgement("neutral", {"entailment": 0.3, "neutral": 0.6, "contradiction": 0.1},
                    "support-model:test", (0, 10))


@pytest.mark.parametrize("checker", sorted(EXACT_CHECKERS - {"verbatim"}))
def test_an_exact_checkers_contradiction_is_never_lifted(checker: str):
    assert combine("contradicted", ENTAILS, accept_paraphrase=True, decided_by=checker)[0] == "contradicted"


@pytest.mark.parametrize("checker", ["relation", "roles", "predicate", "context"])
@pytest.mark.parametrize("outcome", ["contradicted", "mentioned", "unsupported"])
def test_a_structure_readings_refusal_is_not_lifted(checker: str, outcome: str):
    assert combine(outcome, ENTAILS, accept_paraphrase=True, decided_by=checker)[0] == outcome


@pytest.mark.parametrize("checker", sorted(LIFTABLE_CHECKERS))
def test_coverage_and_modality_may_be_lifted_by_an_entailment(checker: str):
    final, reason = combine("contradicted", ENTAILS, accept_paraphrase=True, decided_by=checker)
    assert final == "supported" and "paraphrase" in reason
    assert combine("unsupported", NEUTRAL, accept_paraphrase=True, decided_by=checker)[0] == "unsupported"


def test_a_neutral_reading_takes_lexical_support_away():
    assert combine("supported", NEUTRAL, accept_paraphrase=True, decided_by="lexical")[0] == "mentioned"


def test_without_decided_by_the_old_rule_stands():
    assert combine("mentioned", ENTAILS, accept_paraphrase=True)[0] == "supported"
    assert combine("contradicted", ENTAILS, accept_paraphrase=True)[0] == "contradicted"


@pytest.mark.parametrize("text,negated", [
    ("The door is not shut.", True), ("The door isn't shut.", True), ("No door is shut.", True),
    ("The door is never shut.", True), ("The door is shut.", False), ("Nothingness is a word.", False),
])
def test_claims_carrying_a_negation_are_known(text: str, negated: bool):
    assert carries_negation(text) is negated
