"""SICK-style pairs of our own, from demo-corpus sentences: one table per class.

Each class of false support the issue names (a substituted word, reversed roles, a
changed relation word, an added detail) gets a table of claim / premise / outcome.
A substitution the lexicon knows to be exclusive (an antonym, a co-hyponym such as
man/woman) is ``contradicted``; one it cannot rule out is ``mentioned``. None may
come out ``supported``. The untouched sentence is the control: it stays supported.
"""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.verify import check

HATCH = "Two fitters opened an inspection hatch to clear a blocked pump."
ESCAPE = "People escaping a chlorine release move upwind and uphill."
TREATED = "Two workers were treated for eye irritation and released the same day."
STORED = "Chlorine cylinders are stored upright and chained, away from ammonia cylinders and fuel gases."
SPRAYED = "Water is never sprayed directly onto a leaking chlorine cylinder."
GAS = "Hydrogen sulfide that had built up under the hatch was released into the pump house."
EVACUATED = "The supervisor evacuated the workers from the pump house."
CLOSED = "The fitters closed the hatch before the inspector arrived."
FAN = "The sump ventilation fan had been switched off for 3 days for repairs."
CLEANING = "A man is cleaning the chlorine cylinder."

SETTINGS = Settings()


def _outcome(claim: str, premise: str) -> tuple[str, tuple[str, ...]]:
    result = check(claim, premise, settings=SETTINGS)
    return result.outcome, result.reasons


@pytest.mark.parametrize("premise", [HATCH, ESCAPE, TREATED, STORED, SPRAYED, GAS, EVACUATED, CLOSED, FAN])
def test_the_untouched_sentence_is_supported(premise):
    assert _outcome(premise, premise)[0] == "supported"


@pytest.mark.parametrize(
    ("claim", "premise", "outcome"),
    [
        # exclusive: antonyms and co-hyponyms
        ("Two fitters closed an inspection hatch to clear a blocked pump.", HATCH, "contradicted"),
        ("People escaping a chlorine release move downwind and uphill.", ESCAPE, "contradicted"),
        ("A woman is cleaning the chlorine cylinder.", CLEANING, "contradicted"),
        # not known to be exclusive: stated by no one, so mentioned
        ("Two welders opened an inspection hatch to clear a blocked pump.", HATCH, "mentioned"),
        ("Two fitters opened an inspection door to clear a blocked pump.", HATCH, "mentioned"),
        ("Two fitters opened an inspection hatch to clear a blocked valve.", HATCH, "mentioned"),
        ("Two fitters opened an inspection hatch to clear a broken pump.", HATCH, "mentioned"),
        ("Two workers were treated for skin irritation and released the same day.", TREATED, "mentioned"),
        ("Chlorine cylinders are stored upright and chained, away from ammonia cylinders and fuel tanks.",
         STORED, "mentioned"),
    ],
)
def test_one_word_substituted(claim, premise, outcome):
    got, reasons = _outcome(claim, premise)
    assert got == outcome, reasons
    assert any(r.startswith("substitution:") for r in reasons), reasons


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("The workers evacuated the supervisor from the pump house.", EVACUATED),
        ("The inspector closed the hatch before the fitters arrived.", CLOSED),
        ("The hatch opened two fitters.", HATCH),
    ],
)
def test_roles_reversed(claim, premise):
    got, reasons = _outcome(claim, premise)
    assert got == "contradicted", reasons
    assert any(r.startswith("roles:") for r in reasons), reasons


@pytest.mark.parametrize(
    ("claim", "premise", "outcome"),
    [
        # exclusive relation words
        ("Water is never sprayed directly off a leaking chlorine cylinder.", SPRAYED, "contradicted"),
        ("Hydrogen sulfide that had built up over the hatch was released into the pump house.", GAS,
         "contradicted"),
        ("The sump ventilation fan had been switched on for 3 days for repairs.", FAN, "contradicted"),
        # a different relation, not known to be exclusive
        ("Hydrogen sulfide that had built up under the hatch was released from the pump house.", GAS,
         "mentioned"),
        ("Chlorine cylinders are stored upright and chained, near ammonia cylinders and fuel gases.",
         STORED, "mentioned"),
    ],
)
def test_relation_word_changed(claim, premise, outcome):
    got, reasons = _outcome(claim, premise)
    assert got == outcome, reasons


@pytest.mark.parametrize(
    ("claim", "premise", "added"),
    [
        ("Two fitters opened an inspection hatch at night to clear a blocked pump.", HATCH, "night"),
        ("People escaping a chlorine release move upwind and uphill in the rain.", ESCAPE, "rain"),
        ("Two workers were treated for eye irritation at the hospital and released the same day.",
         TREATED, "hospital"),
        ("The supervisor evacuated the workers from the old pump house.", EVACUATED, "old"),
        ("Two young fitters opened an inspection hatch to clear a blocked pump.", HATCH, "young"),
    ],
)
def test_added_detail(claim, premise, added):
    got, reasons = _outcome(claim, premise)
    assert got == "mentioned", reasons
    assert f"added:'{added}' is not stated by the passage" in reasons


# Structure (verify.shallow / verify.structure): every word is in the passage, but in
# another part or role. None may come out supported.
CUT = "A fitter is sealing a cracked valve."
RIDER = "A man riding a forklift is moving a chlorine cylinder."
TWO_JOBS = "The fitters are clearing the pump and the supervisor is closing the hatch."
WEARING = "A worker is wearing a rubber glove and standing on the platform."
ALONE = "A fitter is working alone."
GOGGLES = "The fitter is not wearing goggles and welding."
COUNT = "Rollo agreed to swear fealty to King Charles III in 911."
HANDED = "The new fitter is being handed gloves and goggles."


@pytest.mark.parametrize(
    ("claim", "premise", "outcome", "reason"),
    [
        # the part of a word: a verb the passage has as a modifier, a noun as a modifier
        ("A fitter is cracking a valve.", CUT, "mentioned", "is a verb in the sentence"),
        ("A worker is standing on the rubber.", WEARING, "mentioned", "is a noun in the sentence"),
        # the agent of a verb: someone else does it
        ("The supervisor is clearing the pump.", TWO_JOBS, "mentioned", "is said of 'supervisor'"),
        ("A forklift is moving a chlorine cylinder.", RIDER, "mentioned", "is said of 'forklift'"),
        # agent and patient traded
        ("A chlorine cylinder is moving a man.", RIDER, "contradicted", "trade places"),
        # a modifier on another head
        ("A cracked fitter is sealing a valve.", CUT, "mentioned", "qualifies 'fitter'"),
        # a noun said twice where the passage says it once
        ("A fitter is working with other fitters.", ALONE, "mentioned", "a second 'fitters'"),
        # a verb the passage states only under its negation
        ("The fitter is welding.", GOGGLES, "contradicted", "only negated"),
        # a relation word the passage does not have between the two words
        ("A worker is standing on the rubber glove.", WEARING, "mentioned", "relation:"),
        # the unit word of a figure
        ("Rollo agreed to swear fealty to King Charles III in 911 days.", COUNT, "mentioned", "'days'"),
        # a manner adverb qualifies the act, not its doer
        ("A careful fitter is sealing a cracked valve.", "A fitter is carefully sealing a cracked valve.",
         "mentioned", "qualifies a verb"),
        ("A pose is being filmed by a clerk.", "A dancer doing a pose is being filmed by a clerk.",
         "mentioned", "is done to 'pose'"),
        ("Goggles are wearing the clerk.", "A clerk wearing goggles is walking.", "contradicted", "trade places"),
        ("The boots are sitting on a crate.",
         "A fitter is wearing boots that are covered with mud and is sitting on a crate.", "mentioned", "said of 'boots'"),
        ("A grey uniform is standing on a crate.", "A clerk who sells tickets, in a grey uniform, is standing on a crate.",
         "mentioned", "said of 'uniform'"),
        ("A boy is watching a welder.", "A man who is welding is watching a boy.", "contradicted", "trade places"),
        # who receives: the subject of a passive with an object
        ("The goggles are being handed gloves by a fitter.", HANDED, "mentioned", "goes to 'goggles'"),
    ],
)
def test_structure_differs(claim, premise, outcome, reason):
    got, reasons = _outcome(claim, premise)
    assert got == outcome, reasons
    assert any(reason in r for r in reasons), reasons


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        # paraphrases that keep the structure stay supported
        ("A cracked valve is being sealed by a fitter.", CUT),  # passive
        ("The pump is being cleared by the fitters.", TWO_JOBS),
        ("The supervisor is closing the hatch.", TWO_JOBS),  # the second clause alone
        ("A man is moving a chlorine cylinder.", RIDER),  # the participle phrase dropped
        ("A fitter is sealing a valve.", CUT),  # a modifier dropped
        ("Some fitters are clearing the pump.", TWO_JOBS),  # "some" says less
        ("A worker is wearing a glove.", WEARING),
        ("Rollo agreed to swear fealty to King Charles III.", COUNT),
        ("The fitter is being handed goggles.", HANDED),  # the same one receives
        # a participle and its bare object after a one-noun phrase is a verb, not a compound
        ("The clerk is wearing goggles.", "A clerk wearing goggles is walking."),
        # after a relative clause, "and is" agrees with the main subject, not the clause's
        ("The fitter is sitting on a crate.",
         "A fitter is wearing boots that are covered with mud and is sitting on a crate."),
        # a relative clause and a phrase between commas are asides: the clerk stands
        ("A clerk is standing on a crate.", "A clerk who sells tickets, in a grey uniform, is standing on a crate."),
        # a noun for one who does a verb is said by that verb's doer
        ("A welder is resting.", "A man who is welding is resting."),
        # "doing", a stop word, still qualifies the noun before it: the dancer is filmed
        ("A dancer is being filmed by a clerk.", "A dancer doing a pose is being filmed by a clerk."),
    ],
)
def test_structure_kept(claim, premise):
    got, reasons = _outcome(claim, premise)
    assert got == "supported", reasons
