"""Every claim word accounted for, roles and relation words unchanged.

Coverage says how many of the claim's words the passage window holds; it cannot say
that the one word it lacks was swapped for its opposite ("a man" for "a woman"), that
two words traded places ("a dog is licking a baby" from "a baby is licking a dog"), or
that the word binding them changed ("onto" for "off"). This layer reads the aligned
window for those three:

- ``account`` (here): a claim word the window does not repeat must be licensed by a
  window word (``lexicon``: same lemma, synonym, or a hypernym the premise
  states) or said by a rule of English (``wording_licences``, ``event_licences``).
  Otherwise, with a window word in its slot it is a *substitution* — contradicting
  when the two are exclusive (antonyms, co-hyponyms) — and without one an *added
  detail*; either way the claim is at best ``mentioned``.
- ``roles``: three aligned words in the claim's order ``x … v … y`` that the passage
  has as ``y … v … x`` (no passive "by" between) — roles reversed, contradicted.
- ``relations``: the relation words between two aligned neighbours (prepositions and
  particles, ``account``) must agree; an exclusive change (onto/off, in/out)
  contradicts, any other change caps the claim at ``mentioned``.

Each licence and check is a named rule (``rules.RULES``): the accounting records which
licensed each word, and skips the rules ``Settings.support_rules_off`` names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import lexicon
from .align import Alignment, Finding, anchors
from .event_licences import (
    DO,
    agent_said,
    cognate_object,
    defined_quality,
    do_synonym_said,
    linking_said,
    members_said,
    part_of_mass,
    said_by_do,
)
from .lexical import Prepared
from .noun_phrases import INDEFINITE_THINGS, collective_members
from .reading import read
from .relations import check_governing, check_relations
from .roles import participle_turned, reversed_roles
from .rules import RuleUse
from .shallow import Reading, pos_of
from .structure import compare
from .wording_licences import (
    adverb_spelt,
    age_phrase,
    collocations_at,
    colour_named,
    compound_spelling,
    dressed_in,
    near_spelled,
    on_top_of,
    periphrasis,
    phrase_licensed,
    place_kind_said,
    privative_said,
    relation_spelt,
    wearing_stated,
)

__all__ = ["Accounting", "account", "could_lift"]


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
        rival = None
        if other is not None and lexicon.exclusive(p.low[other], word, pos_of(p, book.rp, other), pos_of(c, book.rc, x)):
            rival = p.low[other]
        elif other is None:
            rival = _exclusive_in_sentence(a, word, book.free)
        if rival is not None:
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
        lexicon.collocation_licenses(t, word) for t in collocations_at(p, near)
    ):
        return "collocation-licence"  # "a girl" from "a young woman" (one synset in WordNet)
    if "phrase-licence" not in off and (pair := phrase_licensed(a, x, book.window)) is not None:
        book.licensed.update(q for q in pair if q and q not in a.matched)  # "ping pong" from "table tennis"
        return "phrase-licence"
    if "indefinite-thing" not in off and word in INDEFINITE_THINGS and other is not None and rp.tag[other] == "N":
        if not lexicon.kind_of(p.low[other], "person"):
            return "indefinite-thing"  # "cooking something" from "cooking eggs"
    said = _said_otherwise(a, x, book.window, book.rc, rp, off)
    if said is not None:
        return said
    if "age-phrase" not in off and age_phrase(a, x, book.rc, rp):
        book.phrases.append(x)  # its "in" binds no other claim word (``check_relations``)
        return "age-phrase"  # "girls in their teens" from "teenage girls"
    return None


def _read_structure(book: _Ledger) -> None:
    """Roles, relation words and the claim's structure against the window's."""
    a, off = book.a, book.off
    role = None if "reversed-roles" in off else reversed_roles(a)
    if role is not None:
        book.findings.append(_contra("roles", role, "reversed-roles"))
        book.caps.append(RuleUse("reversed-roles", role))
    elif "participle-turned" not in off and (turned := participle_turned(a)) is not None:
        book.caps.append(RuleUse("participle-turned", turned))
    caps_rel: list[RuleUse] = []
    found_rel: list[Finding] = []
    if "relation-words" not in off:
        caps, found_rel = check_relations(a, frozenset(y - 2 for y in book.phrases))
        caps_gov, found_gov = check_governing(a, book.sources)
        caps_rel = [RuleUse("relation-words", cap) for cap in caps + caps_gov]
        found_rel += found_gov
    # Already contradicted by a word: the structure cannot change the outcome.
    caps_st, found_st = ([], []) if book.findings or found_rel else compare(a, frozenset(book.licensed), off)
    book.caps += [*caps_rel, *caps_st]
    book.findings += [*found_rel, *found_st]


# Rules of English by which the window says a claim token in other words, tried in this
# order; each is named in ``rules.RULES``.
def _said_otherwise(
    a: Alignment, x: int, window: list[int], rc: Reading, rp: Reading, off: frozenset[str] = frozenset()
) -> str | None:
    """The rule of English by which the window says claim token ``x`` in other words."""
    tests = (
        ("compound-spelling", lambda: compound_spelling(a, x, window)),  # "bird cage" / "birdcage"
        ("periphrasis", lambda: periphrasis(a, x, rp)),  # "a bridge made of rope" / "a rope bridge"
        ("relation-spelling", lambda: relation_spelt(a, x, window)),  # "outdoors" / "outside"
        ("near-spelling", lambda: near_spelled(a, x, window)),  # "near a dog" / "close to a dog"
        ("collective-members", lambda: members_said(a, x, window, rc)),  # "a group of men" / "men"
        ("partitive-mass", lambda: part_of_mass(a, x, rc)),  # "a piece of bread" / "bread"
        ("wearing-stated", lambda: wearing_stated(a, x, rc)),  # "wearing a hat" / "in a hat"
        ("dressed-in", lambda: dressed_in(a, x)),  # "dressed in black" / "in black"
        ("place-kind", lambda: place_kind_said(a, x, window)),  # "outdoors" / "in the garden"
        ("privative", lambda: privative_said(a, x)),  # "a shirtless man" / "a man with no shirt"
        ("linking-verb", lambda: linking_said(a, x, rc)),  # "a lady who looks young" / "a young lady"
        ("agent-noun", lambda: agent_said(a, x, rc, rp)),  # "football players" / "people playing football"
        ("cognate-object", lambda: cognate_object(a, x, rc, rp)),  # "singing a song" / "singing"
        ("do-synonym", lambda: do_synonym_said(a, x, rc, rp)),  # "performing a handstand" / "doing a handstand"
        ("on-top-of", lambda: on_top_of(a, x)),
        ("adverb-spelling", lambda: adverb_spelt(a, x, window)),  # "onstage" / "on a stage"
        ("defined-quality", lambda: defined_quality(a, x, rc, rp)),  # "a young child" / "a toddler"
        ("colour-named", lambda: colour_named(a, x)),  # "a blue colored jacket" / "a blue jacket"
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
    done = any(p.low[z] in DO for z in range(a.t0, a.t1))  # "doing a trick": "performing" (``do_synonym_said``)
    return all(
        any(lexicon.licenses(z, word) for z in window) or done and said_by_do(word)
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


