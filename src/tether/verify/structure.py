"""Structure must agree: each aligned claim word keeps its part and its partners.

Reads the claim and the aligned passage window with ``verify.shallow`` and compares,
for every claim word the window holds (or licenses):

- its part: a verb of the claim that the window has only as a noun or modifier ("a
  man is *cutting* an onion" from "eating a *cut* onion"), a head noun the window has
  only as a modifier or a verb ("sitting on the *grass*" from "a *grass* hat");
- a verb's agent and patient: "a clown is singing" from "people are singing and a
  clown is dancing" (another agent: at best mentioned); "a dog is licking a baby"
  from "a baby is licking a dog" (agent and patient traded: contradicted);
- a qualifier's head (a modifier, a predicate, a passive participle): "a *white* dog"
  from "a *white* cat and a brown dog";
- how often a noun is said: "dancing with other *women*" from one woman dancing alone.

Only readings the tagger made on both sides are compared (``shallow`` leaves what it
cannot place untagged), so a difference is one both texts show. Paraphrases that keep
the structure are let through: a noun compound and its prepositional phrase ("a
camera lens", "the lens of a camera"), a verb and a light verb with its noun ("is
dancing", "is doing a dance"), a modifier and its relative clause ("a seated woman",
"a woman who is seated").
"""

from __future__ import annotations

from collections.abc import Callable

from ..text.english import LINKING_VERBS, PREPOSITIONS
from . import lexicon
from .align import Alignment, Finding
from .lexical import Prepared
from .noun_phrases import (
    INDEFINITE_THINGS,
    collective_members,
    collocations,
    counted_noun,
    one_noun,
    partitive_of,
    predicate_noun,
)
from .polarity import negation_cues
from .reading import read
from .rules import RuleUse
from .shallow import Reading, manner_adverb, partners, pos_of

__all__ = ["compare"]

# Past this many tokens a "sentence" is a list or a page, not a claim: its structure is
# not read (bounded cost) and it is at best mentioned.
MAX_WORDS = 150
_PART = {"V": "a verb", "N": "a noun", "M": "a modifier", "J": "a predicate"}
# Verbs that lend their action to a noun: "doing a dance" is dancing.
_LIGHT = frozenset("do make take give have perform".split())
# How far a compound's head may stand before its prepositional phrase ("lens of a camera").
_PP_REACH = 4
Same = Callable[[int, int], bool]


def _contra(reason: str) -> Finding:
    return Finding("contradiction", "contradicts", "roles", reason, "structure-roles")


class _Pair:
    """The claim and the window, read, with the word-matching rule."""

    def __init__(self, a: Alignment, licensed: frozenset[str], off: frozenset[str] = frozenset()) -> None:
        self.a, self.c, self.p, self.off = a, a.claim, a.passage, off
        self.rc, self.rp = read(a.claim), read(a.passage, a.t0, a.t1)
        self.by_key: dict[str, list[int]] = {}
        for z in range(a.t0, a.t1):
            k = self.p.keys[z]
            if k is not None:
                self.by_key.setdefault(k, []).append(z)
        self.known = a.matched | licensed
        # Who does what in the window: a doer says the claim's noun for one who does it.
        self.doers: dict[int, list[str]] = {}
        for z in range(a.t0, a.t1):
            if self.rp.tag[z] == "V" and self.rp.agent[z] >= 0:
                self.doers.setdefault(self.rp.agent[z], []).append(self.p.low[z])

    def same(self, z: int, x: int) -> bool:
        """Premise token ``z`` says claim token ``x`` (or heads "a group of x"); for an
        agent or a patient, one of the words joined by "and" on each side will do."""
        if z < 0 or x < 0:
            return False
        return any(self._same(zz, xx) for zz in partners(self.p, self.rp, z)
                   for xx in partners(self.c, self.rc, x))  # fmt: skip

    def _same(self, z: int, x: int) -> bool:
        p, c = self.p, self.c
        if p.keys[z] == c.keys[x] or lexicon.licenses(
            p.low[z], c.low[x], pos_of(p, self.rp, z), pos_of(c, self.rc, x)
        ):
            return True
        if z + 1 < len(p.low) and p.low[z + 1] == "of":
            for w in range(z + 2, min(len(p.low), z + 5)):
                if self.rp.tag[w] == "N":
                    return p.keys[w] == c.keys[x]
        if (
            c.low[x] in INDEFINITE_THINGS
            and self.rp.tag[z] == "N"
            and not lexicon.kind_of(p.low[z], "person")
        ):
            return True  # "cooking something" is said by "cooking eggs"
        if any(lexicon.agent_noun(c.low[x], verb) for verb in self.doers.get(z, ())):
            return True  # "a player is running" from "a man who is playing is running"
        members = collective_members(c, self.rc, x)
        if members < 0 and self.rp.tag[z] == "N" and not counted_noun(p, z):
            members = partitive_of(c, self.rc, x)  # "a piece of bread" is bread
        if members >= 0 and self._same(z, members):
            return True
        # A collocation ending in the word ("table tennis", "ping pong"), on either side
        # or both: "a young woman" says "a girl", "eye liner" (eyeliner) "cosmetics".
        ours, theirs = collocations(c, x), collocations(p, z)
        return any(lexicon.licenses(t, o) for o in ours for t in [*theirs, p.low[z]]) or any(
            lexicon.licenses(t, c.low[x]) for t in theirs
        )

    def places(self, x: int) -> list[int]:
        """Window tokens that say claim token ``x``: the same key, else a licensing word."""
        k = self.c.keys[x]
        if k in self.a.matched:
            return self.by_key.get(k, [])
        return [z for z in range(self.a.t0, self.a.t1) if self.p.keys[z] and self._same(z, x)]


def compare(
    a: Alignment, licensed: frozenset[str], off: frozenset[str] = frozenset()
) -> tuple[list[RuleUse], list[Finding]]:
    """(caps, findings) for the claim's structure against the window's (``off``: the
    rules switched off)."""
    if len(a.claim.low) > MAX_WORDS and "structure-roles" not in off:
        return [RuleUse("structure-roles", f"roles:a sentence of {len(a.claim.low)} words is too long to read")], []
    pair = _Pair(a, licensed, off)
    c, rc = pair.c, pair.rc
    caps: list[RuleUse] = []
    findings: list[Finding] = []
    nouns: list[int] = []
    for x, k in enumerate(c.keys):
        if k is None and rc.tag[x] == "V":
            # A verb that is a stop word ("had"): compared with the same word's uses.
            zs = [z for z in range(a.t0, a.t1) if pair.p.low[z] == c.low[x] and pair.rp.tag[z] == "V"]
            if zs and "structure-roles" not in off:
                reason, swapped = _arguments(pair, x, zs)
                if reason is not None:
                    caps.append(RuleUse("structure-roles", reason))
                    if swapped:
                        findings.append(_contra(reason))
            continue
        if k is None or k not in pair.known or k.startswith("#") or rc.tag[x] is None:
            continue
        if _copula(c, rc, x):
            continue  # "a face which looks funny": what is said is "funny", read as a predicate
        if rc.tag[x] == "M" and one_noun(c, x) and all(pair._same(z, x + 1) for z in pair.places(x)):
            continue  # "a wind instrument" is one noun, read at its head, which "a flute" says
        if rc.tag[x] in ("N", "M"):
            nouns.append(x)
        zs = pair.places(x)
        if not zs:
            continue
        if rc.tag[x] == "V" and "negated-verb" not in off and (flip := _negated_verb(pair, x, zs)) is not None:
            findings.append(Finding("contradiction", "contradicts", "polarity", flip, "negated-verb"))
            caps.append(RuleUse("negated-verb", flip))
            continue
        reason, swapped = _word(pair, x, zs) if "structure-roles" not in off else (None, False)
        if reason is not None:
            caps.append(RuleUse("structure-roles", reason))
            if swapped:
                findings.append(_contra(reason))
    if "said-once" not in off:
        caps += [RuleUse("said-once", cap) for cap in _said_more_often(pair, nouns)]
    return caps, findings


def _copula(t: Prepared, r: Reading, x: int) -> bool:
    """Verb ``x`` is "look/seem/appear" linking its subject to the predicate after it
    ("the face looks funny"), a copula: the window's uses of "look" for seeing ("is
    looking at a man") are another verb, and the predicate is compared as one."""
    if t.low[x] not in LINKING_VERBS or r.tag[x] != "V":
        return False
    y = x + 1
    while y < len(t.low) and t.keys[y] is None and t.clause[y] == t.clause[x]:
        y += 1  # "looks very tired"
    return y < len(t.low) and r.tag[y] == "J" and r.head[y] >= 0 and r.head[y] == r.agent[x]


def _negated(p: Prepared, z: int) -> bool:
    """A negator earlier in ``z``'s clause governs it ("not wearing goggles and *swimming*")."""
    y = z - 1
    while y >= 0 and p.clause[y] == p.clause[z]:
        if p.low[y] in ("but", "yet", "however"):
            return False
        if negation_cues(p.low, y, y + 1) and not (p.low[y] == "no" and p.keys[y + 1] is not None and y + 1 < z):
            return True  # ("a man with no shirt is holding": "no" governs the shirt)
        y -= 1
    return False


def _negated_verb(pair: _Pair, x: int, zs: list[int]) -> str | None:
    """A claim verb stated plainly that the window states only negated."""
    verbs = [z for z in zs if pair.rp.tag[z] == "V"]
    if not verbs or _negated(pair.c, x) or not all(_negated(pair.p, z) for z in verbs):
        return None
    return f"negation:the passage says '{pair.c.low[x]}' only negated"


def _said_more_often(pair: _Pair, nouns: list[int]) -> list[str]:
    """Each claim noun needs a window word of its own: "a woman … with other women"
    says two where the passage has one."""
    c, p = pair.c, pair.p
    used: set[int] = set()
    out: list[str] = []
    for x in nouns:
        if predicate_noun(c, pair.rc, x):
            continue  # "the busker is a flute player" names the busker again
        if collective_members(c, pair.rc, x) >= 0 or partitive_of(c, pair.rc, x) >= 0:
            continue  # "a group of men" is said by its members' noun, "a piece of bread" by "bread"
        if x > 1 and c.low[x - 1] == "of" and lexicon.lemmas(f"{c.low[x - 2]}_of_{c.low[x]}", "n"):
            continue  # "a body of water" is one noun, said by "a lake"
        zs = [z for z in pair.places(x) if pair.rp.tag[z] in ("N", "M", None)]
        free = [z for z in zs if z not in used]
        if not free and zs:
            # The same word once, a word that licenses it for the second: "a lady …
            # another woman" is two women.
            free = [z for z in range(pair.a.t0, pair.a.t1) if z not in used and z not in zs
                    and p.keys[z] and pair.rp.tag[z] in ("N", "M", None) and pair._same(z, x)]  # fmt: skip
        if free:
            used.add(free[0])
        elif zs and not (x > 0 and c.keys[x - 1] == c.keys[x]):
            out.append(f"added:a second '{c.low[x]}' (the passage has '{p.low[zs[0]]}' once)")
    return out


def _firm(r: Reading, x: int) -> str | None:
    """The tag, where it may be held against the other text (see ``Reading.firm``)."""
    t = r.tag[x]
    return t if t not in ("N", "M") or r.firm[x] else None


def _word(pair: _Pair, x: int, zs: list[int]) -> tuple[str | None, bool]:
    rc, rp = pair.rc, pair.rp
    tag = _firm(rc, x)
    if tag is None:
        return None, False
    if _qualifier(rc, x) >= 0 and all(_qualifier(rp, z) >= 0 or rp.tag[z] is None for z in zs):
        return _head_differs(pair, x, zs), False
    found = {_part(pair, z, light=tag == "V") for z in zs}
    if None in found or tag in found:
        if tag == "V":
            return _arguments(pair, x, zs)
        return None, False
    return _part_differs(pair, x, zs, found), False


def _qualifier(r: Reading, x: int) -> int:
    """The head a modifier, a predicate or an agentless passive qualifies, or -1."""
    t = _firm(r, x)
    if t in ("M", "J"):
        return r.head[x] if r.head[x] >= 0 else -1
    if t == "V" and r.passive[x] and r.agent[x] < 0:
        return r.patient[x]
    return -1


def _part(pair: _Pair, z: int, *, light: bool) -> str | None:
    t = _firm(pair.rp, z)
    if t == "N" and light and _light_verb(pair, z) >= 0:
        return "V"  # "is doing a dance" says "is dancing"
    return t


def _light_verb(pair: _Pair, z: int) -> int:
    """The light verb whose object is noun ``z`` ("is *doing* a dance"), or -1."""
    rp = pair.rp
    for v in range(max(pair.a.t0, z - 4), z):
        if rp.tag[v] == "V" and rp.patient[v] == z and set(lexicon.lemmas(pair.p.low[v], "v")) & _LIGHT:
            return v
    return -1


def _part_differs(pair: _Pair, x: int, zs: list[int], found: set[str | None]) -> str | None:
    """The claim word's part is one the window never gives it (all occurrences read)."""
    c, p, rc, rp = pair.c, pair.p, pair.rc, pair.rp
    tag = _firm(rc, x)
    clash = (tag == "V" and found <= {"N", "M"}) or (tag == "N" and found <= {"V", "M"}) or (
        tag == "M" and found <= {"V", "N"}
    )
    if not clash:
        return None
    licences = (
        ("compound-phrase", _compound), ("relative-verb", _relative_verb),
        ("doer-compound", _doer_compound),
    )  # fmt: skip
    if any(name not in pair.off and said(pair, x, zs) for name, said in licences):
        return None
    z = zs[0]
    return (
        f"roles:'{c.low[x]}' is {_PART[tag]} in the sentence, "  # type: ignore[index]
        f"'{p.low[z]}' {_PART[rp.tag[z]]} in the passage"  # type: ignore[index]
    )


def _relative_verb(pair: _Pair, x: int, zs: list[int]) -> bool:
    """"the burning car" and "the car, which is burning": a claim modifier that the
    window has as a verb with no object, done by the modifier's head itself (not a word
    joined to it by "and": "the kettle and the dog are barking" is no barking kettle)."""
    rc, rp = pair.rc, pair.rp
    h = rc.head[x] if rc.tag[x] == "M" else -1
    return h >= 0 and any(
        rp.tag[z] == "V" and rp.patient[z] < 0 and rp.agent[z] >= 0 and pair._same(rp.agent[z], h)
        for z in zs
    )


def _doer_compound(pair: _Pair, x: int, zs: list[int]) -> bool:
    """"a guitar player" and "the guitar is played by the man": a claim modifier whose
    head names who does a window verb (``lexicon.agent_noun``) is that verb's object."""
    c, p, rc, rp = pair.c, pair.p, pair.rc, pair.rp
    h = rc.head[x] if rc.tag[x] == "M" else -1
    if h < 0:
        return False
    verbs = [v for v in range(pair.a.t0, pair.a.t1) if rp.tag[v] == "V" and rp.patient[v] in zs]
    return any(lexicon.agent_noun(c.low[h], p.low[v]) for v in verbs)


def _compound(pair: _Pair, x: int, zs: list[int]) -> bool:
    """"a camera lens" and "the lens of a camera": a modifier on one side is the noun of
    a prepositional phrase after the same head on the other."""
    c, p, rc, rp = pair.c, pair.p, pair.rc, pair.rp
    if rc.tag[x] == "M":
        h = rc.head[x]
        return h >= 0 and any(rp.tag[z] == "N" and _pp_after(p, rp, z, lambda y: pair.same(y, h)) for z in zs)
    if rc.tag[x] == "N":
        heads = [rp.head[z] for z in zs if rp.tag[z] == "M" and rp.head[z] >= 0]
        return any(_pp_after(c, rc, x, lambda y, h=h: pair.same(h, y)) for h in heads)  # type: ignore[misc]
    return False


def _pp_after(t: Prepared, r: Reading, z: int, is_head: Callable[[int], bool]) -> bool:
    """Noun ``z`` ends "<head> <preposition> [determiner, modifiers] z" (or "<head>
    made/used for z") with ``is_head`` accepting the head."""
    saw_prep = False
    for y in range(z - 1, max(-1, z - _PP_REACH - 2), -1):
        if t.clause[y] != t.clause[z]:
            return False
        if t.low[y] in PREPOSITIONS:
            saw_prep = True
        elif r.tag[y] == "N":
            return saw_prep and is_head(y)
        elif r.tag[y] == "V" and not saw_prep:
            return False
    return False


def _arguments(pair: _Pair, x: int, zs: list[int]) -> tuple[str | None, bool]:
    """A claim verb's agent and patient against each window occurrence of the verb."""
    c, p, rc, rp, same = pair.c, pair.p, pair.rc, pair.rp, pair.same
    ca, cp = rc.agent[x], rc.patient[x]
    verbs = [z for z in zs if rp.tag[z] == "V"]
    # "a fitter is doing a dance": the light verb's agent dances; the noun is the act.
    acts = {v: z for z in zs if rp.tag[z] == "N" and (v := _light_verb(pair, z)) >= 0}
    if not (verbs or acts) or (ca < 0 and cp < 0):
        return None, False
    cr = rc.recipient[x]
    for z in verbs + list(acts):
        pa, pp = rp.agent[z], -1 if z in acts else rp.patient[z]
        agent_ok = ca < 0 or (same(pa, ca) if pa >= 0 else not same(pp, ca))
        patient_ok = cp < 0 or (same(pp, cp) if pp >= 0 else not same(pa, cp))
        # "a snake is being fed a mouse" is not said by "a man is being fed snakes".
        recipient_ok = cr < 0 or rp.recipient[z] < 0 or same(rp.recipient[z], cr)
        if agent_ok and patient_ok and recipient_ok:
            return None, False
    z = (verbs + list(acts))[0]
    pa, pp = rp.agent[z], -1 if z in acts else rp.patient[z]
    if cr >= 0 and rp.recipient[z] >= 0 and not same(rp.recipient[z], cr):
        return f"roles:'{c.low[x]}' goes to '{c.low[cr]}', in the passage to '{p.low[rp.recipient[z]]}'", False
    if ca >= 0 and cp >= 0 and pa >= 0 and pp >= 0 and same(pa, cp) and same(pp, ca):
        return (
            f"roles:'{c.low[ca]}' and '{c.low[cp]}' trade places around '{c.low[x]}'",
            True,
        )
    if ca >= 0 and (pa < 0 or same(pa, ca)):
        what = c.low[cp]
        there = p.low[pp] if pp >= 0 else "another"
        return (
            f"roles:'{c.low[x]}' is done to '{what}', in the passage to '{there}'",
            False,
        )
    who = c.low[ca]
    there = p.low[pa] if pa >= 0 else (p.low[pp] if pp >= 0 else "another")
    return (
        f"roles:'{c.low[x]}' is said of '{who}', the passage says it of '{there}'",
        False,
    )


def _heads(r: Reading, x: int) -> list[int]:
    """What a qualifier may qualify: in a compound ("pump house detectors") any later
    word of its phrase, else its head."""
    h = _qualifier(r, x)
    if h < 0:
        return []
    if r.tag[x] == "M" and x < h:
        return list(range(x + 1, h + 1))
    return [h]


def _head_differs(pair: _Pair, x: int, zs: list[int]) -> str | None:
    """A claim qualifier (modifier, predicate, passive) qualifies another word."""
    c, p, rc, rp = pair.c, pair.p, pair.rc, pair.rp
    mine = [h for h in _heads(rc, x) if c.keys[h] is not None]
    if not mine:
        return None
    if rc.tag[x] == "M" and all(manner_adverb(p.low[z]) for z in zs):
        # "an intense man" is not said by "intensely playing": the manner is the act's.
        return (
            f"roles:'{c.low[x]}' qualifies '{c.low[mine[-1]]}' in the sentence, "
            f"'{p.low[zs[0]]}' qualifies a verb in the passage"
        )
    heads = []
    for z in zs:
        theirs = _heads(rp, z)
        # A modifier qualifies its own phrase only ("a grey cat and a heavy box": the
        # box is not grey); a predicate may be said of subjects joined by "and".
        if not theirs or any(
            pair._same(zz, xx)
            for hz in theirs for h in mine
            for zz in ([hz] if rp.tag[z] == "M" else partners(p, rp, hz))
            for xx in ([h] if rc.tag[x] == "M" else partners(c, rc, h))
        ):  # fmt: skip
            return None
        heads.append(theirs[-1])
    h = mine[-1]
    return f"roles:'{c.low[x]}' qualifies '{c.low[h]}' in the sentence, '{p.low[heads[0]]}' in the passage"


