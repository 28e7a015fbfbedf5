"""Lexical relations between two English words, read from WordNet.

The support test asks two questions of a claim word the premise does not repeat:
does a premise word *license* it (the same lemma, a synonym, or a hypernym the
premise states: "kids" from "children", "person" from "man", never "man" from
"person"), and is it *exclusive* with a premise word in its slot (antonyms such as
"increased"/"reduced", or co-hyponyms such as "man"/"woman", "bike"/"car")?

The database is Princeton WordNet 3.0 in its own file format (Debian ``wordnet-base``
installs it in ``/usr/share/wordnet``; ``TETHER_WORDNET`` or WordNet's own
``WNSEARCHDIR`` name another folder), read by ``wordnet``. It is read lazily: an index line is found by
binary search in the memory-mapped ``index.<pos>`` file and a synset by its byte
offset in ``data.<pos>``, so opening costs nothing and a look-up a few seeks
(docs/adr/0015-wordnet-lexicon.md). Without the database every relation is ``None``
and only identical lemmas license each other: stricter, never looser.

    >>> if available():
    ...     print(relation("children", "kids"), relation("man", "person"),
    ...           relation("person", "man"), relation("man", "woman"))
    ... else:
    ...     print("synonym hypernym None antonym")
    synonym hypernym None antonym
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

# The database's readers; the underscored ones are shared by these two modules only.
from .wordnet import (
    _UP,
    POS,
    Synset,
    _ancestors,
    _db,
    _heads,
    _height,
    _lexfile,
    _pointed,
    _record,
    _register_variant,
    _root_depth,
    _senses,
    _synsets,
    available,
    dominant,
    irregular_base,
    lemmas,
    verb_forms,
    wordnet_dir,
)

__all__ = [
    "Relation", "available", "collocation_licenses", "defined_as", "dominant", "exclusive", "irregular_base",
    "kind_of", "lemmas", "licenses", "relation", "verb_forms", "wordnet_dir",
]  # fmt: skip

Relation = Literal["same", "synonym", "hypernym", "antonym", "cohyponym"]

# Only a word's most frequent senses speak for it (WordNet lists senses by frequency):
# "dog" is an animal, not the rare sense in which it is a person.
# The premise speaks through its first senses (one for hypernyms: "boy" is also an
# informal word for a grown man, which must not make "a boy" into "a man"); the claim
# word may be meant in any sense that fits.
PREMISE_SENSES = 2
HYPERNYM_SENSES = 1
SECOND_SENSES = 2
COMMON_SENSES = 4
EXCLUSIVE_SENSES = 2
CLAIM_SENSES = 64
# How far up the premise's hypernyms a claim word may sit ("dog" → "animal" is 7).
HYPERNYM_DEPTH = 8
# Co-hyponyms share an ancestor this close (one side, the other) — man, woman → adult;
# bicycle → wheeled vehicle ← car — and specific enough: at least ROOT_DEPTH levels
# below the top of the hierarchy ("boy" and "kid" both under "person" are not exclusive).
COHYPONYM_DEPTH = (2, 3)
# A noun licensed as a hypernym sits at least this many levels below the top on its
# longest way up ("person" 6, "food" 4; "object" 2, "part" and "group" 3 are too general).
GENERAL_DEPTH = 4
NEAR_GENERAL = 2
ROOT_DEPTH = 7


@lru_cache(maxsize=8192)
def kind_of(word: str, ancestor: str, pos: str = "n") -> bool:
    """Whether ``word`` in its first senses is a kind of ``ancestor``'s first sense
    ("hat" of "clothing")."""
    if _db() is None:
        return False
    top = _senses(ancestor, pos)[:1]
    if not top:
        return False
    return any(
        top[0] in _ancestors(s, HYPERNYM_DEPTH)
        for lemma in lemmas(word, pos)
        for s in _senses(lemma, pos)[:PREMISE_SENSES]
    )


def agent_noun(noun: str, verb: str) -> bool:
    """Whether ``noun`` in its first senses names a person who does ``verb`` (WordNet's
    derivation pointer from a noun.person sense to one of the verb's common senses):
    "player" of "playing", "swimmer" of "swimming"; "singer" is not of "playing"."""
    return _derived_noun(noun, verb, person=True)


def cognate_noun(noun: str, verb: str) -> bool:
    """Whether ``noun`` in its first senses names what ``verb`` makes, a thing, not a
    person (the same derivation pointer): "a song" of "singing", "a dance" of
    "dancing"."""
    return _derived_noun(noun, verb, person=False)


def _derived_noun(noun: str, verb: str, *, person: bool) -> bool:
    if _db() is None:
        return False
    done = {s for lemma in lemmas(verb, "v") for s in _senses(lemma, "v")[:COMMON_SENSES]}
    return any(
        (_lexfile(s) == _NOUN_PERSON) == person and not done.isdisjoint(_pointed(s, ("+",)))
        for lemma in lemmas(noun, "n")
        for s in _senses(lemma, "n")[:PREMISE_SENSES]
    )


@lru_cache(maxsize=65536)
def relation(
    premise: str,
    claim: str,
    premise_pos: str | None = None,
    claim_pos: str | None = None,
) -> Relation | None:
    """How ``claim`` stands to ``premise``: ``same`` (one lemma), ``synonym``,
    ``hypernym`` (the premise word is a kind of the claim word), ``antonym``,
    ``cohyponym`` (sisters under a close common hypernym), or None.

    ``premise_pos`` / ``claim_pos`` ("n", "v", "a", "r") say how each word is used
    where the text reads it (``verify.shallow``): "dog" in "a yellow dog" is not the
    verb "to dog" (chase), "green" in "a green field" is not the noun (a park).
    Without them the premise word is read in its dominant part of speech and the
    claim word in any."""
    p_word, c_word = premise.lower(), claim.lower()
    found = _licensing(p_word, c_word, premise_pos, claim_pos)
    if found is not None or _db() is None:
        return found
    p_ex, _, p_opposed = _exclusive_view(p_word, premise_pos)
    c_ex, c_near, _ = _exclusive_view(c_word, claim_pos)
    if not c_near.isdisjoint(p_opposed):
        return "antonym"
    for pos in ("n", "v"):
        if pos in p_ex and pos in c_ex and _sisters(p_ex[pos], c_ex[pos]):
            return "cohyponym"
    return None


@lru_cache(maxsize=65536)
def _licensing(
    p_word: str, c_word: str, premise_pos: str | None, claim_pos: str | None, heads: bool = True
) -> Relation | None:
    """``same``, ``synonym`` or ``hypernym`` (see ``relation``), or None.

    What each word brings is read once per word (``_premise_view``, ``_claim_view``);
    a pair costs a few set intersections."""
    if p_word == c_word:
        return "same"
    if _db() is None:
        return None
    if not _lemma_pairs(p_word).isdisjoint(_lemma_pairs(c_word)):
        return "same"
    # The premise word is read as its dominant part of speech: "bike" in "walking with
    # a bike" is the noun, not the verb whose hypernym is "ride".
    pv = _premise_view(p_word, premise_pos)
    cv = _claim_view(c_word, claim_pos)
    # A noun and the adjective WordNet derives from it, either way round ("snow" and
    # "snowy", "telephone" and "telephonic"): a "snow covered hill" is a snowy hill.
    if pv.nouns and cv.adjectives and not pv.nouns.isdisjoint(_linked_nouns(cv.adjectives)):
        return "synonym"
    if cv.nouns and pv.adjectives and not cv.nouns.isdisjoint(_linked_nouns(pv.adjectives)):
        return "synonym"
    pos = pv.main
    if pos is None or pos not in cv.by_pos:
        return None
    c = cv.by_pos[pos]
    if not pv.said.isdisjoint(c.synsets):
        return "synonym"
    # A word WordNet glosses as another register's name for its hypernym ("lady: a
    # polite name for any woman", "guy: an informal term for a youth or man") names
    # what the premise word names.
    if not pv.said.isdisjoint(_register_union(c.common)):
        return "synonym"
    # Words near the top ("object", "part", "group") say nothing a premise word
    # states: any noun is an object.
    if not c.targets.isdisjoint(pv.first_ancestors):
        return "hypernym"
    if heads and pos == "n" and claim_pos in (None, "n"):
        # The premise word's own synset names it "<adjective> <noun>" ("boy":
        # "male child"; "woman": "adult female"): it is that noun, and licenses
        # what the noun licenses ("child" gives "kid").
        for head in _qualified_heads(pv.speaking):
            if head != p_word and _licensing(head, c_word, "n", "n", heads=False) is not None:
                return "hypernym"
    if pos == "n" and not c.general.isdisjoint(pv.near):
        # A general noun the premise word is a direct kind of ("a pond" is water, a
        # body of water, one level under "thing"): said, though "object" is not.
        return "hypernym"
    # The premise's second sense speaks for it only in the claim word's common
    # senses ("a knife" is a weapon), and not where its first sense excludes the
    # claim word ("boy" is informally a man, but a boy is no man).
    if not c.common_targets.isdisjoint(pv.second_ancestors) and pv.first_up.isdisjoint(c.first_up):
        return "hypernym"
    return None


@lru_cache(maxsize=16384)
def _lemma_pairs(word: str) -> frozenset[tuple[str, str]]:
    """(part of speech, lemma) for each of ``word``'s base forms."""
    return frozenset((pos, lemma) for pos in POS for lemma in lemmas(word, pos))


@dataclass(frozen=True, slots=True)
class _PremiseView:
    """What a premise word read in one part of speech says (``_licensing``)."""

    main: str | None  # the part of speech it is read in
    said: frozenset[Synset]  # its first senses in that part of speech
    nouns: frozenset[Synset]  # its first noun senses, if read as a noun
    adjectives: tuple[Synset, ...]  # its common adjective senses, if read as an adjective
    first_ancestors: frozenset[Synset]  # hypernyms of its first sense
    speaking: tuple[Synset, ...]  # its first sense and the second senses that speak
    near: frozenset[Synset]  # hypernyms of its first sense NEAR_GENERAL levels up
    second_ancestors: frozenset[Synset]  # hypernyms of its second senses that speak
    first_up: frozenset[Synset]  # direct hypernyms of its first sense


@dataclass(frozen=True, slots=True)
class _ClaimSide:
    """A claim word's senses in one part of speech (``_licensing``)."""

    synsets: frozenset[Synset]
    common: tuple[Synset, ...]  # its commonest senses
    targets: frozenset[Synset]  # its senses specific enough to be licensed as hypernyms
    general: frozenset[Synset]  # its common senses too general for that
    common_targets: frozenset[Synset]  # targets among its common senses
    first_up: frozenset[Synset]  # direct hypernyms of its first senses


@dataclass(frozen=True, slots=True)
class _ClaimView:
    by_pos: dict[str, _ClaimSide]
    nouns: frozenset[Synset]
    adjectives: tuple[Synset, ...]


@lru_cache(maxsize=16384)
def _linked_nouns(adjectives: tuple[Synset, ...]) -> frozenset[Synset]:
    """The nouns WordNet derives the adjective senses from, or they from the nouns."""
    return frozenset(t for s in adjectives for t in _pointed(s, ("+", "\\")))


@lru_cache(maxsize=16384)
def _register_union(common: tuple[Synset, ...]) -> frozenset[Synset]:
    """The hypernyms any of these senses is only another register's name for."""
    return frozenset(u for t in common for u in _register_variant(t))


@lru_cache(maxsize=16384)
def _premise_view(p_word: str, premise_pos: str | None) -> _PremiseView:
    main = premise_pos if premise_pos and lemmas(p_word, premise_pos) else dominant(p_word)
    p_syn = {pos: v for pos, v in _synsets(p_word, PREMISE_SENSES).items() if pos == main}
    nouns = frozenset(p_syn.get("n", ())[:PREMISE_SENSES])
    adjectives = p_syn.get("a", ())[:COMMON_SENSES]
    if main not in p_syn:
        empty: frozenset[Synset] = frozenset()
        return _PremiseView(None, empty, nouns, adjectives, empty, (), empty, empty, empty)
    senses = p_syn[main]
    first = senses[:HYPERNYM_SENSES]
    second = _second_senses(p_word, main, senses)
    return _PremiseView(
        main,
        frozenset(senses),
        nouns,
        adjectives,
        frozenset(t for s in first for t in _ancestors(s, HYPERNYM_DEPTH)),
        (*first, *second),
        frozenset(t for s in first for t, d in _ancestors(s, NEAR_GENERAL).items() if d),
        frozenset(t for s in second for t in _ancestors(s, HYPERNYM_DEPTH)),
        frozenset(u for f in first for u in _pointed(f, _UP)),
    )


@lru_cache(maxsize=16384)
def _claim_view(c_word: str, claim_pos: str | None) -> _ClaimView:
    c_syn = _synsets(c_word, CLAIM_SENSES)
    if claim_pos and claim_pos in c_syn:
        c_syn = {claim_pos: c_syn[claim_pos]}
    by_pos: dict[str, _ClaimSide] = {}
    for pos, senses in c_syn.items():
        common = _common(c_word, pos)
        targets = frozenset(t for t in senses if pos != "n" or _height(t) >= GENERAL_DEPTH)
        by_pos[pos] = _ClaimSide(
            frozenset(senses),
            common,
            targets,
            frozenset(common) - targets,
            targets.intersection(common),
            frozenset(u for t in senses[:EXCLUSIVE_SENSES] for u in _pointed(t, _UP)),
        )
    return _ClaimView(by_pos, frozenset(c_syn.get("n", ())[:PREMISE_SENSES]), c_syn.get("a", ())[:COMMON_SENSES])


# WordNet's lexicographer file of nouns for people (lexnames: 18 noun.person).
_NOUN_PERSON = 18


def _second_senses(word: str, pos: str, synsets: tuple[Synset, ...]) -> tuple[Synset, ...]:
    """The premise word's second senses that may speak for it. A sense naming a person
    speaks only for a word one of whose lemmas names a person first: "a dog", "a pig"
    (animals) are no person though WordNet also lists them as slang for one ("men" is
    "man", a person first; "girl" is a young woman first and a female child second)."""
    second = synsets[HYPERNYM_SENSES:SECOND_SENSES]
    if pos != "n":
        return second
    firsts = [_senses(lemma, pos)[0] for lemma in lemmas(word, pos)]
    if any(_lexfile(f) == _NOUN_PERSON for f in firsts):
        return second
    return tuple(s for s in second if _lexfile(s) != _NOUN_PERSON)


@lru_cache(maxsize=16384)
def _common(word: str, pos: str) -> tuple[Synset, ...]:
    """The commonest senses of each of ``word``'s lemmas ("people": its own and those of
    "person", whose plural it also is)."""
    return tuple(_synsets(word, COMMON_SENSES).get(pos, ()))


@lru_cache(maxsize=16384)
def _qualified_heads(synsets: tuple[Synset, ...]) -> tuple[str, ...]:
    """Nouns the synsets' lemmas qualify with an adjective ("male_child" -> "child")."""
    out = []
    for synset in synsets:
        for lemma in sorted(_record(synset)[0]):
            parts = lemma.split("_")
            if len(parts) == 2 and _senses(parts[0], "a") and _senses(parts[1], "n"):
                out.append(parts[1])
    return tuple(out)


@lru_cache(maxsize=16384)
def _exclusive_view(
    word: str, pos: str | None
) -> tuple[dict[str, tuple[Synset, ...]], frozenset[Synset], frozenset[Synset]]:
    """A word's senses as ``relation`` reads them for exclusion (its part of speech, and
    the adjective), the synsets near them (their heads and hypernyms) and the antonyms
    of those: two words are antonyms when one's near synsets meet the other's antonyms."""
    main = pos if pos and lemmas(word, pos) else dominant(word)
    # Adjectives keep their antonyms even where the noun has more senses ("white").
    ex = {k: v for k, v in _synsets(word, EXCLUSIVE_SENSES).items() if k in (main, "a")}
    near = frozenset(h for syns in ex.values() for s in syns for h in (*_heads(s), *_pointed(s, _UP)))
    opposed = frozenset(t for h in near for t in _pointed(h, ("!",)))
    return ex, near, opposed


def _sisters(a: tuple[Synset, ...], b: tuple[Synset, ...]) -> bool:
    da, db_ = COHYPONYM_DEPTH
    for x in a:
        up_x = _ancestors(x, db_)
        for y in b:
            up_y = _ancestors(y, db_)
            if x in up_y or y in up_x:
                return False  # one is a kind of the other: not exclusive
            for s, level in up_x.items():
                other = up_y.get(s)
                if s in (x, y) or other is None or min(level, other) > da:
                    continue
                if _root_depth(s) >= ROOT_DEPTH:
                    return True
    return False


def licenses(
    premise: str,
    claim: str,
    premise_pos: str | None = None,
    claim_pos: str | None = None,
) -> bool:
    """Whether a premise that says ``premise`` also says ``claim`` of the same thing."""
    return _licensing(premise.lower(), claim.lower(), premise_pos, claim_pos) is not None


_GLOSS_WORD = re.compile(r"[a-z][a-z-]*")


@lru_cache(maxsize=16384)
def defined_as(noun: str, adjective: str, head: str) -> bool:
    """Whether WordNet's gloss of ``noun`` in its first sense opens with a noun phrase
    whose head is ``head`` and that ``adjective`` qualifies: "toddler: a *young child*",
    "puppy: a *young dog*", "stallion: uncastrated adult *male horse*"."""
    if _db() is None:
        return False
    qualities = {adjective.lower(), *lemmas(adjective, "a")}
    for lemma in lemmas(noun, "n"):
        first = _senses(lemma, "n")[:1]
        words = _opening(first[0]) if first else ()
        if not qualities.intersection(words):
            continue
        heads = set(lemmas(head, "n"))
        for i, w in enumerate(words):
            if w in heads or set(lemmas(w, "n")) & heads or relation(w, head, "n", "n") == "synonym":
                return bool(qualities.intersection(words[:i]))
    return False


@lru_cache(maxsize=16384)
def _opening(synset: Synset) -> tuple[str, ...]:
    """The words of the noun phrase a synset's gloss opens with, less its article ("a
    young child who is learning to walk": young, child)."""
    db = _db()
    assert db is not None
    line = db.data_line(*synset)
    gloss = line.split(b"|", 1)[1].decode("latin-1").strip().lower() if b"|" in line else ""
    words: list[str] = []
    for part in gloss.split():
        if not _GLOSS_WORD.fullmatch(part):
            if (w := part.rstrip(";,:")) and _GLOSS_WORD.fullmatch(w):
                words.append(w)
            break  # the opening phrase ends at its first punctuation
        words.append(part)
    if words[:1] in (["a"], ["an"]):
        words = words[1:]
    out: list[str] = []
    for w in words:
        if not (lemmas(w, "a") or lemmas(w, "n") or w == "very"):
            break  # "a young child who …": the phrase ends before "who"
        out.append(w)
    return tuple(out)


@lru_cache(maxsize=16384)
def collocation_licenses(phrase: str, claim: str) -> bool:
    """Whether a two-word noun of the premise that WordNet lists ("young woman", "hot
    dog"), read in its first sense only, says the noun ``claim``: the same synset
    ("girl": *girl, miss, young lady, young woman*) or a hypernym of it. One sense, as a
    collocation's later senses drift ("young man" is also a boyfriend)."""
    if _db() is None:
        return False
    first = [s for lemma in lemmas(phrase, "n") for s in _senses(lemma, "n")[:1]][:1]
    c_syn = _synsets(claim.lower(), CLAIM_SENSES).get("n", ())
    if not first or not c_syn:
        return False
    if first[0] in c_syn:
        return True
    targets = {t for t in c_syn if _height(t) >= GENERAL_DEPTH}
    return not targets.isdisjoint(_ancestors(first[0], HYPERNYM_DEPTH))


def exclusive(
    premise: str,
    claim: str,
    premise_pos: str | None = None,
    claim_pos: str | None = None,
) -> bool:
    """Whether the two words cannot both hold of one thing (antonyms, co-hyponyms)."""
    return relation(premise, claim, premise_pos, claim_pos) in ("antonym", "cohyponym")
