"""Licences by wording: a claim word the window says spelt or phrased another way — a
compound in one word or two ("bird cage"), a WordNet collocation ("ping pong" for
"table tennis"), a relation spelt as an adverb ("onstage"), "near" as "close to", a
place of the kind "outdoors" names, "X-less" as "no X", a garment worn as one "in" it,
"made of rope" as "a rope bridge", "in their teens" as "teenage" (``account`` tries
them; ``rules.RULES`` names each).
"""

from __future__ import annotations

from ..text.english import DETERMINERS
from . import lexicon
from .account import (
    NEAR_BY,
    RELATION_WORDS,
    SAME_RELATION,
    WEAR,
    at_foot,
    relation_before,
)
from .align import Alignment
from .lexical import Prepared
from .polarity import privative_noun, privative_phrases, privative_stem
from .reading import read
from .relations import COLOURED
from .shallow import PURPOSE, Reading


def on_top_of(a: Alignment, x: int) -> bool:
    """"on top of" is "on", a relation read as one (``relation_set``)."""
    c = a.claim
    return c.low[x] == "top" and 0 < x < len(c.low) - 1 and c.low[x - 1] == "on" and c.low[x + 1] == "of"


def relation_spelt(a: Alignment, x: int, window: list[int]) -> bool:
    """"outdoors" from "outside": one relation spelt two ways."""
    c, p = a.claim, a.passage
    same = SAME_RELATION.get(c.low[x])
    return same is not None and any(SAME_RELATION.get(p.low[z], p.low[z]) == same for z in window)


def compound_spelling(a: Alignment, x: int, window: list[int]) -> bool:
    """Claim token ``x`` is part of a compound the window spells another way: two
    adjacent words on one side are one word on the other ("bird cage" / "birdcage")."""
    c, p = a.claim, a.passage
    said = {p.low[z] for z in window}
    for y in (x - 1, x + 1):
        if 0 <= y < len(c.low) and c.keys[y] is not None and c.clause[y] == c.clause[x]:
            joined = c.low[min(x, y)] + c.low[max(x, y)]
            if joined in said:
                return True
    word = c.low[x]
    for z in window:
        nxt = z + 1
        if nxt < a.t1 and p.keys[nxt] is not None and p.clause[nxt] == p.clause[z]:
            if p.low[z] + p.low[nxt] == word:
                return True
    return False


def _bigrams(p: Prepared, tokens: list[int]) -> list[str]:
    """Adjacent word pairs as WordNet spells a collocation ("table_tennis")."""
    return [f"{p.low[z]}_{p.low[z + 1]}" for z in tokens
            if z + 1 < len(p.low) and p.keys[z + 1] is not None and p.clause[z + 1] == p.clause[z]]  # fmt: skip


def _of_phrases(p: Prepared, x: int) -> list[tuple[str, tuple[str | None, ...]]]:
    """"<noun> of <noun>" collocations around token ``x`` ("body_of_water", "piece of
    furniture"), as WordNet spells them, with the keys of their two nouns."""
    out: list[tuple[str, tuple[str | None, ...]]] = []
    for y in (x, x - 2):
        if 0 <= y and y + 2 < len(p.low) and p.low[y + 1] == "of" and p.clause[y + 2] == p.clause[y]:
            if p.keys[y] is not None and p.keys[y + 2] is not None:
                out.append((f"{p.low[y]}_of_{p.low[y + 2]}", (p.keys[y], p.keys[y + 2])))
    return out


def phrase_licensed(a: Alignment, x: int, window: list[int]) -> tuple[str | None, ...] | None:
    """Claim token ``x`` in a collocation WordNet knows ("ping pong", "body of water"),
    licensed by a window word or collocation ("table tennis", "lake"): the keys of the
    collocation's claim words."""
    c, p = a.claim, a.passage
    ours = [y for y in (x - 1, x) if 0 <= y and y + 1 < len(c.low) and c.keys[y] is not None]
    phrases = [(joined, (c.keys[y], c.keys[y + 1])) for y, joined in zip(ours, _bigrams(c, ours))]
    for phrase, keys in phrases + _of_phrases(c, x):
        # WordNet writes a collocation with "_" or "-" ("table_tennis", "ping-pong").
        for spelling in (phrase, phrase.replace("_", "-")):
            if not any(lexicon.lemmas(spelling, pos) for pos in ("n", "v")):
                continue
            theirs = [p.low[z] for z in window] + _bigrams(p, window)
            if any(lexicon.licenses(t, spelling) for t in theirs):
                return keys
    return None


def collocations_at(p: Prepared, heads: list[int]) -> list[str]:
    """The two-word nouns WordNet lists that end at each of ``heads``, as it spells them
    ("young_woman"; two nouns also as one word: "eye liner" is "eyeliner", but "a gray
    beard" is no graybeard)."""
    pairs = [(p.low[z - 1], p.low[z]) for z in heads
             if z > 0 and p.keys[z - 1] is not None and p.clause[z - 1] == p.clause[z]]  # fmt: skip
    spelt = [(f"{a}_{b}", a + b if not lexicon.lemmas(a, "a") else "") for a, b in pairs]
    return [w for pair in spelt for w in pair if w and lexicon.lemmas(w, "n")]


# Relation words an adverb of place is spelt from: "onstage", "underwater", "uphill".
_ADVERB_RELATIONS = ("on", "off", "under", "over", "up", "down")


def adverb_spelt(a: Alignment, x: int, window: list[int]) -> bool:
    """Claim token ``x`` is an adverb or adjective WordNet lists, spelt as a relation word
    and a noun ("onstage", "underwater", "uphill"), where the window has that noun after that
    relation word ("on a stage", "under the water")."""
    c, p = a.claim, a.passage
    word = c.low[x]
    if word in RELATION_WORDS or not (lexicon.lemmas(word, "r") or lexicon.lemmas(word, "a")):
        return False
    for rel in _ADVERB_RELATIONS:
        rest = word[len(rel) :]
        if not word.startswith(rel) or len(rest) < 3 or not lexicon.lemmas(rest, "n"):
            continue
        for z in window:
            if rest in (p.low[z], *lexicon.lemmas(p.low[z], "n")) and relation_before(p, z) == {rel}:
                return True
    return False


def near_spelled(a: Alignment, x: int, window: list[int]) -> bool:
    """Claim "near" where the window has "close to" or a relation of being by a thing
    (``NEAR_BY``), or "close (to)" where it has "near"."""
    c, p = a.claim, a.passage
    word, nxt = c.low[x], c.low[x + 1] if x + 1 < len(c.low) else ""
    if word == "near":
        return any(p.low[z] == "close" and z + 1 < a.t1 and p.low[z + 1] == "to" for z in window) or any(
            p.low[z] in NEAR_BY or at_foot(p.low, z) and p.sent[z - 1] == p.sent[z] for z in range(a.t0, a.t1)
        )
    if word == "close" and nxt == "to":
        return any(p.low[z] == "near" for z in window)
    return False


# An adverb of place said by a place of its kind (WordNet): a field, a yard, a park are
# tracts of land, out of doors; a room, a house are indoors.
_PLACE_KINDS = {"outdoors": ("tract",), "outside": ("tract",), "indoors": ("room", "building")}


_AT_PLACE = frozenset(("in", "on", "at", "across", "through", "into", "onto", "around"))


def place_kind_said(a: Alignment, x: int, window: list[int]) -> bool:
    """Claim token ``x`` is "outdoors"/"outside"/"indoors" used as an adverb (no object
    after it), and the window puts the scene in, on or at a place of that kind, or for
    "outdoors"/"outside", out of a building."""
    c, p = a.claim, a.passage
    kinds = _PLACE_KINDS.get(c.low[x])
    if kinds is None:
        return False
    y = x + 1
    if y < len(c.low) and c.clause[y] == c.clause[x] and (c.keys[y] is not None or c.low[y] in DETERMINERS):
        return False  # "outside the house": a relation to a thing, read as one
    for z in window:
        if relation_before(p, z) & _AT_PLACE and any(lexicon.kind_of(p.low[z], kind) for kind in kinds):
            return True
        if c.low[x] != "indoors" and _out_of(p, z) and lexicon.kind_of(p.low[z], "building"):
            return True  # "running out of the house" ends outside
    return False


def _out_of(p: Prepared, z: int) -> bool:
    """Token ``z`` ends "out of [the] <z>"."""
    y = z - 1
    while y >= 1 and p.keys[y] is None and p.low[y] in DETERMINERS:
        y -= 1
    return y >= 1 and p.low[y] == "of" and p.low[y - 1] == "out"


def privative_said(a: Alignment, x: int) -> bool:
    """Claim token ``x`` is "X-less" where the window says "no X" / "without (a) X"."""
    c, p = a.claim, a.passage
    stem = privative_stem(c.low[x])
    return stem is not None and any(
        privative_noun(p.low[n], stem) for _, n in privative_phrases(p.low, a.t0, a.t1)
    )


def wearing_stated(a: Alignment, x: int, rc: Reading) -> bool:
    """Claim token ``x`` is a form of "wear" whose garment the window has after "in" or
    "with" ("a man in a straw hat": he is wearing it)."""
    c, p = a.claim, a.passage
    if not set(lexicon.lemmas(c.low[x], "v")) & WEAR:
        return False
    garment = rc.patient[x]
    if garment < 0 or not lexicon.kind_of(c.low[garment], "clothing"):
        return False
    for z in a.positions.get(c.keys[garment] or "", ()):
        y = z - 1
        while y >= a.t0 and p.keys[y] is not None and p.low[y] not in RELATION_WORDS and z - y < 4:
            y -= 1  # over the garment's modifiers ("with the dyed purple hat")
        while y >= a.t0 and p.keys[y] is None and p.low[y] not in ("in", "with"):
            y -= 1  # over determiners
        if y >= a.t0 and p.low[y] in ("in", "with") and p.sent[y] == p.sent[z]:
            return True
    return False


def dressed_in(a: Alignment, x: int) -> bool:
    """Claim token ``x`` is "dressed" in "dressed in X" where the window has "in X"
    ("a skier in black" is dressed in black)."""
    c, p = a.claim, a.passage
    if c.low[x] != "dressed" or x + 2 >= len(c.low) or c.low[x + 1] != "in" or c.keys[x + 2] not in a.matched:
        return False
    return any(relation_before(p, z) == {"in"} for z in a.positions.get(c.keys[x + 2] or "", ()))


def colour_named(a: Alignment, x: int) -> bool:
    """Claim token ``x`` is "colored" beside a colour the window says ("blue colored",
    "colored in blue"): the word adds nothing the colour does not."""
    c = a.claim
    if c.low[x] not in COLOURED:
        return False
    beside = [x - 1, x + 2 if x + 1 < len(c.low) and c.low[x + 1] == "in" else x + 1]
    return any(
        0 <= y < len(c.low) and c.clause[y] == c.clause[x] and c.keys[y] in a.matched
        and lexicon.kind_of(c.low[y], "color")
        for y in beside
    )  # fmt: skip


# Participles and adjectives that spell out a modifier: "a bridge *made of* rope" is a
# rope bridge, "a hillside *covered by* grass" a grassy one, "an area *full of* rocks" a
# rocky one.
_PERIPHRASIS = frozenset(("made", "covered", "full", "filled"))


_PERIPHRASIS_LINK = frozenset(("of", "by", "with", "in"))


def periphrasis(a: Alignment, x: int, rp: Reading) -> bool:
    """Claim token ``x`` opens "<made/covered/full> <of/by/with> <noun>" or "<bred/built/
    designed/used …> for <noun>" whose noun the window has only as a modifier ("stone
    steps", "racing dogs") or through its derived adjective ("rocky")."""
    c, p = a.claim, a.passage
    if x + 2 >= len(c.low) or not (
        c.low[x] in _PERIPHRASIS and c.low[x + 1] in _PERIPHRASIS_LINK
        or c.low[x] in PURPOSE and c.low[x + 1] == "for"  # "dogs bred for racing"
    ):
        return False
    rc = read(c)
    noun = next((y for y in range(x + 2, min(len(c.low), x + 5)) if rc.tag[y] == "N"), -1)
    head = next((y for y in range(x - 1, max(-1, x - 4), -1) if rc.tag[y] == "N"), -1)
    if noun < 0 or head < 0:
        return False
    for z in range(a.t0, a.t1):
        if rp.tag[z] != "M" and not (p.keys[z] and lexicon.lemmas(p.low[z], "a")):
            continue
        # The modifier must qualify the same thing: "a *rope* bridge", not "a rope ladder".
        theirs = rp.head[z] if rp.tag[z] == "M" else z + 1
        if not (0 <= theirs < len(p.keys) and p.keys[theirs] == c.keys[head]):
            continue
        if p.keys[z] == c.keys[noun] and rp.tag[z] == "M":
            return True
        if p.keys[z] != c.keys[noun] and lexicon.licenses(p.low[z], c.low[noun], "a", "n"):
            return True
    return False


_POSSESSIVE = frozenset(("his", "her", "their"))


def age_phrase(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
    """Claim noun ``x`` ends "<noun> in his/her/their <x>" where the window qualifies
    that noun with the adjective WordNet derives from ``x`` ("teenage girls" are girls
    in their teens)."""
    c, p = a.claim, a.passage
    if x < 3 or c.low[x - 1] not in _POSSESSIVE or c.low[x - 2] != "in" or rc.tag[x - 3] != "N":
        return False
    h = c.keys[x - 3]
    forms = lexicon.lemmas(c.low[x], "n")
    return any(
        rp.tag[z] == "M" and rp.head[z] >= 0 and p.keys[rp.head[z]] == h and lexicon.lemmas(p.low[z], "a")
        and any(lexicon.relation(p.low[z], form, "a", "n") == "synonym" for form in forms)
        for z in range(a.t0, a.t1)
    )  # fmt: skip
