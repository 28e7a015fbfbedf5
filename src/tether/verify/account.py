"""The relation words the accounting reads: the prepositions and particles that bind
two content words, read as the relation they state ("into" is "in", "close to" is
"near", "at the foot of" states "near"), and the exclusive pairs among them (onto/off,
in/out).

The accounting itself (every claim word accounted for) is ``accounting``; these tables
and readings are what its parts share: ``relations`` compares relation words between
the claim and the window, ``roles`` leaves them out of word order, and
``wording_licences`` reads a claim word spelt as one.
"""

from __future__ import annotations

from ..text.english import EXCLUSIVE_RELATIONS, RELATION_WORDS, SAME_RELATION
from . import lexicon
from .lexical import Prepared
from .reading import read


def between(p: Prepared, i: int, j: int) -> set[str]:
    """Relation words among tokens ``[i, j)``, less the "to" of a range ("2 to 5")."""
    keys = p.keys
    words = [
        p.low[y] for y in range(max(i, 0), j)
        if not (0 < y < len(keys) - 1 and (keys[y - 1] or "").startswith("#")
                and (keys[y + 1] or "").startswith("#"))
    ]  # fmt: skip
    return relation_set(words)


def relation_set(words: list[str]) -> set[str]:
    # Two-word prepositions that are one relation: "close to" is "near", "on top of" is "on".
    for x in range(len(words) - 1):
        if (pair := _TWO_WORD.get((words[x], words[x + 1]))) is not None:
            words = [*words[:x], pair, *words[x + 2 :]]
            break
    found = {SAME_RELATION.get(w, w) for w in words if w in RELATION_WORDS} - {"of"}
    if not _FOOT.isdisjoint(words) and any(at_foot(words, x) for x in range(len(words))):
        found.add(_AT_FOOT)  # "at the base of the cliff": at it, and near it (``implied``)
    return found


_TWO_WORD = {("close", "to"): "near", ("near", "to"): "near", ("on", "top"): "on"}


# "At the base / the foot of X" is at X, and near it; the marker stands for the phrase
# among relation words and states only "near" (one way).
_FOOT = frozenset(("base", "foot"))


_AT_FOOT = "at-foot"


def at_foot(words: list[str], x: int) -> bool:
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
NEAR_BY = frozenset(("beside", "next", "against", "front", "behind", "alongside"))


def implied(found: set[str], said: set[str]) -> set[str]:
    """The window's relation words, each read as the claim's word it states."""
    out = {w if _IMPLIES.get(w) not in said else _IMPLIES[w] for w in found}
    foot = _AT_FOOT in out and _AT_FOOT not in said
    if foot:
        out.discard(_AT_FOOT)
    if "near" in said and (out & NEAR_BY or foot):
        # "in front of": its "in" goes with "front"; "at the base of": its "at".
        out = (out - NEAR_BY - ({"in"} if "front" in out else set()) - ({"at"} if foot else set())) | {"near"}
    return out


def trailing(p: Prepared, z: int) -> list[str]:
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


def relation_before(p: Prepared, y: int) -> set[str]:
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
    return relation_set(words[::-1])


# "A man in a hat", "a man with a hat" and "a man wearing a hat" say one thing of him.
WEAR = frozenset(("wear", "dress"))


def worn_at(p: Prepared, z: int) -> bool:
    """Token ``z`` is (or modifies) an article of clothing (WordNet)."""
    r = read(p, z, z + 1)
    head = r.head[z] if r.tag[z] == "M" and r.head[z] >= 0 else z
    return lexicon.kind_of(p.low[head], "clothing")


def _wears(p: Prepared, i: int, j: int) -> bool:
    return any(set(lexicon.lemmas(p.low[y], "v")) & WEAR for y in range(max(i, 0), j))


def worn(p: Prepared, i: int, j: int, words: set[str]) -> set[str]:
    """The relation words before a garment, with "with" and a form of "wear" read as "in"."""
    if words <= {"in", "with"} and (words or _wears(p, i, j)):
        return {"in"}
    return words
