"""The WordNet-backed lexical relations the support test accounts claim words with."""

from __future__ import annotations

import os

import pytest

from tether.verify import lexicon


@pytest.fixture(scope="module", autouse=True)
def wordnet():
    if not lexicon.available():
        if os.environ.get("CI") == "true":
            pytest.fail("WordNet is required in CI (Debian wordnet-base)", pytrace=False)
        pytest.skip("WordNet not found (TETHER_WORDNET, WNSEARCHDIR, /usr/share/wordnet); "
                    "CI=true makes this a failure")


@pytest.mark.parametrize(
    ("premise", "claim", "relation"),
    [
        ("children", "kids", "synonym"),
        ("man", "person", "hypernym"),
        ("puppy", "dog", "hypernym"),
        ("men", "man", "same"),
        ("ran", "run", "same"),
        ("slicing", "cutting", "hypernym"),
        ("man", "woman", "antonym"),
        ("reduced", "increased", "antonym"),
        ("white", "black", "antonym"),
        ("bike", "car", "cohyponym"),
    ],
)
def test_relation(premise, claim, relation):
    assert lexicon.relation(premise, claim) == relation


@pytest.mark.parametrize(("premise", "claim"), [("person", "man"), ("dog", "puppy"), ("boy", "man")])
def test_a_hyponym_is_not_licensed_by_its_hypernym(premise, claim):
    assert not lexicon.licenses(premise, claim)


def test_unknown_words_have_no_relation():
    assert lexicon.relation("zxqvv", "qqzzk") is None
    assert lexicon.relation("Tokyo", "東京") is None
