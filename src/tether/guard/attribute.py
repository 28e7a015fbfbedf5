"""Attribute stage: for one sentence, find the retrieved evidence that best supports it.

Attribution is independent of the generator: every retrieved passage is tried (the
generator's hint only breaks ties), plus the join of neighbouring passages of the
same version, for a sentence that straddles a passage edge. The best ``supported``
evidence wins; without one, the most telling failure is reported (a contradiction
says more than "not found").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..config import Settings
from ..records import OUTCOME_RANK, Document, Hit, Passage, Verdict
from ..verify import Check, check

__all__ = ["Attribution", "Evidence", "attribute", "evidence_from_hits", "evidence_from_texts"]

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


def _preference(result: Check, unit: Evidence, hints: Sequence[str]) -> tuple[int, float, int]:
    hinted = any(p.passage_id in hints for p in unit.passages) or unit.key in hints
    return (OUTCOME_RANK[result.outcome], result.score, 1 if hinted else 0)


def attribute(
    sentence: str,
    evidence: Sequence[Evidence],
    *,
    settings: Settings,
    hints: Sequence[str] = (),
    modes: Mapping[str, str] | None = None,
) -> Attribution:
    """The best verdict for ``sentence`` over every unit of ``evidence``."""
    best: tuple[tuple[int, float, int], Check, Evidence] | None = None
    for unit in evidence:
        result = check(sentence, unit.text, settings=settings, modes=modes)
        key = _preference(result, unit, hints)
        if best is None or key > best[0]:
            best = (key, result, unit)
    if best is None:
        return Attribution(Verdict("unsupported", 0.0, reasons=("no passages retrieved",)), None)
    _, result, unit = best
    verdict = Verdict(
        outcome=result.outcome,  # type: ignore[arg-type]
        score=round(result.score, 4),
        passage_id=unit.key,
        span=result.span,
        reasons=tuple(result.reasons),
        checker=result.checker,
    )
    return Attribution(verdict, unit, result.shadow_outcome)
