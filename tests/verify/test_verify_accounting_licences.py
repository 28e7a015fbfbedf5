"""Accounting licences read from the support test's misses (docs/adr/0036-accounting-licences-from-the-misses.md).

Each licence lets a claim word be accounted for by a premise that states it in other
words, by a rule of English or a WordNet relation; each comes with a pair just past its
limit, which must stay not ``supported``. The pairs are our own, written for these
rules, not taken from any data set.
"""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.verify import lexicon
from tether.verify import check
from tether.verify.accounting import account
from tether.verify.align import align, best_windows
from tether.verify.lexical import prepare

pytestmark = pytest.mark.skipif(not lexicon.available(), reason="WordNet not installed")

# (licence, premise, claim)
LICENSED = [
    ("'perform' is said by 'do' with the same object and doer", "The acrobat is doing a handstand on the rug.",
     "The acrobat is performing a handstand on the rug."),
    ("'do': passive claim", "The acrobat is doing a cartwheel.", "A cartwheel is being performed by the acrobat."),
    ("'do': the doer qualified by a phrase", "A clown on a unicycle is doing a trick.",
     "A person is performing a trick on a unicycle."),
    ("a licensed word keeps its relation word", "The cat is sleeping on a box.",
     "The cat is sleeping on a container."),
    ("a lower-case word in its common sense first", "A clerk in a red jersey is typing.",
     "A clerk is typing and is wearing a jersey."),
    ("a word said twice licenses a second claim word", "A clerk is talking to a clerk in a grey coat.",
     "A clerk is talking to a person in a grey coat."),
    ("a quality WordNet's gloss gives the noun", "Two toddlers are splashing in a pond.",
     "Two young children are splashing in a pond."),
    ("a quality from the gloss: predicate", "A puppy is chewing a slipper.",
     "A dog, which is young, is chewing a slipper."),
    ("'on top of' is 'on'", "A cat is sleeping on the roof of a shed.", "A cat is sleeping on top of a shed roof."),
    ("'on' is 'on top of'", "A cat is sleeping on top of the shed.", "A cat is sleeping on the shed."),
    ("'at the base of' states 'near'", "The hikers are resting at the base of a cliff.",
     "The hikers are resting near a cliff."),
    ("'at the foot of' states 'near'", "A dog is sleeping at the foot of the bed.", "A dog is sleeping near the bed."),
    ("'at the base of' is still 'at'", "The hikers are resting at the base of a cliff.",
     "The hikers are resting at a cliff."),
    ("'dyed' beside a colour", "A clerk in a green apron is smiling.", "A clerk in an apron dyed green is smiling."),
    ("'in their teens' from the derived adjective", "Two teenage clerks are stacking boxes.",
     "Two clerks in their teens are stacking boxes."),
    ("an adverb spelt as a relation word and a noun", "A busker is singing on a stage.",
     "A busker is singing onstage."),
    ("'underwater' from 'under the water'", "A diver is swimming under the water.", "A diver is swimming underwater."),
]  # fmt: skip

NOT_LICENSED = [
    ("a licensed word under another relation word", "The cat is sleeping on a box.",
     "The cat is sleeping in a container."),
    ("'do': another doer", "The acrobat is doing a handstand and the clown is watching.",
     "The clown is performing a handstand."),
    ("'do': another object", "The acrobat is doing a handstand.", "The acrobat is performing a song."),
    ("'do' is not another light verb", "The acrobat is doing a puzzle.", "The acrobat is making a puzzle."),
    ("a word said once licenses no second word", "A clerk is talking.", "A clerk is talking to a person."),
    ("a quality from the gloss: not of the word itself", "A puppy is chewing a slipper.",
     "A young puppy is chewing a slipper."),
    ("a quality from the gloss: not another quality", "A puppy is chewing a slipper.",
     "A small dog is chewing a slipper."),
    ("a quality from the gloss: not of another noun", "A toddler is patting a dog.",
     "A toddler is patting a young dog."),
    ("'on top of' is not 'in'", "A cat is sleeping in a box.", "A cat is sleeping on top of a box."),
    ("'on top of': 'top' needs the phrase", "A cat is sleeping on the shed.", "A cat is sleeping on the top shelf."),
    ("'near' does not state 'at the base of'", "The hikers are resting near a cliff.",
     "The hikers are resting at the base of a cliff."),
    ("'near': the base of another thing", "The hikers are resting at the base of a hill by a cliff.",
     "The hikers are resting near a tree."),
    ("'dyed': another colour", "A clerk in a green apron is smiling.", "A clerk in an apron dyed red is smiling."),
    ("'in their teens': said of another noun", "Two teenage clerks are greeting a man.",
     "A man in his teens is greeting two clerks."),
    ("'in his teens' needs the noun's own adjective", "An elderly clerk is resting.",
     "A clerk in his teens is resting."),
    ("'onstage': another relation word", "A busker is singing near a stage.", "A busker is singing onstage."),
    ("'offstage' is not 'on a stage'", "A busker is singing on a stage.", "A busker is singing offstage."),
]  # fmt: skip

CONTRADICTED = [
    ("a licensed word under an exclusive relation word", "The cat is jumping onto a box.",
     "The cat is jumping off a container."),
    ("a licensed word: under, not on", "A boy is sitting on a car.", "A boy is sitting under a vehicle."),
]  # fmt: skip


@pytest.mark.parametrize(("licence", "premise", "claim"), LICENSED, ids=[r[0] for r in LICENSED])
def test_licence_supports(licence: str, premise: str, claim: str) -> None:
    result = check(claim, premise, settings=Settings())
    assert result.outcome == "supported", (licence, result.reasons)


@pytest.mark.parametrize(("limit", "premise", "claim"), NOT_LICENSED, ids=[r[0] for r in NOT_LICENSED])
def test_licence_stops_at_its_limit(limit: str, premise: str, claim: str) -> None:
    result = check(claim, premise, settings=Settings())
    assert result.outcome != "supported", (limit, result.reasons)


@pytest.mark.parametrize(("limit", "premise", "claim"), CONTRADICTED, ids=[r[0] for r in CONTRADICTED])
def test_changed_relation_contradicts(limit: str, premise: str, claim: str) -> None:
    result = check(claim, premise, settings=Settings())
    assert result.outcome == "contradicted", (limit, result.reasons)


def _accounting(claim: str, premise: str):
    c, p = prepare(claim), prepare(premise)
    window = next(iter(best_windows(c.key_set, p)))
    return account(align(c, p, window))


def test_a_two_word_noun_of_the_premise_accounts_for_its_synonym() -> None:
    # WordNet's synset girl/miss/young lady/young woman: "a young woman" says "a girl".
    assert lexicon.collocation_licenses("young_woman", "girl")
    assert lexicon.collocation_licenses("young_women", "girls")
    # In its first sense only: "young man" is also a boyfriend in WordNet's second.
    assert not lexicon.collocation_licenses("young_man", "boyfriend")
    assert "girl" in _accounting("The girl is reading a map.", "The young woman is reading a map.").licensed
    assert "girl" not in _accounting("The girl is reading a map.", "The woman is reading a map.").licensed
    # Two nouns WordNet writes as one word: "eye liner" is eyeliner, a cosmetic.
    assert _accounting("A clerk is selling cosmetics.", "A clerk is selling eye liner.").licensed
    # An adjective and a noun are not the one word they spell: a gray beard is no graybeard.
    assert not _accounting("A clerk is greeting someone.", "A clerk with a gray beard is greeting.").licensed


def test_a_lower_case_word_reads_its_common_senses_before_a_name() -> None:
    # WordNet lists "jersey" first as New Jersey and "grey" as people named Grey.
    assert lexicon.kind_of("jersey", "clothing")
    assert lexicon.kind_of("grey", "color")
    assert lexicon.licenses("dog", "animal")


def test_a_gloss_defines_a_quality_of_its_head_only() -> None:
    assert lexicon.defined_as("toddler", "young", "child")
    assert lexicon.defined_as("toddlers", "young", "kids")  # "kid" is a synonym of "child"
    assert not lexicon.defined_as("puppy", "young", "animal")  # the gloss's head only
    assert not lexicon.defined_as("lion", "large", "cat")
