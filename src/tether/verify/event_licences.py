"""Licences by who does what: a claim word the window says through its events and
their parts — a noun for who does a verb ("football players" from "people playing
football"), the object a verb makes ("singing a song"), "perform" said by "do", a
linking verb ("looks young") said by the adjective, a quality WordNet's gloss gives a
noun ("a toddler" is a young child), a group said by its members, a piece by its mass
(``account`` tries them; ``rules.RULES`` names each).
"""

from __future__ import annotations

from ..text.english import DETERMINERS, LINKING_VERBS
from . import lexicon
from .account import RELATION_WORDS
from .align import Alignment
from .lexical import Prepared
from .noun_phrases import collective_members, counted_noun, partitive_of
from .reading import read
from .shallow import Reading

def members_said(a: Alignment, x: int, window: list[int], rc: Reading) -> bool:
    """"a group of men" from "some men", "men"."""
    c = a.claim
    members = collective_members(c, rc, x)
    return members >= 0 and (_said_plural(a, c.keys[members]) or _said_plural_by(a, c.low[members], window))


def part_of_mass(a: Alignment, x: int, rc: Reading) -> bool:
    """"a piece of bread" from "slicing bread"."""
    return (whole := partitive_of(a.claim, rc, x)) >= 0 and _said_as_mass(a, a.claim.keys[whole])


def _said_plural(a: Alignment, key: str | None) -> bool:
    """The window says the noun of ``key`` in the plural ("men", not "a man")."""
    p = a.passage
    return any(
        any(base != p.low[z] for base in lexicon.lemmas(p.low[z], "n"))
        for z in a.positions.get(key or "", ())
    )


def _said_as_mass(a: Alignment, key: str | None) -> bool:
    """The window says the noun of ``key`` uncounted ("bread", "some bread")."""
    return any(not counted_noun(a.passage, z) for z in a.positions.get(key or "", ()))


def _said_plural_by(a: Alignment, word: str, window: list[int]) -> bool:
    """A window noun in the plural licenses ``word`` ("women" say "a group of people")."""
    p = a.passage
    return any(
        any(base != p.low[z] for base in lexicon.lemmas(p.low[z], "n")) and lexicon.licenses(p.low[z], word)
        for z in window
    )


def agent_said(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
    """Claim noun ``x`` names who does a verb the window has, done by a person ("people
    playing football" are football players); a modifier before the noun must be that
    verb's object there ("tennis players" are not said by "people playing football")."""
    c, p = a.claim, a.passage
    if rc.tag[x] != "N":
        return False
    thing = x - 1 if x > 0 and rc.tag[x - 1] == "M" and rc.head[x - 1] == x else -1
    for z in range(a.t0, a.t1):
        if rp.tag[z] != "V" or not lexicon.agent_noun(c.low[x], p.low[z]):
            continue
        doer, obj = rp.agent[z], rp.patient[z]
        if doer >= 0 and (members := collective_members(p, rp, doer)) >= 0:
            doer = members  # "a group of people playing football": the people play
        if doer < 0 or not lexicon.licenses(p.low[doer], "person"):
            continue
        said_of = _predicated_of(c, thing if thing >= 0 else x)
        if said_of >= 0 and not (c.keys[said_of] == p.keys[doer] or lexicon.licenses(p.low[doer], c.low[said_of])):
            continue  # "the woman is a guitar player" from "a woman watching a man playing guitar"
        if thing < 0 or (obj >= 0 and p.keys[obj] == c.keys[thing]):
            return True
    return False


def _predicated_of(c: Prepared, x: int) -> int:
    """The subject of "<subject> is/are a …" that ends right before token ``x``, or -1."""
    y = x - 1
    while y >= 0 and c.keys[y] is None and c.low[y] in DETERMINERS:
        y -= 1
    return y - 1 if y >= 1 and c.low[y] in ("is", "are") and c.keys[y - 1] is not None else -1


def linking_said(a: Alignment, x: int, rc: Reading) -> bool:
    """Claim token ``x`` is "looks"/"seems"/"appears" linking its subject to an
    adjective the window says of the same word ("a young lady" says she looks young)."""
    c, p = a.claim, a.passage
    if c.low[x] not in LINKING_VERBS or x + 1 >= len(c.low) or rc.tag[x + 1] != "J" or c.keys[x + 1] not in a.matched:
        return False
    h = rc.head[x + 1]
    if h < 0 or c.keys[h] is None:
        return False
    rp = read(p, a.t0, a.t1)
    for z in a.positions.get(c.keys[x + 1] or "", ()):
        head = rp.head[z] if rp.tag[z] in ("M", "J") else -1
        if head >= 0 and (p.keys[head] == c.keys[h] or lexicon.licenses(p.low[head], c.low[h])):
            return True
    return False


def cognate_object(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
    """Claim noun ``x`` is the object its verb makes ("singing a *song*"), the verb is
    the window's, and there it takes no other object."""
    c = a.claim
    verbs = [v for v in range(len(c.keys)) if rc.tag[v] == "V" and rc.patient[v] == x and c.keys[v] in a.matched]
    return any(
        lexicon.cognate_noun(c.low[x], c.low[v])
        and all(rp.patient[z] < 0 for z in a.positions.get(c.keys[v] or "", ()) if rp.tag[z] == "V")
        for v in verbs
    )


# "Do" as a main verb: "doing a handstand" is performing one (WordNet: perform, execute,
# do). A stop word, so it has no key of its own and is read here.
DO = frozenset(("do", "does", "did", "doing", "done"))


# Light verbs take their sense from their object and do not stand for one another
# ("doing a puzzle" is not "making" one, "doing a walk" not "taking" one).
_OTHER_LIGHT = frozenset(("make", "take", "give", "have", "get"))


def said_by_do(word: str) -> bool:
    """A verb WordNet gives as a synonym of "do" in its first senses ("perform",
    "execute"), other than another light verb."""
    return not set(lexicon.lemmas(word, "v")) & _OTHER_LIGHT and lexicon.licenses("do", word, "v", "v")


def do_synonym_said(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
    """Claim verb ``x`` is a synonym of "do" (WordNet's first senses) and the window
    has a form of "do" with the same object, said of the same doer: "a man is doing a
    handstand" says "a handstand is performed by a man"."""
    c, p = a.claim, a.passage
    obj, doer = rc.patient[x], rc.agent[x]
    if rc.tag[x] != "V" or obj < 0 or c.keys[obj] not in a.matched or not said_by_do(c.low[x]):
        return False
    for z in range(a.t0, a.t1):
        if p.low[z] not in DO or z + 1 >= a.t1:
            continue
        y = z + 1
        while y < a.t1 and p.keys[y] is None and p.low[y] in DETERMINERS:
            y += 1
        while y + 1 < a.t1 and rp.tag[y] == "M":
            y += 1  # "doing a magic trick"
        if p.keys[y] != c.keys[obj] or p.clause[y] != p.clause[z]:
            continue
        if doer < 0 or any(
            p.keys[s] == c.keys[doer] or lexicon.licenses(p.low[s], c.low[doer], "n", "n")
            for s in _subjects_before(p, rp, z, a.t0)
        ):
            return True
    return False


def _subjects_before(p: Prepared, rp: Reading, z: int, t0: int) -> list[int]:
    """The noun right before the auxiliary of token ``z`` ("the man is doing"), and the
    nouns a prepositional phrase after it qualifies ("a man on a bike is doing")."""
    s = z - 1
    while s >= t0 and p.keys[s] is None and p.low[s] not in DETERMINERS and p.sent[s] == p.sent[z]:
        s -= 1  # back over "is", "are"
    out: list[int] = []
    while s >= t0 and rp.tag[s] == "N" and p.sent[s] == p.sent[z] and len(out) < 3:
        out.append(s)
        y = s - 1
        while y >= t0 and (rp.tag[y] == "M" or p.keys[y] is None and p.low[y] in DETERMINERS):
            y -= 1
        if y < t0 or p.low[y] not in RELATION_WORDS:
            break
        s = y - 1  # "a man on a bike": the man is the one doing
    return out


def defined_quality(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
    """Claim qualifier ``x`` (a modifier or a predicate) of a noun that a window noun
    states, where WordNet defines that window noun as a thing of that quality: "two
    toddlers" are young children, "a puppy" a young dog (``lexicon.defined_as``)."""
    c, p = a.claim, a.passage
    h = rc.head[x] if rc.tag[x] in ("M", "J") else -1
    if h < 0 or c.keys[h] is None or rc.tag[h] != "N":
        return False
    return any(
        rp.tag[z] == "N" and p.keys[z] != c.keys[h] and lexicon.defined_as(p.low[z], c.low[x], c.low[h])
        for z in range(a.t0, a.t1)
    )
