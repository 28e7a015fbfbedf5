"""What every check receives: a claim aligned to a region of a passage, and its findings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .lexical import Prepared, Window, core_span

__all__ = ["Alignment", "Finding", "align", "anchors", "context_keys"]

Gate = Literal["contradiction", "figures"]
Effect = Literal["contradicts", "missing"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One fired check. ``contradicts`` makes the pair ``contradicted``; ``missing``
    (a figure, year or name of the sentence the region lacks) caps it at ``mentioned``."""

    gate: Gate
    effect: Effect
    checker: str
    reason: str


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
    head = {k for k in claim.keys[:4] if k}
    main = max(
        range(window.first, window.last + 1),
        key=lambda i: (
            sum(1 / len(passage.index[k]) for k in passage.sent_keys[i] & window.matched),
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
    a paraphrase the predictions scatter. A place only one neighbour points at is a
    coincidence and is left out.
    """
    c = a.claim
    score: dict[int, int] = {}
    voters: dict[int, int] = {}
    sent = c.sent[s] if s < len(c.sent) else -1

    def vote(k: str, d: int) -> None:
        mine: dict[int, int] = {}
        for y in a.positions.get(k, ()):
            z0 = y + d
            for z, w in ((z0, 2), (z0 - 1, 1), (z0 + 1, 1)):
                if a.t0 <= z < a.t1 and z != y and mine.get(z, 0) < w:
                    mine[z] = w
        for z, w in mine.items():
            score[z] = score.get(z, 0) + w
            voters[z] = voters.get(z, 0) + 1

    found, x = 0, s - 1
    while x >= 0 and found < reach and c.sent[x] == sent:
        if k := c.keys[x]:
            found += 1
            vote(k, s - x)
        x -= 1
    found, x = 0, e
    while x < len(c.keys) and found < reach and c.sent[x] == sent:
        if k := c.keys[x]:
            found += 1
            vote(k, -(x - (e - 1)))
        x += 1
    # Ties go to the sentence the claim mostly copies.
    sents = a.passage.sent
    return {z: w + (sents[z] == a.main) for z, w in score.items() if voters[z] >= 2}


def context_keys(p: Prepared, i: int, j: int, *, k: int = 3, skip: frozenset[int] = frozenset()) -> set[str]:
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
