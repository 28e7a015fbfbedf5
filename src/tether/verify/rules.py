"""The support test's rules, named (docs/adr/0059-named-support-rules.md).

Each rule is a licence (a claim word the window says in other words), a check that
takes support away, or a frame around a verbatim piece. Its code lives where it reads
the text (``accounting``, ``wording_licences``, ``event_licences``, ``relations``,
``roles``, ``structure``, ``polarity``, ``checks``, ``context``, ``core``); this
registry records what exists: a name, a one-line statement, one (claim, passage) pair
the rule decides and one just past its limit, each with the outcome ``check`` gives. A
verdict names the rules that decided it (``Check.rules``), and
``Settings.support_rules_off`` switches rules off to measure them
(``bench/support_rules.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..errors import ConfigError
from ..records import Outcome

__all__ = ["BASE", "RULES", "UNNAMED", "Example", "Rule", "RuleUse", "rules_off", "rules_off_setting"]


@dataclass(frozen=True, slots=True)
class RuleUse:
    """One rule that decided a verdict, with what it read (the reason shown to users)."""

    rule: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Example:
    claim: str
    passage: str
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class Rule:
    """``decides``: a pair the rule decides; ``limit``: one just past its limit.
    ``checker``: the verdict's ``checker`` when the rule caps a claim at ``mentioned``."""

    name: str
    statement: str
    decides: Example | None
    limit: Example | None
    checker: str = "lexicon"


# The base test, always on and not a rule: the sentence is in the passage word for word,
# or enough of its content words are ("overlap").
BASE = ("verbatim", "overlap")


def _rule(name: str, statement: str, decides: tuple[str, str, Outcome], limit: tuple[str, str, Outcome],
          checker: str = "lexicon") -> Rule:  # fmt: skip
    return Rule(name, statement, Example(*decides), Example(*limit), checker)


_S, _M, _C, _U = "supported", "mentioned", "contradicted", "unsupported"

RULES: dict[str, Rule] = {
    r.name: r
    for r in (
        # Licences: a claim word the window says in other words (account, wording).
        _rule("wordnet-licence", 'A window word licenses the claim word: same lemma, synonym, or a hypernym it states.',
              ("A man is running.", "A man is racing.", _S),
              ("A man is racing.", "A man is running.", _M)),
        _rule("repeated-word-licence", 'A word the window says more often than the claim licenses a second claim word.',
              ("A clerk is talking to a person in a grey coat.", "A clerk is talking to a clerk in a grey coat.", _S),
              ("A clerk is talking to a person.", "A clerk is talking.", _M)),
        _rule("collocation-licence", 'A two-word noun of the window that WordNet lists licenses the claim word ("a young woman": "a girl").',
              ("A girl is playing the guitar.", "A young woman is playing the guitar.", _S),
              ("A girl is playing the guitar.", "An old woman is playing the guitar.", _M)),
        _rule("phrase-licence", 'A claim collocation WordNet knows is licensed by a window word or collocation ("ping pong": "table tennis").',
              ("Two men are playing ping pong.", "Two men are playing table tennis.", _S),
              ("Two men are playing ping pong.", "Two men are playing tennis.", _M)),
        _rule("indefinite-thing", '"something" is said by the noun in its slot, unless that noun is a person.',
              ("The woman is cooking something.", "The woman is cooking eggs.", _S),
              ("The woman is carrying something.", "The woman is carrying a baby.", _M)),
        _rule("compound-spelling", 'Two adjacent words on one side are one word on the other ("bird cage": "birdcage").',
              ("A girl is reading in the backyard.", "A girl is reading in the back yard.", _S),
              ("A girl is reading in the backyard.", "A girl is reading in the yard.", _M)),
        _rule("periphrasis", '"made of / covered with / full of X" is said by X as a modifier ("a rope bridge").',
              ("A cat is sleeping on the wall made of stone.", "A cat is sleeping on the stone wall.", _S),
              ("A cat is sleeping on a wall made of stone.", "A cat is sleeping on a stone by the wall.", _M)),
        _rule("relation-spelling", 'One relation spelt two ways ("into": "in", "outdoors": "outside").',
              ("The twins are reading outdoors.", "The twins are reading outside.", _S),
              ("The twins are reading indoors.", "The twins are reading outside.", _M)),
        _rule("near-spelling", '"near" is said by "close to", "beside", "next to", "at the foot of"; "close to" by "near".',
              ("The twins are sitting near a wall.", "The twins are sitting beside a wall.", _S),
              ("The twins are sitting beside a wall.", "The twins are sitting near a wall.", _M)),
        _rule("collective-members", '"a group of X" is said by X in the plural, or a plural the members\' noun licenses.',
              ("A group of people is singing.", "Some clerks are singing.", _S),
              ("A group of people is singing.", "A clerk is singing.", _M)),
        _rule("partitive-mass", '"a piece of X" is said by X uncounted ("slicing bread").',
              ("The baker is slicing a piece of bread.", "The baker is slicing bread.", _S),
              ("The baker is slicing a piece of bread.", "The baker is slicing a loaf of bread.", _M)),
        _rule("wearing-stated", 'A form of "wear" is said by its garment after "in" or "with" ("a man in a hat").',
              ("A man is wearing a red hat and singing.", "A man in a red hat is singing.", _S),
              ("A man is wearing a red hat and singing.", "A man is singing near a red hat.", _M)),
        _rule("dressed-in", '"dressed in X" is said by "in X".',
              ("A dancer dressed in white is spinning.", "A dancer in white is spinning.", _S),
              ("A dancer dressed in white is spinning.", "A dancer is spinning on a white floor.", _M)),
        _rule("place-kind", '"outdoors"/"outside"/"indoors" is said by a place of that kind the scene is in.',
              ("The twins are reading outdoors.", "The twins are reading in the meadow.", _S),
              ("The twins are reading outdoors.", "The twins are reading in the kitchen.", _M)),
        _rule("privative", '"X-less" is said by "no X" / "without X".',
              ("A shoeless boy is running on the sand.", "A boy with no shoes is running on the sand.", _S),
              ("A shoeless boy is running on the sand.", "A boy with no hat is running on the sand.", _C)),
        _rule("linking-verb", '"looks/seems/appears ADJ" is said by the adjective qualifying the same noun.',
              ("A clerk who looks tired is closing the shop.", "A tired clerk is closing the shop.", _S),
              ("A clerk who looks tired is closing the shop.", "A clerk is closing the shop after a tired day.", _M)),
        _rule("agent-noun", 'A noun for who does a verb ("players") is said by a person doing that verb.',
              ("The football players are running.", "People playing football are running.", _S),
              ("Tennis players are running.", "People playing football are running.", _U)),
        _rule("cognate-object", 'The object a verb makes ("singing a song") is said by the verb with no other object.',
              ("The busker is singing a song by the door.", "The busker is singing by the door.", _S),
              ("The busker is singing a hymn by the door.", "The busker is singing by the door.", _M)),
        _rule("do-synonym", 'A synonym of "do" ("perform") is said by "do" with the same object and doer.',
              ("The acrobat is performing a handstand on the rug.", "The acrobat is doing a handstand on the rug.", _S),
              ("The acrobat is making a puzzle.", "The acrobat is doing a puzzle.", _M)),
        _rule("on-top-of", '"on top of" is "on": "top" needs no word of its own.',
              ("A cat is sleeping on top of the shed.", "A cat is sleeping on the shed.", _S),
              ("A cat is sleeping on top of a box.", "A cat is sleeping in a box.", _M)),
        _rule("adverb-spelling", 'An adverb spelt as a relation word and a noun ("onstage") is said by that phrase.',
              ("A busker is singing onstage.", "A busker is singing on a stage.", _S),
              ("A busker is singing onstage.", "A busker is singing near a stage.", _M)),
        _rule("defined-quality", 'A quality WordNet\'s gloss gives a window noun ("a toddler": a young child) is said by it.',
              ("Two young children are splashing in a pond.", "Two toddlers are splashing in a pond.", _S),
              ("A small dog is chewing a slipper.", "A puppy is chewing a slipper.", _M)),
        _rule("colour-named", '"colored"/"dyed" beside a colour the window says adds nothing.',
              ("A clerk in an apron dyed green is smiling.", "A clerk in a green apron is smiling.", _S),
              ("A clerk in an apron dyed red is smiling.", "A clerk in a green apron is smiling.", _M)),
        _rule("age-phrase", '"in their teens" is said by the adjective WordNet derives ("teenage").',
              ("Two clerks in their teens are stacking boxes.", "Two teenage clerks are stacking boxes.", _S),
              ("A clerk in his teens is resting.", "An elderly clerk is resting.", _M)),
        # Licences of the structure check (structure) and of the cue checks (polarity).
        _rule("compound-phrase", 'A modifier on one side is the noun of a phrase after the same head on the other ("a camera lens": "the lens of a camera").',
              ("A camera lens is dirty.", "The lens of a camera is dirty.", _S),
              ("A lens camera is dirty.", "The lens of a camera is dirty.", _M), "roles"),
        _rule("relative-verb", 'A modifier is the window\'s verb done by its head ("the burning car": "the car is burning").',
              ("The girls are watching the boiling kettle.", "The girls are watching the kettle, which is boiling.", _S),
              ("The girls are watching the barking kettle.", "The girls are watching the kettle and the dog, which are barking.", _M), "roles"),
        _rule("doer-compound", 'A modifier whose head names who does a window verb is that verb\'s object ("a guitar player").',
              ("The busker is a flute player.", "The flute is being played by the busker.", _S),
              ("The busker is a flute player.", "The flute is being played near the busker.", _M), "roles"),
        _rule("privative-negation", '"no X" and "X-less" negate alike, so neither counts as a negation the other lacks.',
              ("A shoeless boy is running on the sand.", "A boy with no shoes is running on the sand.", _S),
              ("A barefoot boy is running on the sand.", "A boy with no shoes is running on the sand.", _C), "polarity"),
        _rule("many-stated", '"many" is said by "a large group of", "a lot of", "dozens of".',
              ("Many porters are crossing the square.", "Lots of porters are crossing the square.", _S),
              ("Many porters are crossing the square.", "A few porters are crossing the square.", _C), "quantifier"),
        _rule("ongoing-event", 'A plain plural doing something now is said by "some" of them doing it.',
              ("Men are sawing.", "Some men are sawing.", _S),
              ("Porters are tall.", "Some porters are tall.", _M), "quantifier"),
        # What takes support away: caps at "mentioned" and contradictions.
        _rule("exclusive-substitution", 'A claim word in the slot of an exclusive window word (antonym, co-hyponym) contradicts.',
              ("The man is reading a book.", "The lady is reading a book.", _C),
              ("The man is reading a book.", "The clerk is reading a book.", _M)),
        _rule("unaccounted-word", 'A claim word the window neither repeats nor licenses caps the claim at mentioned.',
              ("A clerk is talking to a person.", "A clerk is talking.", _M),
              ("A clerk is talking.", "A clerk is talking to a person.", _S)),
        _rule("reversed-roles", 'Three aligned words in the order x v y that the window has as y v x: roles reversed.',
              ("A horse is falling on someone.", "Someone is falling off a horse.", _C),
              ("The baby is being licked by a dog.", "A dog is licking a baby.", _S), "roles"),
        _rule("participle-turned", 'A verb and its object that the window has as a noun and participle caps the claim.',
              ("A man is slicing an onion.", "A man is eating onion slices.", _M),
              ("A trumpet is being played by a man.", "A man is playing a trumpet.", _S), "roles"),
        _rule("relation-words", 'The relation words binding aligned neighbours must agree; an exclusive change contradicts.',
              ("A boy is sitting under a vehicle.", "A boy is sitting on a car.", _C),
              ("A man is jumping from a wall.", "A man is jumping off a wall.", _S), "relation"),
        _rule("structure-roles", 'Each claim word plays the part (verb, noun, modifier) and roles the window gives it.',
              ("The woman is dancing.", "A woman is being caged for the dance.", _M),
              ("The woman is dancing.", "A woman is dancing in a cage.", _S), "roles"),
        _rule("negated-verb", 'A claim verb the window states only negated contradicts.',
              ("The man is smiling and is not tall.", "The man is tall and is not smiling.", _C),
              ("The man who is not tall is smiling.", "The tall man is not smiling.", _M)),
        _rule("said-once", 'Each claim noun needs a window word of its own (two women are not said by one).',
              ("A clerk is talking to a clerk in a grey coat.", "A clerk is talking to a person in a grey coat.", _M),
              ("A lady is greeting another woman.", "A woman is greeting another woman.", _S)),
        _rule("unstated-predicate", "The word a claim's copula or negation governs must be stated.",
              ("The person is carefully slicing a potato.", "The man is slicing a potato.", _U),
              ("The vaccine is safe for children.", "The vaccine is safe for children and adults.", _S), "predicate"),
        _rule("context-frame", 'A verbatim piece its sentence restricts, conditions or reports is only mentioned.',
              ("vaccines cause autism.", "It is a myth that vaccines cause autism.", _M),
              ("the alarm sounds.", "The sensor detects smoke and the alarm sounds.", _S), "context"),
        _rule("negation", 'Negation cues must agree between the claim and the aligned region.',
              ("The band isn't singing.", "The band is singing.", _C),
              ("The band isn't singing.", "The band is not singing.", _S), "polarity"),
        _rule("quantifier", 'All/some/most/few must agree.',
              ("All porters are tall.", "Some porters are tall.", _C),
              ("Birds fly.", "All birds fly.", _S), "quantifier"),
        _rule("modality", 'May/can/must/should against a plain assertion must agree.',
              ("The drug must be taken daily.", "The drug may be taken daily.", _C),
              ("The drug may be taken daily.", "Doctors say the drug may be taken daily.", _S), "modality"),
        _rule("figures", "Each figure of the claim must be the passage's figure in its slot.",
              ("Water boils at 90 °C.", "At sea level water boils at 100 °C.", _C),
              ("Water boils at 100 °C.", "At sea level water boils at 100 °C.", _S), "figures"),
        _rule("years", "Each year of the claim must be the passage's year in its slot.",
              ("The bridge opened in 1932.", "The bridge opened in 1937.", _C),
              ("The bridge opened in 1937.", "The bridge opened in 1937, after delays.", _S), "years"),
        _rule("names", 'Each name of the claim must be in the passage.',
              ("Rollo is feeding the ducks.", "Kids are feeding the ducks.", _C),
              ("Rollo is feeding the ducks.", "Rollo and his kids are feeding the ducks.", _S), "names"),
    )
}

# Licences that keep a check from firing (a structure clash, a negation or quantifier
# cue): a verdict cannot name what did not fire, so these are measured by switching
# them off (bench/support_rules.py).
UNNAMED = frozenset((
    "compound-phrase", "relative-verb", "doer-compound",
    "privative-negation", "many-stated", "ongoing-event",
))


@lru_cache(maxsize=32)  # read for every sentence-passage check
def rules_off_setting(value: str) -> frozenset[str]:
    """``Settings.support_rules_off`` ("name, name"), read and checked as ``rules_off``."""
    return rules_off(name.strip() for name in value.split(",") if name.strip())


def rules_off(names: Iterable[str]) -> frozenset[str]:
    """The rules named, checked against the registry: an unknown name is an error naming it."""
    out = frozenset(names)
    unknown = sorted(out - RULES.keys())
    if unknown:
        raise ConfigError(f"support_rules_off names no rule: {', '.join(unknown)} (known: {', '.join(sorted(RULES))})")
    return out
