"""A shallow reading of who does what: verbs, their agents and patients, modifiers.

Coverage and word-by-word accounting cannot tell "a man is cutting an onion" from
"a man is eating a cut onion", "sitting on the grass" from "a grass hat", or "a clown
is singing" from "people are singing and a clown is dancing": every word is there.
This module reads each sentence of a prepared text once, left to right, with a few
rules over closed-class words (determiners, auxiliaries, prepositions) and WordNet's
parts of speech, into one tag per content token:

- ``V``: a verb in use ("is *cutting*", "was *released*", "a man *riding* a horse"),
  with its agent and patient tokens when they can be read (active: subject and
  object; passive: the "by" phrase and the subject);
- ``N``: the head of a noun phrase ("a grass *hat*");
- ``M``: a modifier inside a noun phrase, with its head ("a *grass* hat");
- ``J``: a predicate after a form of "be" that is not a verb ("the dog is *brown*"),
  with its subject.

A token the rules cannot place is left untagged, and the support test reads only
tags it has on both sides: a shallow reading may fail to see a difference (support
then rests on the other tests), but it must not invent one in plain prose. No parser
model is needed, so nothing is downloaded and the cost is one pass per sentence
(docs/adr/0019-shallow-roles.md).

This module holds the vocabulary and the ``Reading`` record with the word tests both
passes share; ``reading.read`` reads a text, ``tagging`` and ``linking`` are its passes.

    >>> from .lexical import prepare
    >>> from .reading import read
    >>> r = read(prepare("A man is eating a cut onion"))
    >>> [(prepare("A man is eating a cut onion").low[x], t) for x, t in enumerate(r.tag) if t]
    [('man', 'N'), ('eating', 'V'), ('cut', 'M'), ('onion', 'N')]
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text.english import BE_FORMS, CLAUSE_LINKS, PREPOSITIONS, VERB_ADVERBS
from . import lexicon
from .lexical import Prepared

__all__ = ["Reading", "manner_adverb", "partners", "pos_of"]


@dataclass(frozen=True, slots=True)
class Reading:
    """Per token: ``tag`` (V, N, M, J or None), ``head`` (for M the head noun, for J
    the subject), and for V ``agent``/``patient`` token indices (-1 when unknown) and
    ``passive``; ``firm``: a noun or modifier in a phrase a determiner opened, of at most
    three words (only such readings are held against another: "at sea level water
    boils" runs three nouns together that are no compound); ``aux``: the verb follows an auxiliary (it heads its clause, where a
    bare participle may only qualify a noun: "a man *riding* a horse is jumping")."""

    tag: list[str | None]
    head: list[int]
    agent: list[int]
    patient: list[int]
    passive: list[bool]
    aux: list[bool]
    firm: list[bool]  # N/M in a short phrase opened by a determiner ("a grass hat")
    done: set[int]  # sentences read so far
    # For a passive verb with an object: its subject, who receives ("a snake is being
    # fed a mouse": the snake).
    recipient: list[int]


def skip_back(p: Prepared, x: int, lo: int) -> int:
    """The token before ``x`` (down to ``lo``) that is not an adverb."""
    y = x - 1
    while y >= lo and (p.low[y] in VERB_ADVERBS or (p.low[y].endswith("ly") and len(p.low[y]) > 4)):
        y -= 1
    return y


def verbal(word: str) -> bool:
    return bool(lexicon.lemmas(word, "v"))


def nominal(word: str) -> bool:
    """Can be a noun or an adjective (or is unknown to WordNet: names, numbers)."""
    if not lexicon.available():
        return True
    if lexicon.lemmas(word, "n") or lexicon.lemmas(word, "a"):
        return True
    return not verbal(word)


def participle(word: str) -> bool:
    return word.endswith(("ing", "ed")) or word in _irregular()


def _irregular() -> frozenset[str]:
    return lexicon.verb_forms()


def next_word(p: Prepared, x: int, t1: int) -> str:
    return p.low[x + 1] if x + 1 < t1 and p.clause[x + 1] == p.clause[x] else ""


def manner_adverb(word: str) -> bool:
    """"carefully", "strongly": a manner adverb, which belongs to no noun phrase."""
    return word.endswith("ly") and bool(lexicon.lemmas(word, "r")) and not lexicon.lemmas(word, "n")


def capital(p: Prepared, x: int) -> bool:
    return p.text[p.starts[x]].isupper()


def verbal_form(word: str) -> bool:
    return word.endswith("ing") and verbal(word)


def np_head(p: Prepared, r: Reading, x: int, t1: int) -> int:
    """The head of the noun phrase starting at or after ``x`` (same clause), or -1."""
    clause = p.clause[x] if x < t1 else -1
    y = x
    while y < t1 and p.clause[y] == clause and r.tag[y] is None and not plain(p, y):
        if p.low[y] in PREPOSITIONS or p.low[y] in BE_FORMS or p.low[y] in CLAUSE_LINKS:
            return -1
        y += 1
    while y < t1 and (r.tag[y] == "M" and (p.clause[y] == clause or in_list(p, r, y)) or list_link(p, r, y, t1)):
        y += 1
    return y if y < t1 and r.tag[y] == "N" else -1


def adjective(p: Prepared, y: int) -> bool:
    return bool(lexicon.lemmas(p.low[y], "a")) and not verbal_form(p.low[y])


def list_link(p: Prepared, r: Reading, y: int, t1: int) -> bool:
    """"and"/"or" between two modifiers of one head ("black *and* white uniforms")."""
    return p.low[y] in ("and", "or") and y + 1 < t1 and r.tag[y + 1] == "M" and y > 0 and r.tag[y - 1] == "M"


def in_list(p: Prepared, r: Reading, y: int) -> bool:
    """Modifier ``y`` follows a listed modifier across a comma ("black, *pink*")."""
    return y > 0 and r.tag[y - 1] == "M" and p.clause[y - 1] != p.clause[y]


def plain(p: Prepared, y: int) -> bool:
    """A content word (not a stop word, not a figure)."""
    k = p.keys[y]
    return k is not None and not k.startswith("#")


# Participles of purpose: their "for" phrase says what a thing is for ("a bike designed
# for motocross" is a motocross bike), not another thing.
PURPOSE = frozenset(("bred", "built", "designed", "made", "meant", "intended", "used", "suited"))


_POS = {"V": "v", "N": "n"}


def pos_of(p: Prepared, r: Reading, x: int) -> str | None:
    """WordNet's part of speech for token ``x`` as read (a modifier: adjective if it
    can be one), or None."""
    t = r.tag[x]
    if t in ("M", "J"):
        return "a" if lexicon.lemmas(p.low[x], "a") else "n"
    return _POS.get(t)  # type: ignore[arg-type]


def partners(p: Prepared, r: Reading, z: int) -> list[int]:
    """``z`` and the heads joined to it by "and"/"or" ("a man and a woman")."""
    out = [z]
    if z < 0:
        return out
    # The words of one name: "King Harold II".
    for step in (1, -1):
        y = z + step
        while 0 <= y < len(p.low) and r.tag[y] == "N" and capital(p, y) and capital(p, z):
            out.append(y)
            y += step
    for step in (1, -1):
        y = z + step
        while 0 <= y < len(p.low) and p.clause[y] == p.clause[z]:
            w = p.low[y]
            if r.tag[y] == "N" and y != z:
                if any(p.low[q] in ("and", "or") for q in range(min(y, z), max(y, z))):
                    out.append(y)
                break
            if r.tag[y] not in (None, "M") or (w in PREPOSITIONS):
                break
            y += step
    return out


