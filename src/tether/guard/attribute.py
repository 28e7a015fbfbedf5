"""Attribute stage: for one sentence, find the retrieved evidence that best supports it.

Attribution is independent of the generator: every retrieved passage is tried (the
generator's hint only breaks ties), plus the join of neighbouring passages of the
same version, for a sentence that straddles a passage edge. The best ``supported``
evidence wins; without one, the most telling failure is reported (a contradiction
says more than "not found").

Cost is bounded (``max_alignments``): over more units than that, an inverted index of
their content keys (built once per evidence list) names the candidates — the units
holding the sentence's rarest keys, ranked by the rarity of the keys they share — and
only those get the full test. A unit sharing no content key with the sentence can
only come out ``unsupported`` at overlap 0, so skipping it changes nothing; a verbatim
copy holds every key and ranks first. The exact result is kept for the units checked.

Each alignment and each unit indexed first asks ``deadline.check()``: under a
request's deadline the loop stops there (``DeadlineExceeded``) instead of running on
in a thread nobody waits for (ADR 0023).
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import islice

from .. import deadline
from ..config import Settings
from ..records import OUTCOME_RANK, Document, Hit, Passage, Verdict
from ..verify import Check, check, prepare_passage

__all__ = [
    "Attribution", "Evidence", "attribute", "candidates", "evidence_from_hits", "evidence_from_texts",
]

# Passages this close (in characters) count as neighbours: only whitespace between.
_NEIGHBOUR_GAP = 4


@dataclass(frozen=True, slots=True)
class Evidence:
    """A stretch of one version's text: one passage, or neighbours joined.

    ``start`` is the offset of ``text`` in the version (0 for free-standing text).
    """

    key: str
    text: str
    start: int
    passages: tuple[Passage, ...] = ()
    document: Document | None = None


@dataclass(frozen=True, slots=True)
class Attribution:
    verdict: Verdict
    evidence: Evidence | None
    shadow_outcome: str | None = None


def evidence_from_hits(
    hits: Sequence[Hit], version_text: Callable[[str, str], str | None]
) -> list[Evidence]:
    """One unit per hit, plus joins of hits that are neighbours in the same version."""
    units = [
        Evidence(h.passage.passage_id, h.passage.text, h.passage.start, (h.passage,), h.document)
        for h in hits
    ]
    by_version: dict[tuple[str, str], list[Hit]] = {}
    for hit in hits:
        by_version.setdefault((hit.passage.doc_id, hit.passage.version), []).append(hit)
    for (doc_id, version), group in by_version.items():
        group.sort(key=lambda h: h.passage.start)
        for left, right in zip(group, group[1:]):
            if not 0 <= right.passage.start - left.passage.end <= _NEIGHBOUR_GAP:
                continue
            text = version_text(doc_id, version)
            if text is None:
                continue
            units.append(
                Evidence(
                    f"{left.passage.passage_id}+{right.passage.passage_id}",
                    text[left.passage.start : right.passage.end],
                    left.passage.start,
                    (left.passage, right.passage),
                    left.document,
                )
            )
    return units


def evidence_from_texts(passages: Mapping[str, str]) -> list[Evidence]:
    """Free-standing passages (``tether verify``): id → text, no document behind them."""
    return [Evidence(key, text, 0) for key, text in passages.items()]


_MARKERS = re.compile(r"\[\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3})*\]")
# The candidate pool gathered from the rarest keys before ranking: this many times the
# cap, so that ranking has a choice without touching every unit that shares a common word.
_POOL_FACTOR = 8


@dataclass(frozen=True, slots=True)
class _Index:
    """Content key → the units holding it, for one evidence list."""

    units: tuple[Evidence, ...]
    keys: tuple[frozenset[str], ...]
    postings: dict[str, set[int]]


class _LatestIndex:
    """The index of the latest evidence list, built once while that list is attributed
    against: every sentence of an answer is checked against one request's evidence.

    Bound: one index. Another list (not the same units, by identity) replaces it; the
    index holds its units, so their identities are not reused while it is kept.
    Concurrent requests at worst rebuild each other's index, never read a wrong one.
    """

    __slots__ = ("_index",)

    def __init__(self) -> None:
        self._index: _Index | None = None

    def of(self, evidence: Sequence[Evidence]) -> _Index:
        cached = self._index
        if (
            cached is not None
            and len(cached.units) == len(evidence)
            and all(map(operator.is_, cached.units, evidence))
        ):
            return cached
        keys = tuple(_keys_of(unit) for unit in evidence)
        postings: dict[str, set[int]] = {}
        for i, unit_keys in enumerate(keys):
            for key in unit_keys:
                postings.setdefault(key, set()).add(i)
        index = _Index(tuple(evidence), keys, postings)
        self._index = index
        return index


_LATEST_INDEX = _LatestIndex()


def _keys_of(unit: Evidence) -> frozenset[str]:
    deadline.check()
    return prepare_passage(unit.text).key_set


def candidates(
    sentence: str, evidence: Sequence[Evidence], cap: int, hints: Sequence[str] = ()
) -> list[int]:
    """Positions (in order) of the units of ``evidence`` worth the full test for
    ``sentence``: all of them up to ``cap``; else at most ``cap`` ranked by the rarity
    of the content keys they share, plus the first unit and any hinted one (the
    tie-breaks ``attribute`` applies, so the verdict is the one over every unit
    whenever the best unit is among those checked)."""
    if len(evidence) <= cap:
        return list(range(len(evidence)))
    index = _LATEST_INDEX.of(evidence)
    wanted = prepare_passage(_MARKERS.sub(" ", sentence)).key_set
    # Rarest first; equally rare keys in their own order, never in the set's (which
    # changes with the interpreter's hash seed, and with it the candidates).
    present = sorted((k for k in wanted if k in index.postings), key=lambda k: (len(index.postings[k]), k))
    chosen = {0} | ({i for i, u in enumerate(evidence) if _hinted(u, hints)} if hints else set())
    if not present:
        return sorted(chosen)
    budget = cap * _POOL_FACTOR
    # The core: units holding the rarest key, narrowed by the next rarest while too many.
    core = index.postings[present[0]]
    for key in present[1:]:
        if len(core) <= budget:
            break
        core = (core & index.postings[key]) or core
    # Still more than the budget hold the rarest keys (near-copies of one sentence):
    # those with the fewest keys besides, the closest to the sentence, go first.
    keys = index.keys
    pool = set(core) if len(core) <= budget else set(sorted(core, key=lambda i: (len(keys[i]), i))[:budget])
    for key in present[1:]:
        if len(pool) >= budget:
            break
        pool.update(islice(index.postings[key], budget - len(pool)))
    total = len(evidence)
    weight = {k: math.log(1 + total / len(index.postings[k])) for k in present}
    # fsum: the same total in any order (a set's order follows the hash seed, and a
    # plain float sum differs in its last bits by order, enough to reorder ties).
    ranked = sorted(pool, key=lambda i: (-math.fsum(map(weight.__getitem__, wanted & keys[i])),
                                         len(keys[i]), i))
    return sorted(chosen | set(ranked[:cap]))


def _hinted(unit: Evidence, hints: Sequence[str]) -> bool:
    return any(p.passage_id in hints for p in unit.passages) or unit.key in hints


_TOP_RANK = max(OUTCOME_RANK.values())


def _preference(result: Check, unit: Evidence, hints: Sequence[str]) -> tuple[int, float, int]:
    hinted = _hinted(unit, hints)
    return (OUTCOME_RANK[result.outcome], result.score, 1 if hinted else 0)


def attribute(
    sentence: str,
    evidence: Sequence[Evidence],
    *,
    settings: Settings,
    hints: Sequence[str] = (),
    modes: Mapping[str, str] | None = None,
) -> Attribution:
    """The best verdict for ``sentence`` over the units of ``evidence`` (all of them
    up to ``settings.max_alignments``, else the candidates the index names)."""
    best: tuple[tuple[int, float, int], Check, Evidence] | None = None
    positions = candidates(sentence, evidence, settings.max_alignments, hints)
    # Nothing ranks above a supported verdict at full score from a hinted unit (from any
    # unit when none of them is hinted), and a later unit wins only by ranking above:
    # the rest need no test.
    top = (_TOP_RANK, 1.0, 1 if hints and any(_hinted(evidence[i], hints) for i in positions) else 0)
    for position in positions:
        deadline.check()
        unit = evidence[position]
        result = check(sentence, unit.text, settings=settings, modes=modes)
        key = _preference(result, unit, hints)
        if best is None or key > best[0]:
            best = (key, result, unit)
            if key >= top:
                break
    if best is None:
        return Attribution(Verdict("unsupported", 0.0, reasons=("no passages retrieved",)), None)
    _, result, unit = best
    verdict = replace(result.verdict(unit.key), score=round(result.score, 4))
    return Attribution(verdict, unit, result.shadow_outcome)
