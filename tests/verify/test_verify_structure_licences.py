"""Structure readings fixed from the misses (ADR 0035): pairs of our own, one table each.

Each reading of English that the shallow reading (``verify.shallow``) or the structure
check (``verify.structure``) got wrong has a table of what it now supports and, beside
it, its limit: the nearest pair that must stay not supported (or contradicted).
"""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.verify import check

SETTINGS = Settings()


def _outcome(claim: str, premise: str) -> tuple[str, tuple[str, ...]]:
    result = check(claim, premise, settings=SETTINGS)
    return result.outcome, result.reasons


def _supported(claim: str, premise: str) -> None:
    got, reasons = _outcome(claim, premise)
    assert got == "supported", reasons


def _not_supported(claim: str, premise: str, outcome: str | None) -> None:
    got, reasons = _outcome(claim, premise)
    assert got != "supported", reasons
    if outcome is not None:
        assert got == outcome, reasons


# A light verb that is a stop word ("doing", "having") after a form of "be" is the
# clause's verb: its object names the act, its subject does it.
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A clerk is doing a dance by the gate", "A clerk is dancing by the gate"),
        ("The fitter is on the roof and is doing a slow dance", "The fitter is on the roof and is dancing"),
    ],
)
def test_light_stop_verb_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        # someone else does the act
        ("A clerk is watching a fitter who is doing a dance", "A clerk is dancing", None),
        ("A clerk is watching a fitter performing a dance", "A clerk is dancing", None),
        # "doing" after a noun, not after "be", qualifies that noun
        ("A clerk is watching a fitter doing a dance", "A clerk is dancing", None),
    ],
)
def test_light_stop_verb_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# "look/seem/appear" before an adjective link it to their subject, as "is" does: the
# claim's "looks" is a copula, not the window's "looking at" (seeing).
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A clerk is looking at a fitter who is making a funny face",
         "A clerk is looking at a fitter who is making a face which looks funny"),
        ("The clerk is looking at a tired fitter", "The clerk is looking at a fitter who looks tired"),
    ],
)
def test_copula_look_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        # the adjective is said of another noun
        ("A clerk is looking at a fitter who looks tired", "The clerk looks tired", None),
        ("A clerk is looking at a tired fitter", "The clerk looks tired", None),
        ("A clerk is looking at a fitter who is making a funny face", "A clerk looks funny", None),
    ],
)
def test_copula_look_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# "being" takes no -ing form: "is being V-ing by <noun phrase>" is the passive with its
# participle misspelt, its agent after "by".
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A dog is chasing the cat of a clerk in the yard", "The cat of a clerk is being chasing by a dog in the yard"),
        ("A fitter is lifting the hatch", "The hatch is being lifting by a fitter"),
    ],
)
def test_being_ing_by_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        ("A dog is chasing a cat", "A dog is being chasing by a cat", "contradicted"),
        ("A fitter is lifting the hatch", "The fitter is being lifting by a hatch", "contradicted"),
        # "by" and a gerund is no agent
        ("A clerk is annoying the fitter", "The clerk is being annoying by singing", None),
    ],
)
def test_being_ing_by_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# "<noun> <past participle> <adjective>" ending its phrase says the adjective of the noun:
# "a room painted beige" is a beige room, "a door left open" an open door.
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A clerk is in a room painted beige, holding a ledger", "A clerk is in a beige room, holding a ledger"),
        ("A clerk in a shirt dyed purple is standing by the gate", "A clerk in a purple shirt is standing by the gate"),
        ("A fitter is standing by a door left open", "A fitter is standing by an open door"),
    ],
)
def test_resultative_participle_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        # the adjective belongs to the noun before the participle, not to another one
        ("A clerk is in a room painted beige", "A beige clerk is in a room", None),
        ("A clerk is in a room with a door painted beige", "A clerk is in a beige room", None),
        ("A clerk in a shirt dyed purple is standing by a door", "A clerk in a shirt is standing by a purple door", None),
        ("A door left open is beside the fitter", "The fitter is open", None),
    ],
)
def test_resultative_participle_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# An -ing word after an adjective opens a compound ("a white racing car", "a small
# cooking pot"), not a verb with an object: the adjective is no noun doing it.
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A white race car is driving past the gate", "A white racing vehicle is driving past the gate"),
        ("A small cooking pot is on the stove", "A cooking pot is on the stove"),
    ],
)
def test_adjective_before_ing_compound_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        ("A small cooking pot is on the stove", "A small pot is cooking on the stove", None),
        ("A white car is racing a vehicle past the gate", "A white racing vehicle is driving past the gate", None),
    ],
)
def test_adjective_before_ing_compound_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# "one" after "another"/"other"/"each", or after an adjective ("a white one"), heads its
# noun phrase; and a walk back for a subject stops at the "be" of a finished clause
# once it has passed "and": "a fitter is on the roof and another one is lifting".
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A fitter is on the roof and another one is lifting the hatch",
         "A fitter is on the roof and the hatch is being lifted by another one"),
        ("A grey cat and a white one are sleeping by the gate",
         "A grey cat and another one, which is white, are sleeping by the gate"),
    ],
)
def test_pronoun_one_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        # the first fitter only stands there (the old reading gave him the hatch)
        ("A fitter is on the roof and another one is lifting the hatch", "The hatch is being lifted by the fitter", None),
        ("A fitter is on the roof and another one is lifting the hatch", "The fitter is lifting the hatch", None),
        ("A fitter is lifting another one", "Another one is lifting a fitter", "contradicted"),
    ],
)
def test_pronoun_one_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# A window noun and the word before it that WordNet lists as one noun ("young woman",
# "base runner"; two nouns also closed up: "eye liner" is eyeliner) fill the roles of
# the word that noun licenses ("girl", "player", "cosmetics"), as in the accounting.
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A young woman is singing by the gate", "A girl is singing by the gate"),
        ("A fitter is applying eye liner to a clerk", "A fitter is applying cosmetics to a clerk"),
        ("The clerk is chasing the base runner", "The clerk is chasing the player"),
    ],
)
def test_window_collocation_roles_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        ("A clerk is greeting a young woman", "A girl is greeting a clerk", "contradicted"),
        ("A young woman is watching a clerk who is singing", "A girl is singing", None),
        ("A fitter is applying eye liner to a clerk", "A clerk is applying cosmetics to a fitter", "contradicted"),
        # an adjective and a noun that WordNet does not list as one noun
        ("The old woman is singing", "The girl is singing", None),
    ],
)
def test_window_collocation_roles_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# Adjectives listed with "and"/"or" (and commas) before a noun all qualify it: "the tall
# and green grass" is tall grass (the first was read as a noun that "and" ended).
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A grey cat is running through the tall and green grass", "A grey cat is running through the tall grass"),
        ("A fitter is carrying a heavy, old and grey box", "A fitter is carrying a heavy box"),
        ("The clerks are wearing coats which are black, red and yellow", "The clerks are wearing red coats"),
    ],
)
def test_adjective_list_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        # a noun ends the list: "the dog park and the green grass" is no green park
        ("A grey cat is running through the dog park and the green grass",
         "A grey cat is running through the green park", None),
        ("A fitter is carrying a heavy and grey box", "A fitter is carrying a heavy and grey cat", None),
    ],
)
def test_adjective_list_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# A modifier qualifies only its own noun phrase, whatever "and" joins it to: "a grey cat
# and a heavy box" says no grey box (a predicate may still be said of joined subjects).
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A clerk and a fitter who are tall are singing", "A tall clerk is singing"),
        ("A clerk is holding a heavy box and a grey cat", "The clerk is holding a grey cat"),
    ],
)
def test_modifier_scope_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        ("A heavy box and a grey cat are by the gate", "A grey box is by the gate", None),
        ("A clerk is holding a heavy box and a grey cat", "The clerk is holding a grey box", None),
        ("A clerk is holding a box and a grey cat", "The clerk is holding a grey box and a cat", None),
    ],
)
def test_modifier_scope_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# A participle opening a clause after a noun, then a preposition or a determiner, is a
# verb that qualifies the noun (", perched on a stool,"), not a noun that does the next
# verb; a verb after that aside looks back past it for its subject.
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A clerk with a grey coat, perched on a stool, is reading a ledger", "A clerk perched on a stool is reading a ledger"),
        ("A clerk, sitting on a stool, is watching a fitter", "The clerk is sitting on a stool"),
    ],
)
def test_opening_participle_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        ("A clerk, sitting on a stool, is watching a fitter", "The fitter is sitting on a stool", None),
        ("A clerk with a grey coat, perched on a stool, is reading a ledger", "A coat is reading a ledger", None),
        ("A clerk with a grey coat, perched on a stool, is reading a ledger", "A stool is reading a ledger", None),
    ],
)
def test_opening_participle_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)


# An adjective right after a noun with its "of" complement ("an area full of grass")
# qualifies that noun; it heads no noun phrase of its own.
@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        ("A clerk is sitting in a yard full of grass", "A clerk is sitting in a grassy yard"),
        ("A fitter is carrying a bucket full of water", "A fitter is carrying a bucket"),
    ],
)
def test_postposed_adjective_supports(premise, claim):
    _supported(claim, premise)


@pytest.mark.parametrize(
    ("premise", "claim", "outcome"),
    [
        # "full" is the bucket's, not the clerk's
        ("A clerk is holding a bucket full of water", "A full clerk is holding a bucket", None),
        ("A clerk is on a beach full of sand and enjoying a sunny day", "A clerk is enjoying a day full of sand", None),
    ],
)
def test_postposed_adjective_limit(premise, claim, outcome):
    _not_supported(claim, premise, outcome)
