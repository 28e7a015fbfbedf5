"""Roles: three aligned words in the claim's order ``x … v … y`` that the passage has
as ``y … v … x`` (no passive "by" between) are roles reversed, contradicted; a verb
and its object that the passage has as a noun and a participle ("playing a trumpet",
"a trumpet playing") caps the claim at ``mentioned``.
"""

from __future__ import annotations

import itertools

from . import lexicon
from .account import RELATION_WORDS
from .align import Alignment
from .lexical import Prepared
from .reading import read
from .shallow import manner_adverb

# A clause too long to compare word orders in: its roles are not read (bounded cost).
_MAX_ROLE_WORDS = 12


def unique_positions(a: Alignment) -> list[tuple[int, int]]:
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


def reversed_roles(a: Alignment) -> str | None:
    c, p = a.claim, a.passage
    seq = unique_positions(a)[:_MAX_ROLE_WORDS]
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
                if participle_compound(c, xj, p, pj, pk):
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


def participle_compound(c: Prepared, xj: int, p: Prepared, pj: int, pk: int) -> bool:
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


def participle_turned(a: Alignment) -> str | None:
    """"playing a trumpet" against "a trumpet playing": the verb and its object in
    the claim are noun and participle in the passage, which binds them otherwise."""
    c, p = a.claim, a.passage
    seq = unique_positions(a)
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
        if _passive(c, x1) or _passive(p, p1) or participle_compound(c, x1, p, p1, p2):
            continue
        return f"roles:'{c.low[x1]} … {c.low[x2]}' is '{p.low[p2]} {p.low[p1]}' in the passage"
    return None
