"""Alignment: the passage window that covers a claim best, and what the checks read.

Coverage is measured on windows of at most three consecutive passage sentences, so a
long passage cannot "support" a sentence with words scattered over pages; the window
with the most claim keys (then the shortest) is the span the support rests on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from .lexical import Prepared

__all__ = [
    "Alignment", "Finding", "Window", "align", "anchors", "best_windows", "context_keys",
    "core_span",
]  # fmt: skip

Gate = Literal["contradiction", "figures"]
Effect = Literal["contradicts", "missing"]


@dataclass(frozen=True, slots=True)
class Window:
    """Consecutive sentences ``first..last`` of a passage and the claim keys they hold."""

    first: int
    last: int
    matched: frozenset[str]
    coverage: float


@dataclass(frozen=True, slots=True)
class Finding:
    """One fired check. ``contradicts`` makes the pair ``contradicted``; ``missing``
    (a figure, year or name of the sentence the region lacks) caps it at ``mentioned``."""

    gate: Gate
    effect: Effect
    checker: str
    reason: str
    rule: str  # the rule that fired (``rules.RULES``)


@dataclass(frozen=True, slots=True)
class Alignment:
    """The claim against one window of the passage.

    ``t0..t1`` are the window's passage tokens, ``c0..c1`` the shortest stretch of them
    holding every matched key (the "core" the polarity checks read), ``start..end``
    the window in passage characters.
    """

    claim: Prepared
    passage: Prepared
    t0: int
    t1: int
    c0: int
    c1: int
    start: int
    end: int
    matched: frozenset[str]
    coverage: float
    positions: dict[str, list[int]]  # key -> passage token indices inside the window
    main: int  # the window sentence holding most of the claim's keys


def align(claim: Prepared, passage: Prepared, window: Window) -> Alignment:
    t0 = passage.sent_tokens[window.first][0]
    t1 = passage.sent_tokens[window.last][1]
    c0, c1 = core_span(passage, t0, t1, window.matched)
    start = passage.sentences[window.first][0]
    end = passage.sentences[window.last][1]
    positions: dict[str, list[int]] = {}
    wanted = claim.key_set
    keys = passage.keys
    for x in range(t0, t1):
        k = keys[x]
        if k in wanted:
            positions.setdefault(k, []).append(x)
    # Rare words weigh more; a tie goes to the sentence with the claim's first words.
    # fsum: a set hands its keys out in an order that follows the hash seed, and a
    # plain float sum differs in its last bits by order, enough to break a tie.
    head = {k for k in claim.keys[:4] if k}
    main = max(
        range(window.first, window.last + 1),
        key=lambda i: (
            math.fsum(1 / len(passage.index[k]) for k in passage.sent_keys[i] & window.matched),
            len(passage.sent_keys[i] & head),
            -i,
        ),
    )
    return Alignment(
        claim, passage, t0, t1, c0, c1, start, end, window.matched, window.coverage, positions, main
    )


def anchors(a: Alignment, s: int, e: int, *, reach: int = 2) -> dict[int, int]:
    """Passage tokens where claim tokens ``[s, e)`` would sit, scored by their neighbours.

    The nearest ``reach`` keyed claim tokens on each side are looked up in the window;
    each occurrence predicts where the slot is (same distance: 2 points, off by one:
    1; one more inside the main sentence). In a near-copy the best-scored place is the
    passage's own word for the slot — a different name or figure there is a swap; in
    a paraphrase the predictions scatter. A place only one distant neighbour points at
    is a coincidence and is left out.
    """
    c = a.claim
    score: dict[int, int] = {}
    voters: dict[int, int] = {}
    sent = c.sent[s] if s < len(c.sent) else -1

    def vote(k: str, d: int, near: bool) -> None:
        mine: dict[int, int] = {}
        for y in a.positions.get(k, ()):
            z0 = y + d
            for z, w in ((z0, 2), (z0 - 1, 1), (z0 + 1, 1)):
                if a.t0 <= z < a.t1 and z != y and mine.get(z, 0) < w:
                    mine[z] = w
        for z, w in mine.items():
            score[z] = score.get(z, 0) + w
            # The nearest word, at most one stop word away ("repealed in 2011"), is
            # evidence on its own; anything further needs a second witness.
            voters[z] = voters.get(z, 0) + (2 if near and w == 2 and abs(d) <= 2 else 1)

    found, x = 0, s - 1
    while x >= 0 and found < reach and c.sent[x] == sent:
        if k := c.keys[x]:
            vote(k, s - x, found == 0)
            found += 1
        x -= 1
    found, x = 0, e
    while x < len(c.keys) and found < reach and c.sent[x] == sent:
        if k := c.keys[x]:
            vote(k, -(x - (e - 1)), found == 0)
            found += 1
        x += 1
    # Ties go to the sentence the claim mostly copies.
    sents = a.passage.sent
    return {z: w + (sents[z] == a.main) for z, w in score.items() if voters[z] >= 2}


def context_keys(
    p: Prepared, i: int, j: int, *, k: int = 3, skip: frozenset[int] = frozenset()
) -> set[str]:
    """Up to ``k`` content keys on each side of tokens ``[i, j)``, within the sentence.

    Figure keys (``#…``) are left out: context is what the figure or name is *about*.
    """
    out: set[str] = set()
    if i >= len(p.keys) and j <= i:
        return out
    sent = p.sent[min(i, len(p.sent) - 1)]
    got, x = 0, i - 1
    while x >= 0 and got < k and p.sent[x] == sent:
        key = p.keys[x]
        if key and not key.startswith("#") and x not in skip:
            out.add(key)
            got += 1
        x -= 1
    got, x = 0, j
    while x < len(p.keys) and got < k and p.sent[x] == sent:
        key = p.keys[x]
        if key and not key.startswith("#") and x not in skip:
            out.add(key)
            got += 1
        x += 1
    return out


def best_windows(
    claim_keys: frozenset[str], passage: Prepared, *, max_sentences: int = 3, limit: int = 3
) -> list[Window]:
    """The best windows of up to ``max_sentences`` consecutive sentences by coverage.

    Only sentences holding a claim key can start or end a best window, so the work is
    bounded by the occurrences of the claim's keys, not the passage length.
    """
    if not claim_keys or not passage.sentences:
        return []
    cand: set[int] = set()
    for k in claim_keys:
        cand.update(passage.index.get(k, ()))
    if not cand:
        return []
    order = sorted(cand)
    per = {i: claim_keys & passage.sent_keys[i] for i in order}
    total = len(claim_keys)
    scored: list[tuple[int, int, int, frozenset[str]]] = []
    for a, first in enumerate(order):
        acc = per[first]
        scored.append((len(acc), 0, first, acc))
        for last in order[a + 1 :]:
            if last - first >= max_sentences:
                break
            acc = acc | per[last]
            scored.append((len(acc), -(last - first), first, acc))
    scored.sort(key=lambda x: (-x[0], -x[1], x[2]))
    out: list[Window] = []
    for hits, neg_len, first, acc in scored[:limit]:
        out.append(Window(first, first - neg_len, frozenset(acc), hits / total))
    return out


def core_span(passage: Prepared, t0: int, t1: int, matched: frozenset[str]) -> tuple[int, int]:
    """Shortest token range ``[i, j)`` within ``[t0, t1)`` holding every matched key."""
    if not matched:
        return t0, t0
    need = len(matched)
    counts: dict[str, int] = {}
    have = 0
    best = (t0, t1)
    left = t0
    keys = passage.keys
    for right in range(t0, t1):
        k = keys[right]
        if k in matched:
            counts[k] = counts.get(k, 0) + 1
            if counts[k] == 1:
                have += 1
        while have == need:
            if right + 1 - left < best[1] - best[0]:
                best = (left, right + 1)
            lk = keys[left]
            if lk in matched:
                counts[lk] -= 1
                if counts[lk] == 0:
                    have -= 1
            left += 1
    return best
