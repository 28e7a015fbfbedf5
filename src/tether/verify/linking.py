"""Linking: each tagged verb's agent and patient, each modifier's head, each
predicate's subject, read across the sentence's clauses, relatives and lists (the
second pass of ``reading.read``; docs/adr/0019-shallow-roles.md).
"""

from __future__ import annotations

from ..text.english import (
    BASE_FORM_AUXILIARIES,
    BE_FORMS,
    CLAUSE_LINKS,
    DETERMINERS,
    HAVE_FORMS,
    PASSIVE_AUXILIARIES,
    PREPOSITIONS,
    RELATIVE_PRONOUNS,
    VERB_ADVERBS,
)
from . import lexicon
from .lexical import Prepared
from .shallow import PURPOSE, Reading, list_link, manner_adverb, np_head, skip_back

def _subject_of(r: Reading, v: int) -> int:
    return r.patient[v] if r.passive[v] else r.agent[v]


def _subject(p: Prepared, r: Reading, v: int, t0: int, last_verb: int, last_any: int) -> int:
    """The subject of verb/predicate ``v``: the antecedent of a "who/which/that" just
    before it; a governing verb's subject ("preparing to jump", "standing and
    burning"); else the first head noun after the previous verb with an auxiliary (after
    the last "and" when a verb came before: "… is pushed by her father and another
    girl is watching"), or of the sentence."""
    y = v - 1
    while y >= t0 and (p.low[y] in BE_FORMS or p.low[y] in HAVE_FORMS or p.low[y] in VERB_ADVERBS
                       or p.low[y] in PASSIVE_AUXILIARIES or p.low[y] in BASE_FORM_AUXILIARIES or manner_adverb(p.low[y])):  # fmt: skip
        y -= 1
    if y >= t0 and p.low[y] in RELATIVE_PRONOUNS:
        return _antecedent(p, r, y, t0)
    if y >= t0 and p.clause[y] != p.clause[v]:
        # Asides between commas: "a child, who looks young, is standing", "a person who
        # rides bikes, in a black uniform, is standing": the child, the person is.
        moved = False
        while (opens := _aside_opening(p, y, t0, r)) >= 0:
            y, moved = opens - 1, True
        relative = next((q for q in range(_clause_start(p, y, t0), y + 1) if p.low[q] in RELATIVE_PRONOUNS), -1)
        if moved and relative > t0:
            return _antecedent(p, r, relative, t0)
    if y >= t0 and r.tag[y] == "V" and p.low[y + 1] == "to":
        return _subject_of(r, y)
    if y >= t0 and p.low[y] in CLAUSE_LINKS and last_any >= t0:
        # "not wearing goggles and swimming": the verbs share their subject.
        prior = last_verb if last_verb >= t0 else last_any
        return _subject_of(r, _outer_verb(p, r, prior, v, t0))
    z = _subject_before(p, r, y, t0)
    if z >= 0:
        return z
    if last_verb >= t0:
        return _subject_of(r, last_verb)
    return -1


def _antecedent(p: Prepared, r: Reading, y: int, t0: int) -> int:
    """The noun a relative pronoun at ``y`` stands for: the nearest noun before it, and
    for "who" the nearest that names a person ("a person with a back pack, who is
    topless": not the pack)."""
    nouns = [z for z in range(y - 1, t0 - 1, -1) if r.tag[z] == "N"]
    if len(nouns) > 1 and nouns[0] >= 2 and p.low[nouns[0] - 1] == "for" and p.low[nouns[0] - 2] in PURPOSE:
        nouns = nouns[1:]  # "a bike designed for motocross that is lying": the bike is
    if p.low[y] == "who":
        people = [z for z in nouns if lexicon.kind_of(p.low[z], "person")]
        if people:
            return people[0]
    return nouns[0] if nouns else -1


def _clause_start(p: Prepared, y: int, t0: int) -> int:
    s = y
    while s > t0 and p.clause[s - 1] == p.clause[y]:
        s -= 1
    return s


def _aside_opening(p: Prepared, y: int, t0: int, r: Reading | None = None) -> int:
    """The relative pronoun or preposition opening the clause of token ``y`` when that
    clause is an aside ("…, who looks young,", "…, in a black uniform,"), or -1."""
    if y < t0:
        return -1
    s = _clause_start(p, y, t0)
    participle = r is not None and r.tag[s] == "V" and not r.aux[s]  # ", perched on a cabinet,"
    return s if s > t0 and (p.low[s] in RELATIVE_PRONOUNS or p.low[s] in PREPOSITIONS or participle) else -1


# Participles that are stop words, left untagged, which still qualify the noun before
# them: "a man *doing* a pose is watched".
_STOP_PARTICIPLES = frozenset(("doing", "having"))


_SINGULAR_BE = frozenset(("is", "was"))


_PLURAL_BE = frozenset(("are", "were"))


def _number(p: Prepared, x: int, t0: int) -> frozenset[str] | None:
    """The number of the form of "be" right before verb ``x`` ("is": singular)."""
    y = skip_back(p, x, t0)
    if y < t0 or p.low[y] not in _SINGULAR_BE | _PLURAL_BE:
        return None
    return _SINGULAR_BE if p.low[y] in _SINGULAR_BE else _PLURAL_BE


def _outer_verb(p: Prepared, r: Reading, prior: int, v: int, t0: int) -> int:
    """The verb whose subject ``v`` (after "and") shares: ``prior``, unless ``prior``
    says its subject in another number than ``v`` and that subject is the object of an
    earlier verb — "a man is wearing clothes that *are* covered and *is* sitting": the
    man sits."""
    mine, theirs = _number(p, v, t0), _number(p, prior, t0)
    subject = _subject_of(r, prior)
    if mine is None or theirs is None or mine == theirs or subject < 0:
        return prior
    outer = [u for u in range(t0, prior) if r.tag[u] == "V" and r.patient[u] == subject]
    return outer[-1] if outer else prior


def _subject_before(p: Prepared, r: Reading, y: int, t0: int) -> int:
    """Walk back from ``y`` over noun phrases to the subject: a phrase after a
    preposition ("a man *in a hat* is") or a participle ("a man *riding a horse* is")
    qualifies the one before it; after "and" a new subject may start ("… is singing
    and *a clown* is dancing") unless the walk reaches the sentence start ("*a man*
    and a woman are")."""
    after_link = -1
    found = -1
    while y >= t0:
        while y >= t0 and r.tag[y] != "N":
            if r.tag[y] == "V" and r.aux[y]:
                return after_link if after_link >= 0 else found
            if after_link >= 0 and p.low[y] in BE_FORMS and p.low[y] != "'s":
                return after_link  # "a player is on the floor and another one is …"
            y -= 1
        if y < t0:
            break
        z = y
        w = z - 1
        while w >= t0 and (r.tag[w] in ("N", "M") or p.low[w] in DETERMINERS or manner_adverb(p.low[w])
                           or list_link(p, r, w, len(p.low))):  # fmt: skip
            w -= 1
        found = z if r.tag[w + 1] != "N" or w + 1 == z else w + 1
        if w < t0 or p.clause[w] != p.clause[z] and p.low[w] not in RELATIVE_PRONOUNS:
            return found
        word = p.low[w]
        if word in CLAUSE_LINKS:
            after_link = found
        elif not (word in PREPOSITIONS or (r.tag[w] == "V" and not r.aux[w]) or word in _STOP_PARTICIPLES):
            return after_link if after_link >= 0 and r.tag[w] == "V" else found
        y = w - 1
    return found


def link_sentence(p: Prepared, r: Reading, t0: int, t1: int) -> None:
    tag = r.tag
    last_verb = -1  # the last verb with an auxiliary: a clause boundary
    last_any = -1
    for x in range(t0, t1):
        t = tag[x]
        if t == "M":
            z = x + 1
            while z < t1 and (tag[z] == "M" or list_link(p, r, z, t1)):
                z += 1
            r.head[x] = z if z < t1 and tag[z] == "N" else -1
        elif t == "J":
            if x > t0 and tag[x - 1] == "N" and x + 1 < t1 and p.low[x + 1] == "of":
                r.head[x] = x - 1  # "an area full of grass"
            elif x - 2 >= t0 and tag[x - 1] == "V" and r.passive[x - 1] and not r.aux[x - 1] and tag[x - 2] == "N":
                r.head[x] = x - 2  # "a room painted beige": the room is beige
            elif r.head[x] == -2:
                r.head[x] = next((r.head[y] for y in range(x - 1, t0 - 1, -1) if tag[y] == "J"), -1)
            else:
                r.head[x] = _subject(p, r, x, t0, last_verb, last_any)
        elif t == "V":
            subj = _subject(p, r, x, t0, last_verb, last_any)
            if r.passive[x] and not r.aux[x] and x + 1 < t1 and tag[x + 1] == "J" and tag[x - 1] == "N":
                r.patient[x] = x - 1  # "a room painted beige": the room is painted
            elif r.passive[x]:
                # "a snake is being fed a mouse by a man": the mouse is what is fed.
                r.patient[x] = obj if (obj := np_head(p, r, x + 1, t1)) >= 0 else subj
                r.recipient[x] = subj if obj >= 0 else -1
                r.agent[x] = _by_phrase(p, r, x, t1)
            else:
                r.agent[x] = subj
                r.patient[x] = np_head(p, r, x + 1, t1)
            if r.aux[x]:
                last_verb = x
            last_any = x


def _by_phrase(p: Prepared, r: Reading, v: int, t1: int) -> int:
    """The head after "by" in the verb's clause, within a few words."""
    for y in range(v + 1, min(t1, v + 7)):
        if p.clause[y] != p.clause[v]:
            return -1
        if p.low[y] == "by":
            return np_head(p, r, y + 1, t1)
    return -1
