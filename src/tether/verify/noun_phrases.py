"""Noun phrases that count otherwise: "a group of men" said by its members' noun, "a
piece of bread" said by the mass noun, a counted noun ("a tomato") against a mass
("bread"), "something" for any thing, one noun in two words ("a wind instrument"),
and the collocations WordNet spells with "_". The structure check (``structure``) and
the accounting's licences (``event_licences``) read them alike.
"""

from __future__ import annotations

from ..text.english import BE_FORMS
from . import lexicon
from .lexical import Prepared
from .shallow import Reading

# Indefinite pronouns for a thing: any noun for a thing says them.
INDEFINITE_THINGS = frozenset(("something",))


# Nouns that name a number of their members: "a group of men" is some men.
_COLLECTIVE = frozenset(("group",))


def collective_members(t: Prepared, r: Reading, x: int) -> int:
    """For "a group of <plural>" at ``x``, the plural's token, else -1."""
    if not set(lexicon.lemmas(t.low[x], "n")) & _COLLECTIVE or t.low[x].endswith("s"):
        return -1
    if x + 2 >= len(t.low) or t.low[x + 1] != "of" or t.clause[x + 2] != t.clause[x]:
        return -1
    for w in range(x + 2, min(len(t.low), x + 5)):
        if r.tag[w] == "N":
            plural = any(base != t.low[w] for base in lexicon.lemmas(t.low[w], "n"))
            return w if plural else -1
    return -1


def one_noun(t: Prepared, x: int) -> bool:
    """Token ``x`` and the next are one noun in WordNet ("wind instrument", "panda
    bear")."""
    return x + 1 < len(t.low) and bool(collocations(t, x + 1)) and any(
        w.split("_")[0] == t.low[x] or w.split("-")[0] == t.low[x] for w in collocations(t, x + 1)
    )


def predicate_noun(t: Prepared, r: Reading, x: int) -> bool:
    """Noun ``x`` is the complement of "is/are a …" ("is a flute player")."""
    y = x - 1
    while y >= 0 and (r.tag[y] == "M" or t.low[y] in ("a", "an")):
        y -= 1
    return y < x - 1 and y >= 0 and t.low[y] in BE_FORMS


def partitive_of(t: Prepared, r: Reading, x: int) -> int:
    """For "a piece of <noun>" at ``x`` (singular: "a piece of paper"), the noun's token,
    else -1."""
    if t.low[x] != "piece" or x + 2 >= len(t.low) or t.low[x + 1] != "of":
        return -1
    for w in range(x + 2, min(len(t.low), x + 4)):
        if t.clause[w] != t.clause[x]:
            return -1
        if r.tag[w] == "N":
            return w if t.low[w] in lexicon.lemmas(t.low[w], "n") else -1
    return -1


def counted_noun(t: Prepared, z: int) -> bool:
    """Noun ``z`` is counted ("a tomato", "one loaf"), not said as a mass ("bread",
    "some paper"): a piece of a tomato is not the tomato."""
    y = z - 1
    while y >= 0 and t.keys[y] is not None and z - y < 4:
        y -= 1
    return y >= 0 and t.low[y] in ("a", "an", "one")


def collocations(t: Prepared, x: int) -> list[str]:
    """The collocations WordNet knows that end at token ``x`` (two words: "table
    tennis") or that ``x`` heads with "of" ("body of water"), in their spellings."""
    found = []
    if x > 0 and t.keys[x - 1] is not None and t.clause[x - 1] == t.clause[x]:
        found.append(f"{t.low[x - 1]}_{t.low[x]}")
        if not lexicon.lemmas(t.low[x - 1], "a"):
            found.append(t.low[x - 1] + t.low[x])  # "eye liner" is "eyeliner", "a gray beard" no graybeard
    if x + 2 < len(t.low) and t.low[x + 1] == "of" and t.keys[x + 2] is not None and t.clause[x + 2] == t.clause[x]:
        found.append(f"{t.low[x]}_of_{t.low[x + 2]}")
    return [w for joined in found for w in (joined, joined.replace("_", "-")) if lexicon.lemmas(w, "n")]
