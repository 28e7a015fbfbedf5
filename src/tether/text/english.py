"""The English table: every closed word list the stages read with, each defined once.

Prepositions, the relations they name and which exclude each other, determiners,
number words, month names, the headings of usage sections and the words a question
asks with. A stage that reads a narrower or wider
list takes a named one from here instead of writing its own copy; which list a stage
reads stays its own decision (the generator and the guard may differ), but a word
list is written down only here (ADR 0060). The narrower lists are kept exactly as
they were measured: widening one is a behaviour change, to measure first.

    >>> cardinals("eight", "eleven")
    ('eight', 'nine', 'ten', 'eleven')
    >>> sorted(RELATION_WORDS - PREPOSITIONS)
    ['away', 'far', 'front', 'indoors', 'middle', 'outdoors', 'top']
"""

from __future__ import annotations

__all__ = [
    "ARTICLES",
    "BASE_FORM_AUXILIARIES",
    "BE_FORMS",
    "CARDINALS",
    "CLAUSE_LINKS",
    "DETERMINERS",
    "EXCLUSIVE_RELATIONS",
    "FIGURE_CUE_WORDS",
    "FIGURE_TOKEN_WORDS",
    "FIGURE_WORDS",
    "HAVE_FORMS",
    "HOW_MEASURES",
    "LINKING_VERBS",
    "MEASURE_NOUNS",
    "MONTHS",
    "MONTH_ABBREVIATIONS",
    "NUMBER_WORDS",
    "OBJECT_DETERMINERS",
    "OBJECT_PREPOSITIONS",
    "PASSIVE_AUXILIARIES",
    "PERSON_NOUNS",
    "PLACE_NOUNS",
    "POSSESSIVES",
    "PREPOSITIONS",
    "RELATION_WORDS",
    "RELATIVE_PRONOUNS",
    "SAME_RELATION",
    "SCALES",
    "THING_DETERMINERS",
    "USAGE_HEADINGS",
    "VERB_ADVERBS",
    "cardinals",
]

# --- prepositions -----------------------------------------------------------------

# Words that bind a noun phrase into the clause ("in the trunk", "by the operator"):
# the verifier reads roles and noun phrases around them.
PREPOSITIONS = frozenset(
    """in on at onto into off out from to with without over under above below up down
    inside outside near behind beside toward towards along around across through
    before after against beneath underneath about for of by as like upon within
    among between during next""".split()
)
# Words that name where or when one thing is relative to another, whose exclusive
# pairs ("in"/"out", "before"/"after") WordNet does not cover: the prepositions of
# place and time (not "of", "by", "as", "like", "among", "between", "during"; "upon"
# and "within" are read as "on" and "in"), and the adverbs and nouns that name a
# relation ("far", "away", "front", "top").
RELATION_WORDS = (
    PREPOSITIONS - {"of", "by", "as", "like", "among", "between", "during", "upon", "within"}
) | {"far", "away", "front", "top", "middle", "outdoors", "indoors"}
# Spellings of one relation: "put in the trunk" is "put into the trunk".
SAME_RELATION: dict[str, str] = {
    "into": "in", "inside": "in", "within": "in", "onto": "on", "upon": "on", "towards": "toward",
    "underneath": "under", "beneath": "under", "outdoors": "outside", "indoors": "in",
}  # fmt: skip
# Relations that exclude each other: a thing "on" a shelf is not "off" it
# (docs/adr/0015-wordnet-lexicon.md: WordNet does not cover closed-class words).
EXCLUSIVE_RELATIONS = frozenset(
    frozenset(pair.split("/"))
    for pair in """on/off onto/off into/out in/out inside/outside up/down above/below
    over/under to/from onto/from into/from toward/away towards/away with/without
    before/after near/far in/far at/far on/far in/away at/away on/away into/off
    beneath/above underneath/above under/on under/onto""".split()
)
# Prepositions whose object, in a question, is the thing asked about ("the limit *for
# xylene*"): the common ones, and "than" ("higher *than* acetone"). A noun phrase
# stands there, never a verb, which questions paraphrase freely.
OBJECT_PREPOSITIONS = (
    PREPOSITIONS & {"of", "for", "about", "on", "in", "at", "from", "with", "by", "to", "into"}
) | {"than"}

# --- numbers ----------------------------------------------------------------------

# Number words in value order: "zero" to "nineteen" are their index, then the tens.
CARDINALS: tuple[str, ...] = tuple(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen
    fourteen fifteen sixteen seventeen eighteen nineteen
    twenty thirty forty fifty sixty seventy eighty ninety""".split()
)
# The words that multiply what precedes them ("three hundred", "1.2 million").
SCALES: dict[str, int] = {
    "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "trillion": 10**12,
}  # fmt: skip


def cardinals(first: str, last: str) -> tuple[str, ...]:
    """The cardinals from ``first`` to ``last``, both included, in value order."""
    return CARDINALS[CARDINALS.index(first) : CARDINALS.index(last) + 1]


# Every word a figure is spelled with: the verifier reads their values.
NUMBER_WORDS = frozenset(CARDINALS) | frozenset(SCALES) | {"dozen"}
# "Hundreds of", "dozens": a figure in round terms, not one value.
_ROUND_AMOUNTS = ("hundreds", "thousands", "millions", "billions", "dozens")
# Words an answer of the extractive generator's "figure" kind is written with, as
# measured: not "fourteen", "sixteen" to "nineteen" or "sixty" to "ninety".
FIGURE_WORDS = frozenset(
    cardinals("one", "thirteen")
    + ("fifteen",)
    + cardinals("twenty", "fifty")
    + ("hundred", "thousand", "million", "billion", "dozen", "half", "several")
    + tuple(w for w in _ROUND_AMOUNTS if w != "billions")
)
# The guard's cheap first cut for a figure in a sentence (after any digit), as
# measured: not "eleven".
FIGURE_CUE_WORDS: tuple[str, ...] = cardinals("one", "ten") + (
    "twelve", "hundred", "thousand", "million", "half", "dozen",
)  # fmt: skip
# Words the guard reads as a figure answer, vague amounts included ("several", "few").
FIGURE_TOKEN_WORDS: tuple[str, ...] = (
    cardinals("one", "twelve")
    + cardinals("twenty", "fifty")
    + ("hundred", "thousand", "million", "billion", "half", "dozen")
    + _ROUND_AMOUNTS
    + ("several", "many", "few")
)

# --- determiners ------------------------------------------------------------------

ARTICLES = frozenset(("a", "an", "the"))
_DEMONSTRATIVES = frozenset(("this", "that", "these", "those"))
POSSESSIVES = frozenset(("my", "your", "his", "her", "its", "our", "their"))
# What may open a noun phrase: the verifier reads the noun after it (small counts
# included: "two pumps").
DETERMINERS = (
    ARTICLES
    | _DEMONSTRATIVES
    | POSSESSIVES
    | frozenset("some each every another any no several many both few other others such".split())
    | frozenset(cardinals("one", "ten"))
)
# What may stand before a thing's name in a question ("the limit for *its* vapour"):
# articles, demonstratives and a thing's possessives.
THING_DETERMINERS = ARTICLES | _DEMONSTRATIVES | {"its", "their"}
# What may stand before a preposition's object in a question ("the limit for *his*
# department"): a person's possessives too.
OBJECT_DETERMINERS = THING_DETERMINERS | {"his", "her"}

# --- dates ------------------------------------------------------------------------

MONTHS: tuple[str, ...] = tuple(
    "january february march april may june july august september october november december".split()
)
# The months as abbreviated in dates ("12 Sept 2025"): the first three letters, and "sept".
MONTH_ABBREVIATIONS: tuple[str, ...] = (
    tuple(m[:3] for m in MONTHS[:9]) + ("sept",) + tuple(m[:3] for m in MONTHS[9:])
)

# --- documents --------------------------------------------------------------------

# Sections whose lines are usage patterns, not statements (man(7) and common READMEs).
USAGE_HEADINGS = frozenset(("SYNOPSIS", "USAGE", "SYNTAX"))

# The verb's company, as a shallow reading of a clause reads it (verify.shallow):
BE_FORMS = frozenset("is are was were be been being am 're 's".split())
# Auxiliaries and modals after which a verb comes in its base form.
BASE_FORM_AUXILIARIES = frozenset("do does did will would can could may might must shall should to".split())
HAVE_FORMS = frozenset("has have had".split())
PASSIVE_AUXILIARIES = frozenset("being been get gets got getting".split())
# Words that join two clauses, and the pronouns that open a relative clause.
CLAUSE_LINKS = frozenset("and or but while".split())
RELATIVE_PRONOUNS = frozenset("who which that whose".split())
# Verbs that link their subject to an adjective, as "be" does: "a child who looks young".
LINKING_VERBS = frozenset(("look", "looks", "looked", "seem", "seems", "seemed", "appear", "appears", "appeared"))
# Adverbs that stand between an auxiliary and its verb ("has not yet", "is still").
VERB_ADVERBS = frozenset("not never also still just now already always really even n't".split())

# --- questions --------------------------------------------------------------------

# "How …" asking for a measure ("how many", "how far"); "how old" is left to each
# reader (an age is a figure to one, a date to another).
HOW_MEASURES: tuple[str, ...] = ("many", "much", "long", "far", "high", "low", "hot", "cold", "big", "large", "often")
# "What/which …" asking for a place.
PLACE_NOUNS: tuple[str, ...] = (
    "country", "countries", "city", "cities", "place", "region", "town", "island", "river", "site", "continent",
)  # fmt: skip
# "What/which …" asking for a person or a body of people.
PERSON_NOUNS: tuple[str, ...] = ("person", "company", "agency", "organisation", "organization")
# "What/which …" asking for a measure ("what temperature", "which dose").
MEASURE_NOUNS: tuple[str, ...] = (
    "percentage", "proportion", "number", "amount", "temperature", "concentration", "level", "dose", "value",
)  # fmt: skip
