"""Every claim word accounted for, roles and relation words unchanged.

Coverage says how many of the claim's words the passage window holds; it cannot say
that the one word it lacks was swapped for its opposite ("a man" for "a woman"), that
two words traded places ("a dog is licking a baby" from "a baby is licking a dog"), or
that the word binding them changed ("onto" for "off"). This layer reads the aligned
window for those three:

- ``account``: a claim word the window does not repeat must be licensed by a window
  word (``tether.text.lexicon``: same lemma, synonym, or a hypernym the premise
  states). Otherwise, with a window word in its slot it is a *substitution* —
  contradicting when the two are exclusive (antonyms, co-hyponyms) — and without one
  an *added detail*; either way the claim is at best ``mentioned``.
- ``roles``: three aligned words in the claim's order ``x … v … y`` that the passage
  has as ``y … v … x`` (no passive "by" between) — roles reversed, contradicted.
- ``relations``: the relation words between two aligned neighbours (prepositions and
  particles) must agree; an exclusive change (onto/off, in/out) contradicts, any other
  change caps the claim at ``mentioned``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from ..text import lexicon
from .align import Alignment, Finding, anchors
from .lexical import Prepared
from .polarity import privative_noun, privative_phrases, privative_stem
from .rules import RuleUse
from .shallow import DETERMINERS, LINKING, PURPOSE, Reading, manner_adverb, pos_of, read
from .structure import (
    INDEFINITE_THINGS,
    collective_members,
    compare,
    counted_noun,
    partitive_of,
)

__all__ = ["Accounting", "RELATION_WORDS", "account", "could_lift"]

# Closed-class words that bind two content words; WordNet does not cover them, so the
# exclusive pairs are listed here (docs/adr/0015-wordnet-lexicon.md).
RELATION_WORDS = frozenset(
    """in on at onto into off out from to with without over under above below up down
    inside outside near far away behind beside toward towards along around across
    through before after against beneath underneath about for front top next middle
    outdoors indoors""".split()
)
# Spellings of one relation: "put in the trunk" is "put into the trunk".
_SAME_RELATION = {"into": "in", "inside": "in", "within": "in", "onto": "on", "upon": "on",
                  "towards": "toward", "underneath": "under", "beneath": "under",
                  "outdoors": "outside", "indoors": "in"}
# How far apart two aligned neighbours may be for the words between them to be read.
_RELATION_REACH = 8
_EXCLUSIVE = {
    frozenset(pair.split("/"))
    for pair in """on/off onto/off into/out in/out inside/outside up/down above/below
    over/under to/from onto/from into/from toward/away towards/away with/without
    before/after near/far in/far at/far on/far in/away at/away on/away into/off
    beneath/above underneath/above under/on under/onto""".split()
}
# A clause too long to compare word orders in: its roles are not read (bounded cost).
_MAX_ROLE_WORDS = 12


@dataclass(frozen=True, slots=True)
class Accounting:
    """What the window makes of the claim's words.

    ``licensed``: claim keys the window licenses without repeating them;
    ``licences``: the rule that licensed each (``rules.RULES``);
    ``caps``: reasons the claim is at best ``mentioned`` (always on), each by its rule;
    ``findings``: exclusive substitutions, reversed roles and exclusive relation
    changes, which make it ``contradicted`` (the contradiction gate).
    """

    licensed: frozenset[str]
    caps: tuple[RuleUse, ...]
    findings: tuple[Finding, ...]
    licences: tuple[RuleUse, ...] = ()


def _contra(checker: str, reason: str, rule: str) -> Finding:
    return Finding("contradiction", "contradicts", checker, reason, rule)


def _is_word(p: Prepared, x: int) -> bool:
    # Figures are the figure check's; a word of any script must be accounted for
    # (only English words can be licensed by another word).
    k = p.keys[x]
    return k is not None and not k.startswith("#") and p.low[x][:1].isalpha()


@dataclass(slots=True)
class _Ledger:
    """The window's words and the accounting so far, for one claim."""

    a: Alignment
    off: frozenset[str]
    window: list[int]
    free: list[int]
    spare: list[int]
    rc: Reading
    rp: Reading
    licensed: set[str] = field(default_factory=set)
    licences: list[RuleUse] = field(default_factory=list)
    caps: list[RuleUse] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # Claim token -> the window tokens that license it (its relation words are read there).
    sources: dict[int, list[int]] = field(default_factory=dict)
    # Claim tokens of a phrase accounted as a whole ("in their teens").
    phrases: list[int] = field(default_factory=list)


def account(a: Alignment, off: frozenset[str] = frozenset()) -> Accounting:
    """Account for every claim word, then read roles and relation words (``off``: the
    rules switched off, ``Settings.support_rules_off``)."""
    c, p = a.claim, a.passage
    window = [z for z in range(a.t0, a.t1) if _is_word(p, z)]
    free = [z for z in window if p.keys[z] not in c.key_set]
    book = _Ledger(a, off, window, free, _spare(a, window), read(c), read(p, a.t0, a.t1))
    seen: set[str] = set()
    for x in range(len(c.keys)):
        k = c.keys[x]
        if k is None or k in a.matched or k in seen or not _is_word(c, x):
            continue
        seen.add(k)
        _account_word(book, x)
    _read_structure(book)
    return Accounting(frozenset(book.licensed), tuple(book.caps), tuple(book.findings), tuple(book.licences))


def _account_word(book: _Ledger, x: int) -> None:
    """Claim word ``x``, not repeated by the window: licensed, or a substitution or an
    added detail."""
    a, c, p = book.a, book.a.claim, book.a.passage
    word, k = c.low[x], c.keys[x]
    other = _counterpart(a, x, book.free)
    # A premise word accounts for one claim word, and from the sentence of its slot
    # when the neighbours name one: "the object of singing" is not licensed by an
    # abbot two sentences on because an abbot is a physical object.
    near = _distinct(p, book.free if other is None else [other] + [
        z for z in book.free if z != other and p.sent[z] == p.sent[other]
    ])
    licence = _licence(book, x, other, near)
    if licence is not None:
        book.licensed.add(k)  # type: ignore[arg-type]
        book.licences.append(RuleUse(licence, word))
        return
    if "exclusive-substitution" not in book.off:
        if other is not None and lexicon.exclusive(p.low[other], word, pos_of(p, book.rp, other), pos_of(c, book.rc, x)):
            book.findings.append(_contra("lexicon", f"substitution:'{word}' vs '{p.low[other]}'", "exclusive-substitution"))
        elif other is None and (rival := _exclusive_in_sentence(a, word, book.free)) is not None:
            book.findings.append(_contra("lexicon", f"substitution:'{word}' vs '{rival}'", "exclusive-substitution"))
    if "unaccounted-word" in book.off:
        return
    if other is not None:
        book.caps.append(RuleUse("unaccounted-word", f"substitution:'{word}' where the passage has '{p.low[other]}'"))
    else:
        book.caps.append(RuleUse("unaccounted-word", f"added:'{word}' is not stated by the passage"))


def _licence(book: _Ledger, x: int, other: int | None, near: list[int]) -> str | None:
    """The rule that licenses claim word ``x`` (in the order they are tried), or None."""
    a, c, p, rp, off = book.a, book.a.claim, book.a.passage, book.rp, book.off
    word, c_pos = c.low[x], pos_of(c, book.rc, x)
    if "wordnet-licence" not in off:
        saying = [z for z in near if lexicon.licenses(p.low[z], word, pos_of(p, rp, z), c_pos)]
        if saying:
            book.sources[x] = saying  # its relation words are read there too ("under a vehicle")
            return "wordnet-licence"
    if "repeated-word-licence" not in off:
        # A word the window says more often than the claim: its other occurrence may
        # say this one ("a man near a man" says "a man near a person").
        saying = [z for z in _distinct(p, book.spare) if lexicon.licenses(p.low[z], word, pos_of(p, rp, z), c_pos)
                  and (other is None or p.sent[z] == p.sent[other])]  # fmt: skip
        if saying:
            book.sources[x] = saying
            return "repeated-word-licence"
    if "collocation-licence" not in off and c_pos in (None, "n") and any(
        lexicon.collocation_licenses(t, word) for t in _collocations_at(p, near)
    ):
        return "collocation-licence"  # "a girl" from "a young woman" (one synset in WordNet)
    if "phrase-licence" not in off and (pair := _phrase_licensed(a, x, book.window)) is not None:
        book.licensed.update(q for q in pair if q and q not in a.matched)  # "ping pong" from "table tennis"
        return "phrase-licence"
    if "indefinite-thing" not in off and word in INDEFINITE_THINGS and other is not None and rp.tag[other] == "N":
        if not lexicon.kind_of(p.low[other], "person"):
            return "indefinite-thing"  # "cooking something" from "cooking eggs"
    said = _said_otherwise(a, x, book.window, book.rc, rp, off)
    if said is not None:
        return said
    if "age-phrase" not in off and _age_phrase(a, x, book.rc, rp):
        book.phrases.append(x)  # its "in" binds no other claim word (``_relations``)
        return "age-phrase"  # "girls in their teens" from "teenage girls"
    return None


def _read_structure(book: _Ledger) -> None:
    """Roles, relation words and the claim's structure against the window's."""
    a, off = book.a, book.off
    role = None if "reversed-roles" in off else _reversed_roles(a)
    if role is not None:
        book.findings.append(_contra("roles", role, "reversed-roles"))
        book.caps.append(RuleUse("reversed-roles", role))
    elif "participle-turned" not in off and (turned := _participle_turned(a)) is not None:
        book.caps.append(RuleUse("participle-turned", turned))
    caps_rel: list[RuleUse] = []
    found_rel: list[Finding] = []
    if "relation-words" not in off:
        caps, found_rel = _relations(a, frozenset(y - 2 for y in book.phrases))
        caps_gov, found_gov = _governing(a, book.sources)
        caps_rel = [RuleUse("relation-words", cap) for cap in caps + caps_gov]
        found_rel += found_gov
    # Already contradicted by a word: the structure cannot change the outcome.
    caps_st, found_st = ([], []) if book.findings or found_rel else compare(a, frozenset(book.licensed), off)
    book.caps += [*caps_rel, *caps_st]
    book.findings += [*found_rel, *found_st]


# Rules of English by which the window says a claim token in other words, tried in this
# order (``_said_otherwise``); each is named in ``rules.RULES``.
def _on_top_of(a: Alignment, x: int) -> bool:
    """"on top of" is "on", a relation read as one (``_relation_set``)."""
    c = a.claim
    return c.low[x] == "top" and 0 < x < len(c.low) - 1 and c.low[x - 1] == "on" and c.low[x + 1] == "of"


def _relation_spelt(a: Alignment, x: int, window: list[int]) -> bool:
    """"outdoors" from "outside": one relation spelt two ways."""
    c, p = a.claim, a.passage
    same = _SAME_RELATION.get(c.low[x])
    return same is not None and any(_SAME_RELATION.get(p.low[z], p.low[z]) == same for z in window)


def _members_said(a: Alignment, x: int, window: list[int], rc: Reading) -> bool:
    """"a group of men" from "some men", "men"."""
    c = a.claim
    members = collective_members(c, rc, x)
    return members >= 0 and (_said_plural(a, c.keys[members]) or _said_plural_by(a, c.low[members], window))


def _part_of_mass(a: Alignment, x: int, rc: Reading) -> bool:
    """"a piece of bread" from "slicing bread"."""
    return (whole := partitive_of(a.claim, rc, x)) >= 0 and _said_as_mass(a, a.claim.keys[whole])


def _said_otherwise(
    a: Alignment, x: int, window: list[int], rc: Reading, rp: Reading, off: frozenset[str] = frozenset()
) -> str | None:
    """The rule of English by which the window says claim token ``x`` in other words."""
    tests = (
        ("compound-spelling", lambda: _compound_spelling(a, x, window)),  # "bird cage" / "birdcage"
        ("periphrasis", lambda: _periphrasis(a, x, rp)),  # "a bridge made of rope" / "a rope bridge"
        ("relation-spelling", lambda: _relation_spelt(a, x, window)),  # "outdoors" / "outside"
        ("near-spelling", lambda: _near_spelled(a, x, window)),  # "near a dog" / "close to a dog"
        ("collective-members", lambda: _members_said(a, x, window, rc)),  # "a group of men" / "men"
        ("partitive-mass", lambda: _part_of_mass(a, x, rc)),  # "a piece of bread" / "bread"
        ("wearing-stated", lambda: _wearing_stated(a, x, rc)),  # "wearing a hat" / "in a hat"
        ("dressed-in", lambda: _dressed_in(a, x)),  # "dressed in black" / "in black"
        ("place-kind", lambda: _place_kind_said(a, x, window)),  # "outdoors" / "in the garden"
        ("privative", lambda: _privative_said(a, x)),  # "a shirtless man" / "a man with no shirt"
        ("linking-verb", lambda: _linking_said(a, x, rc)),  # "a lady who looks young" / "a young lady"
        ("agent-noun", lambda: _agent_said(a, x, rc, rp)),  # "football players" / "people playing football"
        ("cognate-object", lambda: _cognate_object(a, x, rc, rp)),  # "singing a song" / "singing"
        ("do-synonym", lambda: _done(a, x, rc, rp)),  # "performing a handstand" / "doing a handstand"
        ("on-top-of", lambda: _on_top_of(a, x)),
        ("adverb-spelling", lambda: _adverb_spelt(a, x, window)),  # "onstage" / "on a stage"
        ("defined-quality", lambda: _defined_quality(a, x, rc, rp)),  # "a young child" / "a toddler"
        ("colour-named", lambda: _colour_named(a, x)),  # "a blue colored jacket" / "a blue jacket"
    )
    return next((name for name, said in tests if name not in off and said()), None)


# At most this many (window word, claim word) look-ups decide whether a pair below the
# contradiction floor is accounted at all (a short premise, as in SICK, is always read).
_LIFT_PAIRS = 60
_LIFT_WORDS = 3


def could_lift(a: Alignment) -> bool:
    """Whether every unmatched claim word has a window word that licenses it: the cheap
    look-up before a full ``account`` of a pair whose repeated words alone fall short
    (only then can it be supported; the rest of the accounting only takes away)."""
    c, p = a.claim, a.passage
    rc = read(c)
    # "a group of people" is said by its members' noun ("persons"): the group needs no word.
    todo = sorted({c.low[x] for x in range(len(c.keys))
                   if _is_word(c, x) and c.keys[x] not in a.matched and collective_members(c, rc, x) < 0})  # fmt: skip
    if len(todo) > _LIFT_WORDS:
        return False  # bounded cost: more words to license than a paraphrase of one clause has
    if not all(_in_wordnet(word) for word in todo):
        return False  # a name or a word WordNet lacks is licensed only by itself
    window = sorted({p.low[z] for z in range(a.t0, a.t1) if _is_word(p, z) and p.keys[z] not in a.matched})
    window = [z for z in window if _in_wordnet(z)]
    if len(window) * len(todo) > _LIFT_PAIRS:
        return False  # bounded cost: a long window is accounted only above the floor
    done = any(p.low[z] in _DO for z in range(a.t0, a.t1))  # "doing a trick": "performing" (``_done``)
    return all(
        any(lexicon.licenses(z, word) for z in window) or done and _said_by_do(word)
        for word in todo
    )


def _spare(a: Alignment, window: list[int]) -> list[int]:
    """Window tokens of a claim word the window holds more often than the claim does."""
    c, p = a.claim, a.passage
    mine: dict[str, int] = {}
    for k in c.keys:
        if k is not None:
            mine[k] = mine.get(k, 0) + 1
    theirs: dict[str, int] = {}
    for z in window:
        k = p.keys[z]
        if k in mine:
            theirs[k] = theirs.get(k, 0) + 1
    over = {k for k, n in theirs.items() if n > mine[k]}
    return [z for z in window if p.keys[z] in over]


def _in_wordnet(word: str) -> bool:
    return any(lexicon.lemmas(word, pos) for pos in lexicon.POS)


def _distinct(p: Prepared, tokens: list[int]) -> list[int]:
    """One token per word and reading (the same word may be a noun and a verb)."""
    r = read(p, min(tokens, default=0), max(tokens, default=-1) + 1)
    seen: set[tuple[str, str | None]] = set()
    out = []
    for z in tokens:
        key = (p.low[z], r.tag[z])
        if key not in seen:
            seen.add(key)
            out.append(z)
    return out


def _counterpart(a: Alignment, x: int, free: list[int]) -> int | None:
    """The unmatched window word the claim word's neighbours point at."""
    spots = anchors(a, x, x + 1)
    allowed = set(free)
    best = [(w, z) for z, w in spots.items() if z in allowed]
    return max(best)[1] if best else None


def _exclusive_in_sentence(a: Alignment, word: str, free: list[int]) -> str | None:
    p = a.passage
    for z in _distinct(p, free):
        if p.sent[z] == a.main and lexicon.exclusive(p.low[z], word):
            return p.low[z]
    return None


def _unique_positions(a: Alignment) -> list[tuple[int, int]]:
    """(claim token, passage token) for aligned words found once on each side."""
    c, p = a.claim, a.passage
    counts: dict[str, int] = {}
    for k in c.keys:
        if k:
            counts[k] = counts.get(k, 0) + 1
    out = []
    for x, k in enumerate(c.keys):
        if not k or counts[k] != 1 or k not in a.matched or k.startswith("#"):
            continue
        if c.low[x] in RELATION_WORDS:
            continue
        inside = [y for y in a.positions.get(k, ()) if a.c0 <= y < a.c1]
        if len(inside) == 1:
            out.append((x, inside[0]))
    del p
    return out


def _reversed_roles(a: Alignment) -> str | None:
    c, p = a.claim, a.passage
    seq = _unique_positions(a)[:_MAX_ROLE_WORDS]
    n = len(seq)
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                (xi, pi), (xj, pj), (xk, pk) = seq[i], seq[j], seq[k]
                if not pi > pj > pk:
                    continue
                if c.clause[xi] != c.clause[xk] or p.clause[pi] != p.clause[pk]:
                    continue
                if _passive(c, xj) or _passive(p, pj) or not _verb_like(c, xj):
                    continue  # a passive: "the potato is peeled by the woman"
                if _participle_compound(c, xj, p, pj, pk):
                    continue  # "paint covered clothes" are clothes covered with paint
                return (
                    f"roles:'{c.low[xi]}' and '{c.low[xk]}' trade places around '{c.low[xj]}'"
                )
    return None


_AUX = frozenset("is are was were be been being has have had will would can could does did do".split())


def _verb_like(p: Prepared, z: int) -> bool:
    """Roles turn on a verb: "a dog is licking a baby", "Rollo agreed …"; a noun in a
    compound ("pump house detectors" / "detectors in the pump house") does not."""
    word = p.low[z]
    inflected = word.endswith(("ing", "ed", "s")) or (z > 0 and p.low[z - 1] in _AUX)
    return inflected and bool(lexicon.lemmas(word, "v"))


def _passive(p: Prepared, z: int) -> bool:
    """A "by" in the sentence of token ``z``: its roles may be passive."""
    t0, t1 = p.sent_tokens[p.sent[z]]
    return "by" in p.low[t0:t1]


_PARTICIPLE_LINK = frozenset(("with", "by", "in"))


def _participle_compound(c: Prepared, xj: int, p: Prepared, pj: int, pk: int) -> bool:
    """The claim's participle takes its noun after "with"/"by"/"in" ("clothes covered
    with paint") where the passage writes that noun right before the participle as a
    compound modifier ("paint covered clothes"): the same roles, in the other order."""
    return (
        c.low[xj].endswith("ed")
        and xj + 1 < len(c.low)
        and c.low[xj + 1] in _PARTICIPLE_LINK
        and p.low[pj] == c.low[xj]
        and pk == pj - 1
        and not (pj + 1 < len(p.low) and p.low[pj + 1] in _PARTICIPLE_LINK)
    )


def _participle_turned(a: Alignment) -> str | None:
    """"playing a trumpet" against "a trumpet playing": the verb and its object in
    the claim are noun and participle in the passage, which binds them otherwise."""
    c, p = a.claim, a.passage
    seq = _unique_positions(a)
    rc = read(c)
    for (x1, p1), (x2, p2) in itertools.pairwise(seq):
        if p1 - p2 != 1 or c.clause[x1] != c.clause[x2] or not _verb_like(c, x1):
            continue
        if rc.tag[x1] == "N":
            continue  # a noun that could be a verb: "steps made of stone", "stone steps"
        if rc.tag[x1] == "J" or rc.tag[x2] not in ("N", "M", None) or manner_adverb(c.low[x2]):
            # Qualifiers in another order ("green and big", "running quickly"):
            # no verb and object changed.
            continue
        if _passive(c, x1) or _passive(p, p1) or _participle_compound(c, x1, p, p1, p2):
            continue
        return f"roles:'{c.low[x1]} … {c.low[x2]}' is '{p.low[p2]} {p.low[p1]}' in the passage"
    return None


def _between(p: Prepared, i: int, j: int) -> set[str]:
    """Relation words among tokens ``[i, j)``, less the "to" of a range ("2 to 5")."""
    keys = p.keys
    words = [
        p.low[y] for y in range(max(i, 0), j)
        if not (0 < y < len(keys) - 1 and (keys[y - 1] or "").startswith("#")
                and (keys[y + 1] or "").startswith("#"))
    ]  # fmt: skip
    return _relation_set(words)


def _relation_set(words: list[str]) -> set[str]:
    # Two-word prepositions that are one relation: "close to" is "near", "on top of" is "on".
    for x in range(len(words) - 1):
        if (pair := _TWO_WORD.get((words[x], words[x + 1]))) is not None:
            words = [*words[:x], pair, *words[x + 2 :]]
            break
    found = {_SAME_RELATION.get(w, w) for w in words if w in RELATION_WORDS} - {"of"}
    if not _FOOT.isdisjoint(words) and any(_at_foot(words, x) for x in range(len(words))):
        found.add(_AT_FOOT)  # "at the base of the cliff": at it, and near it (``_implied``)
    return found


_TWO_WORD = {("close", "to"): "near", ("near", "to"): "near", ("on", "top"): "on"}
# "At the base / the foot of X" is at X, and near it; the marker stands for the phrase
# among relation words and states only "near" (one way).
_FOOT = frozenset(("base", "foot"))
_AT_FOOT = "at-foot"


def _at_foot(words: list[str], x: int) -> bool:
    """``words[x]`` is "base"/"foot" in "at [the] base of"."""
    return (
        words[x] in _FOOT and x + 1 < len(words) and words[x + 1] == "of"
        and "at" in words[max(0, x - 2) : x] and words[x - 1] in ("at", "the")
    )  # fmt: skip
# One relation word that states another, one way only: jumping off a dock is jumping
# from it (jumping from a dock may be jumping out of it).
_IMPLIES = {"off": "from"}
# Being beside, next to, against, in front of or behind a thing is being near it (one
# way: near a wall may be on either side of it).
_NEAR_BY = frozenset(("beside", "next", "against", "front", "behind", "alongside"))


def _implied(found: set[str], said: set[str]) -> set[str]:
    """The window's relation words, each read as the claim's word it states."""
    out = {w if _IMPLIES.get(w) not in said else _IMPLIES[w] for w in found}
    foot = _AT_FOOT in out and _AT_FOOT not in said
    if foot:
        out.discard(_AT_FOOT)
    if "near" in said and (out & _NEAR_BY or foot):
        # "in front of": its "in" goes with "front"; "at the base of": its "at".
        out = (out - _NEAR_BY - ({"in"} if "front" in out else set()) - ({"at"} if foot else set())) | {"near"}
    return out


def _trailing(p: Prepared, z: int) -> list[str]:
    """Relation words right after token ``z`` in its clause ("looking up")."""
    out: list[str] = []
    for y in range(z + 1, min(len(p.low), z + 4)):
        if p.clause[y] != p.clause[z]:
            break
        if p.low[y] in RELATION_WORDS:
            out.append(p.low[y])
        elif p.keys[y] is not None:
            break
    return out


def _relation_before(p: Prepared, y: int) -> set[str]:
    """Relation words between token ``y`` and the content word before it (at most
    four tokens back, within the clause): what governs ``y``'s phrase."""
    words: list[str] = []
    for z in range(y - 1, max(-1, y - 5), -1):
        # Quotes end a clause but not a phrase: "number two on the "Billboard" Hot 100".
        if p.sent[z] != p.sent[y] or (p.keys[z] is not None and p.low[z] not in RELATION_WORDS):
            if words and p.sent[z] == p.sent[y] and (p.low[z], words[-1]) in _TWO_WORD:
                words.append(p.low[z])  # "close to": the content word is half the relation
            break
        words.append(p.low[z])
    return _relation_set(words[::-1])


def _governing(a: Alignment, sources: dict[int, list[int]]) -> tuple[list[str], list[Finding]]:
    """Each relation word of the claim governs the phrase after it ("to no avail",
    "on display"); where the window has that word governed by other relation words
    only, the relation changed. A claim word a window word licenses is read at that
    word ("sitting under a vehicle" from "sitting on a car")."""
    c, p = a.claim, a.passage
    caps: list[str] = []
    findings: list[Finding] = []
    for y, k in enumerate(c.keys):
        if k is None or k.startswith("#") or (k not in a.matched and y not in sources) or c.low[y] in RELATION_WORDS:
            continue
        said = _relation_before(c, y)
        if not said:
            continue
        places = a.positions.get(k, []) if k in a.matched else sources[y]
        mine = [x for x, key in enumerate(c.keys) if key == k]
        if k in a.matched and len(places) == len(mine) > 1:
            places = [places[mine.index(y)]]  # one occurrence each: the same one in order
        # A modifier's relation word governs its head ("in a cattle pen"): unknown.
        rp = read(p, a.t0, a.t1)
        found = [set() if rp.tag[z] == "M" else _implied(_relation_before(p, z), said) for z in places]
        if read(c).tag[y] == "M" or not found or any(not f or f & said for f in found):
            continue
        theirs = sorted(found[0])
        pair = next(((s, f) for s in sorted(said) for f in theirs if frozenset((s, f)) in _EXCLUSIVE), None)
        if pair is not None:
            findings.append(_contra("relation", f"relation:'{pair[0]}' vs '{pair[1]}'", "relation-words"))
        caps.append(f"relation:'{'/'.join(sorted(said))} {c.low[y]}' where the passage has "
                    f"'{'/'.join(theirs)} {c.low[y]}'")  # fmt: skip
    return caps, findings


def _particle(p: Prepared, z: int) -> set[str]:
    """"holding *up* a sign" is holding a sign: the completive particle right after a
    verb says nothing of where."""
    return {"up"} if z + 1 < len(p.low) and p.low[z + 1] == "up" and read(p, z, z + 1).tag[z] == "V" else set()


def _reordered_alike(
    c: Prepared, p: Prepared, rp: Reading, left: int, right: int, pl: int, pr: int
) -> bool:
    """Orders that differ without changing who is where: a passive ("picked up by a
    man"), a compound for its phrase ("gloves for boxing", "boxing gloves")."""
    if "by" in c.low[left + 1 : right] or _participle_compound(c, left, p, pl, pr):
        return True
    if rp.tag[pr] == "M" and rp.head[pr] == pl:
        return True
    # "At sea level water boils": the phrase moved whole, its relation word with it.
    return bool(_between(c, left + 1, right) & _between(p, pr - 3, pr))


def _relations(a: Alignment, own: frozenset[int] = frozenset()) -> tuple[list[str], list[Finding]]:
    """The relation words between aligned neighbours (``own``: claim tokens of a phrase
    accounted as a whole, whose relation word binds neither neighbour)."""
    c, p = a.claim, a.passage
    where = dict(_unique_positions(a))
    rp = read(p, a.t0, a.t1)
    caps: list[str] = []
    findings: list[Finding] = []
    anchored = sorted(where)
    spans: list[tuple[set[str], set[str]]] = []
    for left, right in itertools.pairwise(anchored):
        pl, pr = where[left], where[right]
        if c.clause[left] != c.clause[right] or p.sent[pl] != p.sent[pr]:
            continue
        said = _between(c, left + 1, right) - {c.low[y] for y in own if left < y < right}
        if pr < pl or pr - pl > _RELATION_REACH:
            if said and pr < pl and not _reordered_alike(c, p, rp, left, right, pl, pr):
                # "a man in a hat" from "a harp played with a hat by a man".
                caps.append(f"relation:'{'/'.join(sorted(said))}' binds '{c.low[left]}' and "
                            f"'{c.low[right]}', which the passage has the other way round")  # fmt: skip
            continue
        found = _between(p, pl + 1, pr) - _particle(p, pl)
        said -= _particle(c, left)
        if found and not said and any(rp.tag[z] not in ("M", None) for z in range(pl + 1, pr)):
            continue  # "a man in a hat is playing": the phrase qualifies the left word
        if (head := _head_before_phrase(a, left, right, pl, pr)) >= 0:
            # "near the red ball" from "near a ball colored in red", "in a cowboy hat"
            # from "in a hat suited for cowboys": the claim's modifier is the phrase
            # after its head, whose relation word binds no other word.
            found = _between(p, pl + 1, head) - _particle(p, pl)
        if _worn_at(c, right):
            said, found = _worn(c, left + 1, right, said), _worn(p, pl + 1, pr, found)
        if said and said < found and _relation_before(p, pr) == said and _aside(a, left, pl, pr):
            # The premise adds a phrase on the way: "walking with difficulty across the
            # snow" is walking across the snow, "oil for cooking into a pot" cooking oil.
            found = said
        spans.append((said, found))
    if anchored:
        last = anchored[-1]
        said = _relation_set(_trailing(c, last))
        if said and not any(k for k in c.keys[last + 1 :] if k and k not in RELATION_WORDS):
            spans.append((said, _relation_set(_trailing(p, where[last]))))
    for said, found in spans:
        if said == _implied(found, said):
            continue
        pair = next(((s, f) for s in sorted(said) for f in sorted(found)
                     if frozenset((s, f)) in _EXCLUSIVE), None)  # fmt: skip
        mine, theirs = (
            "/".join(sorted(said)) or "none",
            "/".join(sorted(found)) or "none",
        )
        if pair is not None:
            findings.append(_contra("relation", f"relation:'{pair[0]}' vs '{pair[1]}'", "relation-words"))
        caps.append(f"relation:'{mine}' where the passage has '{theirs}'")
    return caps, findings


_COLOURED = frozenset(("colored", "coloured", "dyed"))
# Participles that open a phrase after a noun standing for a modifier before it.
_POSTPOSED = PURPOSE | _COLOURED


def _head_before_phrase(a: Alignment, left: int, right: int, pl: int, pr: int) -> int:
    """The window token of the claim modifier ``right``'s head, where the window has
    the modifier after that head in "<head> <colored/designed/suited …> <in/for>
    [determiner] <modifier>"; else -1."""
    c, p = a.claim, a.passage
    rc = read(c)
    h = rc.head[right] if rc.tag[right] == "M" else -1
    if h <= right or c.keys[h] is None:
        return -1
    for y in range(pl + 1, pr - 2):
        if p.keys[y] == c.keys[h] and p.low[y + 1] in _POSTPOSED:
            rest = range(y + 2, pr)
            if rest and all(p.keys[z] is None for z in rest) and _between(p, y + 2, pr):
                return y
    return -1


def _aside(a: Alignment, left: int, pl: int, pr: int) -> bool:
    """The window words between ``pl`` and ``pr`` add a phrase of their own: none is a
    claim word, unless the one the claim puts before ``left`` as its compound ("cooking
    oil" for "oil for cooking"); "a path … finds a girl" from "a girl finds a path …"
    has claim words there, traded round."""
    c, p = a.claim, a.passage
    compound = c.keys[left - 1] if left > 0 else None
    return all(p.keys[y] not in c.key_set or p.keys[y] == compound for y in range(pl + 1, pr) if p.keys[y])


# "A man in a hat", "a man with a hat" and "a man wearing a hat" say one thing of him.
_WEAR = frozenset(("wear", "dress"))


def _worn_at(p: Prepared, z: int) -> bool:
    """Token ``z`` is (or modifies) an article of clothing (WordNet)."""
    r = read(p, z, z + 1)
    head = r.head[z] if r.tag[z] == "M" and r.head[z] >= 0 else z
    return lexicon.kind_of(p.low[head], "clothing")


def _wears(p: Prepared, i: int, j: int) -> bool:
    return any(set(lexicon.lemmas(p.low[y], "v")) & _WEAR for y in range(max(i, 0), j))


def _worn(p: Prepared, i: int, j: int, words: set[str]) -> set[str]:
    """The relation words before a garment, with "with" and a form of "wear" read as "in"."""
    if words <= {"in", "with"} and (words or _wears(p, i, j)):
        return {"in"}
    return words


def _wearing_stated(a: Alignment, x: int, rc: Reading) -> bool:
    """Claim token ``x`` is a form of "wear" whose garment the window has after "in" or
    "with" ("a man in a straw hat": he is wearing it)."""
    c, p = a.claim, a.passage
    if not set(lexicon.lemmas(c.low[x], "v")) & _WEAR:
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


# An adverb of place said by a place of its kind (WordNet): a field, a yard, a park are
# tracts of land, out of doors; a room, a house are indoors.
_PLACE_KINDS = {"outdoors": ("tract",), "outside": ("tract",), "indoors": ("room", "building")}
_AT_PLACE = frozenset(("in", "on", "at", "across", "through", "into", "onto", "around"))


def _place_kind_said(a: Alignment, x: int, window: list[int]) -> bool:
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
        if _relation_before(p, z) & _AT_PLACE and any(lexicon.kind_of(p.low[z], kind) for kind in kinds):
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


def _privative_said(a: Alignment, x: int) -> bool:
    """Claim token ``x`` is "X-less" where the window says "no X" / "without (a) X"."""
    c, p = a.claim, a.passage
    stem = privative_stem(c.low[x])
    return stem is not None and any(
        privative_noun(p.low[n], stem) for _, n in privative_phrases(p.low, a.t0, a.t1)
    )


def _cognate_object(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
    """Claim noun ``x`` is the object its verb makes ("singing a *song*"), the verb is
    the window's, and there it takes no other object."""
    c = a.claim
    verbs = [v for v in range(len(c.keys)) if rc.tag[v] == "V" and rc.patient[v] == x and c.keys[v] in a.matched]
    return any(
        lexicon.cognate_noun(c.low[x], c.low[v])
        and all(rp.patient[z] < 0 for z in a.positions.get(c.keys[v] or "", ()) if rp.tag[z] == "V")
        for v in verbs
    )


def _agent_said(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
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


def _linking_said(a: Alignment, x: int, rc: Reading) -> bool:
    """Claim token ``x`` is "looks"/"seems"/"appears" linking its subject to an
    adjective the window says of the same word ("a young lady" says she looks young)."""
    c, p = a.claim, a.passage
    if c.low[x] not in LINKING or x + 1 >= len(c.low) or rc.tag[x + 1] != "J" or c.keys[x + 1] not in a.matched:
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


def _colour_named(a: Alignment, x: int) -> bool:
    """Claim token ``x`` is "colored" beside a colour the window says ("blue colored",
    "colored in blue"): the word adds nothing the colour does not."""
    c = a.claim
    if c.low[x] not in _COLOURED:
        return False
    beside = [x - 1, x + 2 if x + 1 < len(c.low) and c.low[x + 1] == "in" else x + 1]
    return any(
        0 <= y < len(c.low) and c.clause[y] == c.clause[x] and c.keys[y] in a.matched
        and lexicon.kind_of(c.low[y], "color")
        for y in beside
    )  # fmt: skip


def _dressed_in(a: Alignment, x: int) -> bool:
    """Claim token ``x`` is "dressed" in "dressed in X" where the window has "in X"
    ("a skier in black" is dressed in black)."""
    c, p = a.claim, a.passage
    if c.low[x] != "dressed" or x + 2 >= len(c.low) or c.low[x + 1] != "in" or c.keys[x + 2] not in a.matched:
        return False
    return any(_relation_before(p, z) == {"in"} for z in a.positions.get(c.keys[x + 2] or "", ()))


def _compound_spelling(a: Alignment, x: int, window: list[int]) -> bool:
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


def _phrase_licensed(a: Alignment, x: int, window: list[int]) -> tuple[str | None, ...] | None:
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


def _collocations_at(p: Prepared, heads: list[int]) -> list[str]:
    """The two-word nouns WordNet lists that end at each of ``heads``, as it spells them
    ("young_woman"; two nouns also as one word: "eye liner" is "eyeliner", but "a gray
    beard" is no graybeard)."""
    pairs = [(p.low[z - 1], p.low[z]) for z in heads
             if z > 0 and p.keys[z - 1] is not None and p.clause[z - 1] == p.clause[z]]  # fmt: skip
    spelt = [(f"{a}_{b}", a + b if not lexicon.lemmas(a, "a") else "") for a, b in pairs]
    return [w for pair in spelt for w in pair if w and lexicon.lemmas(w, "n")]


# "Do" as a main verb: "doing a handstand" is performing one (WordNet: perform, execute,
# do). A stop word, so it has no key of its own and is read here.
_DO = frozenset(("do", "does", "did", "doing", "done"))


# Light verbs take their sense from their object and do not stand for one another
# ("doing a puzzle" is not "making" one, "doing a walk" not "taking" one).
_OTHER_LIGHT = frozenset(("make", "take", "give", "have", "get"))


def _said_by_do(word: str) -> bool:
    """A verb WordNet gives as a synonym of "do" in its first senses ("perform",
    "execute"), other than another light verb."""
    return not set(lexicon.lemmas(word, "v")) & _OTHER_LIGHT and lexicon.licenses("do", word, "v", "v")


def _done(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
    """Claim verb ``x`` is a synonym of "do" (WordNet's first senses) and the window
    has a form of "do" with the same object, said of the same doer: "a man is doing a
    handstand" says "a handstand is performed by a man"."""
    c, p = a.claim, a.passage
    obj, doer = rc.patient[x], rc.agent[x]
    if rc.tag[x] != "V" or obj < 0 or c.keys[obj] not in a.matched or not _said_by_do(c.low[x]):
        return False
    for z in range(a.t0, a.t1):
        if p.low[z] not in _DO or z + 1 >= a.t1:
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


# Relation words an adverb of place is spelt from: "onstage", "underwater", "uphill".
_ADVERB_RELATIONS = ("on", "off", "under", "over", "up", "down")


def _adverb_spelt(a: Alignment, x: int, window: list[int]) -> bool:
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
            if rest in (p.low[z], *lexicon.lemmas(p.low[z], "n")) and _relation_before(p, z) == {rel}:
                return True
    return False


_POSSESSIVE = frozenset(("his", "her", "their"))


def _age_phrase(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
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


def _defined_quality(a: Alignment, x: int, rc: Reading, rp: Reading) -> bool:
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


def _near_spelled(a: Alignment, x: int, window: list[int]) -> bool:
    """Claim "near" where the window has "close to" or a relation of being by a thing
    (``_NEAR_BY``), or "close (to)" where it has "near"."""
    c, p = a.claim, a.passage
    word, nxt = c.low[x], c.low[x + 1] if x + 1 < len(c.low) else ""
    if word == "near":
        return any(p.low[z] == "close" and z + 1 < a.t1 and p.low[z + 1] == "to" for z in window) or any(
            p.low[z] in _NEAR_BY or _at_foot(p.low, z) and p.sent[z - 1] == p.sent[z] for z in range(a.t0, a.t1)
        )
    if word == "close" and nxt == "to":
        return any(p.low[z] == "near" for z in window)
    return False



# Participles and adjectives that spell out a modifier: "a bridge *made of* rope" is a
# rope bridge, "a hillside *covered by* grass" a grassy one, "an area *full of* rocks" a
# rocky one.
_PERIPHRASIS = frozenset(("made", "covered", "full", "filled"))
_PERIPHRASIS_LINK = frozenset(("of", "by", "with", "in"))


def _periphrasis(a: Alignment, x: int, rp: Reading) -> bool:
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
