"""The relation words between aligned neighbours must agree: an exclusive change
(onto/off, in/out) contradicts, any other change caps the claim at ``mentioned``; each
relation word of the claim must govern the same phrase in the window ("on display").
"""

from __future__ import annotations

import itertools

from .account import (
    EXCLUSIVE_RELATIONS,
    RELATION_WORDS,
    between,
    implied,
    relation_before,
    relation_set,
    trailing,
    worn,
    worn_at,
)
from .align import Alignment, Finding
from .lexical import Prepared
from .reading import read
from .roles import participle_compound, unique_positions
from .shallow import PURPOSE, Reading

# How far apart two aligned neighbours may be for the words between them to be read.
_RELATION_REACH = 8


def _exclusive_change(pair: tuple[str, str]) -> Finding:
    return Finding("contradiction", "contradicts", "relation", f"relation:'{pair[0]}' vs '{pair[1]}'", "relation-words")


def check_governing(a: Alignment, sources: dict[int, list[int]]) -> tuple[list[str], list[Finding]]:
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
        said = relation_before(c, y)
        if not said:
            continue
        places = a.positions.get(k, []) if k in a.matched else sources[y]
        mine = [x for x, key in enumerate(c.keys) if key == k]
        if k in a.matched and len(places) == len(mine) > 1:
            places = [places[mine.index(y)]]  # one occurrence each: the same one in order
        # A modifier's relation word governs its head ("in a cattle pen"): unknown.
        rp = read(p, a.t0, a.t1)
        found = [set() if rp.tag[z] == "M" else implied(relation_before(p, z), said) for z in places]
        if read(c).tag[y] == "M" or not found or any(not f or f & said for f in found):
            continue
        theirs = sorted(found[0])
        pair = next(((s, f) for s in sorted(said) for f in theirs if frozenset((s, f)) in EXCLUSIVE_RELATIONS), None)
        if pair is not None:
            findings.append(_exclusive_change(pair))
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
    if "by" in c.low[left + 1 : right] or participle_compound(c, left, p, pl, pr):
        return True
    if rp.tag[pr] == "M" and rp.head[pr] == pl:
        return True
    # "At sea level water boils": the phrase moved whole, its relation word with it.
    return bool(between(c, left + 1, right) & between(p, pr - 3, pr))


def check_relations(a: Alignment, own: frozenset[int] = frozenset()) -> tuple[list[str], list[Finding]]:
    """The relation words between aligned neighbours (``own``: claim tokens of a phrase
    accounted as a whole, whose relation word binds neither neighbour)."""
    c, p = a.claim, a.passage
    where = dict(unique_positions(a))
    rp = read(p, a.t0, a.t1)
    caps: list[str] = []
    findings: list[Finding] = []
    anchored = sorted(where)
    spans: list[tuple[set[str], set[str]]] = []
    for left, right in itertools.pairwise(anchored):
        pl, pr = where[left], where[right]
        if c.clause[left] != c.clause[right] or p.sent[pl] != p.sent[pr]:
            continue
        said = between(c, left + 1, right) - {c.low[y] for y in own if left < y < right}
        if pr < pl or pr - pl > _RELATION_REACH:
            if said and pr < pl and not _reordered_alike(c, p, rp, left, right, pl, pr):
                # "a man in a hat" from "a harp played with a hat by a man".
                caps.append(f"relation:'{'/'.join(sorted(said))}' binds '{c.low[left]}' and "
                            f"'{c.low[right]}', which the passage has the other way round")  # fmt: skip
            continue
        found = between(p, pl + 1, pr) - _particle(p, pl)
        said -= _particle(c, left)
        if found and not said and any(rp.tag[z] not in ("M", None) for z in range(pl + 1, pr)):
            continue  # "a man in a hat is playing": the phrase qualifies the left word
        if (head := _head_before_phrase(a, left, right, pl, pr)) >= 0:
            # "near the red ball" from "near a ball colored in red", "in a cowboy hat"
            # from "in a hat suited for cowboys": the claim's modifier is the phrase
            # after its head, whose relation word binds no other word.
            found = between(p, pl + 1, head) - _particle(p, pl)
        if worn_at(c, right):
            said, found = worn(c, left + 1, right, said), worn(p, pl + 1, pr, found)
        if said and said < found and relation_before(p, pr) == said and _aside(a, left, pl, pr):
            # The premise adds a phrase on the way: "walking with difficulty across the
            # snow" is walking across the snow, "oil for cooking into a pot" cooking oil.
            found = said
        spans.append((said, found))
    if anchored:
        last = anchored[-1]
        said = relation_set(trailing(c, last))
        if said and not any(k for k in c.keys[last + 1 :] if k and k not in RELATION_WORDS):
            spans.append((said, relation_set(trailing(p, where[last]))))
    for said, found in spans:
        if said == implied(found, said):
            continue
        pair = next(((s, f) for s in sorted(said) for f in sorted(found)
                     if frozenset((s, f)) in EXCLUSIVE_RELATIONS), None)  # fmt: skip
        mine, theirs = (
            "/".join(sorted(said)) or "none",
            "/".join(sorted(found)) or "none",
        )
        if pair is not None:
            findings.append(_exclusive_change(pair))
        caps.append(f"relation:'{mine}' where the passage has '{theirs}'")
    return caps, findings


COLOURED = frozenset(("colored", "coloured", "dyed"))


# Participles that open a phrase after a noun standing for a modifier before it.
_POSTPOSED = PURPOSE | COLOURED


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
            if rest and all(p.keys[z] is None for z in rest) and between(p, y + 2, pr):
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
