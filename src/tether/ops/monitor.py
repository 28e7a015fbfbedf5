"""Record stage, metrics: what each answer says about the machine, and drift over time.

Grounding is an invariant to monitor, not a feature shipped once (seed 001). Every
recorded answer gets an ``AnswerMetrics`` row of plain counts; windows pool the counts,
so a rate is always ``count / n`` over sentences or drafts, never an average of
per-answer ratios. A refusal or an empty answer contributes ``n = 0`` to the sentence
rates and is counted as a refusal: it never produces NaN.

Rates are ``{"value": float | None, "count": int, "n": int}``; ``value`` is ``None``
exactly when ``n == 0`` (nothing to measure), so JSON never carries NaN.

    >>> rate(3, 4)
    {'value': 0.75, 'count': 3, 'n': 4}
    >>> rate(0, 0)
    {'value': None, 'count': 0, 'n': 0}

Groundedness is an *independent* re-check of every rendered sentence: its verdict must
be ``supported``, each citation's quote must equal the stored version text at
``[start, end)`` (read back from the store by ``doc_id`` and ``version``), its hash must
match, and ``verify.check`` of the sentence against that quote alone must say
``supported``. It shares no state with the guard that made the sentence, so an offset,
join or span bug shows up here. This is the one re-check: the recorded metrics, the
evaluation and the service's Prometheus counters all count its result.

Recording an answer (``record_answer``) writes its audit row, the shadow-log rows of
what shadow gates would have suppressed, and its metrics row.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import ids
from ..config import Settings
from ..records import OUTCOMES, REPAIRED, Answer, AnswerSentence, Citation, Hit, to_json
from ..store import Store
from ..verify import check
from .cite import answer_citations

__all__ = [
    "AnswerMetrics",
    "Recheck",
    "Window",
    "measure_answer",
    "metrics_time",
    "rate",
    "recheck_answer",
    "recheck_sentence",
    "record_answer",
    "shadow_entry",
    "windows",
]


def rate(count: int, n: int) -> dict[str, Any]:
    """``count / n`` with its counts; ``value`` is ``None`` when ``n`` is 0."""
    return {"value": round(count / n, 6) if n else None, "count": count, "n": n}


@dataclass(frozen=True, slots=True)
class Recheck:
    """The independent re-check of one rendered sentence; ``problems`` say what failed."""

    grounded: bool
    problems: tuple[str, ...] = ()


def _recheck_citation(
    text: str,
    citation: Citation,
    store: Store,
    settings: Settings,
    modes: Mapping[str, str] | None,
    versions: dict[tuple[str, str], str | None],
) -> list[str]:
    key = (citation.doc_id, citation.version)
    if key not in versions:
        found = store.version(*key)
        versions[key] = found.text if found else None
    stored = versions[key]
    where = f"{citation.doc_id}@{citation.version[:15]}[{citation.start}:{citation.end}]"
    if stored is None:
        return [f"{where}: version not in the store"]
    if not 0 <= citation.start < citation.end <= len(stored):
        return [f"{where}: range outside the version text ({len(stored)} chars)"]
    problems = []
    if stored[citation.start : citation.end] != citation.quote:
        problems.append(f"{where}: quote differs from the stored text at its range")
    if ids.quote_hash(citation.quote) != citation.quote_hash:
        problems.append(f"{where}: quote_hash does not match the quote")
    result = check(text, citation.quote, settings=settings, modes=modes)
    if result.outcome != "supported":
        problems.append(
            f"{where}: re-verified as {result.outcome} ({'; '.join(result.reasons)})"
        )
    return problems


def recheck_sentence(
    sentence: AnswerSentence,
    store: Store,
    *,
    settings: Settings,
    modes: Mapping[str, str] | None = None,
    _versions: dict[tuple[str, str], str | None] | None = None,
) -> Recheck:
    """Is ``sentence`` grounded, checked from scratch against the store?

    Every citation must be exact and, on its own, support the sentence; a sentence
    without citations is not grounded.
    """
    if not sentence.citations:
        return Recheck(False, ("no citation",))
    versions = {} if _versions is None else _versions
    problems: list[str] = []
    for citation in sentence.citations:
        problems += _recheck_citation(sentence.text, citation, store, settings, modes, versions)
    if sentence.verdict.outcome != "supported":
        problems.append(f"shown with a {sentence.verdict.outcome} verdict")
    return Recheck(not problems, tuple(problems))


def recheck_answer(answer: Answer, store: Store, *, settings: Settings) -> list[Recheck]:
    """``recheck_sentence`` of each rendered sentence of ``answer``, in order."""
    versions: dict[tuple[str, str], str | None] = {}
    return [
        recheck_sentence(s, store, settings=settings, modes=answer.modes, _versions=versions)
        for s in answer.sentences
    ]


@dataclass(frozen=True, slots=True)
class AnswerMetrics:
    """Counts for one answer; windows and evaluations sum them before dividing.

    Drafts are every sentence the generator proposed that reached the guard (rendered
    plus dropped). A draft is *cited* when its verdict rests on a passage span.
    """

    sentences: int = 0
    cited: int = 0
    grounded: int = 0
    drafts: int = 0
    drafts_supported: int = 0
    drafts_cited: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    refused: bool = False
    refusal_layer: str | None = None
    flagged_passages: int = 0
    probe_signal: str | None = None
    probe_score: float | None = None
    total_ms: float | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnswerMetrics:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def measure_answer(
    answer: Answer,
    store: Store,
    *,
    settings: Settings,
    hits: Sequence[Hit] = (),
) -> tuple[AnswerMetrics, list[Recheck]]:
    """The answer's counts, and the re-check of each rendered sentence (in order)."""
    rechecks = recheck_answer(answer, store, settings=settings)
    verdicts = [s.verdict for s in answer.sentences] + [d.verdict for d in answer.dropped]
    drafts = [v for v in verdicts if REPAIRED not in v.reasons]
    dropped: dict[str, int] = {}
    for d in answer.dropped:
        dropped[d.verdict.outcome] = dropped.get(d.verdict.outcome, 0) + 1
    probe = answer.probe
    metrics = AnswerMetrics(
        sentences=len(answer.sentences),
        cited=sum(1 for s in answer.sentences if s.citations),
        grounded=sum(1 for r in rechecks if r.grounded),
        drafts=len(verdicts),
        # A repaired sentence is a quote shown for a draft the guard did not accept
        # (ADR 0058): the model's draft was neither supported nor cited.
        drafts_supported=sum(1 for v in drafts if v.outcome == "supported"),
        drafts_cited=sum(1 for v in drafts if v.passage_id is not None and v.span is not None),
        dropped=dropped,
        refused=answer.refused,
        refusal_layer=answer.refusal_layer if answer.refused else None,
        flagged_passages=sum(1 for h in hits if h.passage.flags),
        probe_signal=probe.signal if probe else None,
        probe_score=probe.score if probe else None,
        total_ms=answer.timings_ms.get("total_ms"),
    )
    return metrics, rechecks


def record_answer(
    answer: Answer,
    store: Store,
    *,
    settings: Settings,
    shadow: Sequence[Mapping[str, str]] = (),
    hits: Sequence[Hit] = (),
) -> list[Recheck]:
    """Record ``answer``: its audit row with citations, a shadow-log row per ``shadow``
    note, and its metrics row (grounding is monitored, not assumed, so ``tether stats``
    counts it). Returns the re-check of each rendered sentence, in order."""
    now = dt.datetime.now(dt.timezone.utc).isoformat()
    store.record_answer(answer.trace_id, now, to_json(answer), answer_citations(answer))
    for note in shadow:
        store.record_shadow(shadow_entry(note, answer.question, answer.trace_id, now))
    metrics, rechecks = measure_answer(answer, store, settings=settings, hits=hits)
    store.record_metrics(answer.trace_id, metrics_time(), metrics.to_json())
    return rechecks


def shadow_entry(
    note: Mapping[str, str], question: str, trace_id: str, created_at: str
) -> dict[str, str]:
    """A shadow decision as a shadow-log row: abstain refusals and verifier outcomes."""
    if note.get("gate") == "abstain":
        return {
            "created_at": created_at, "trace_id": trace_id, "question": question,
            "gate": "abstain", "layer": note["layer"], "reason": note["reason"],
            "suppressed": "refusal", "text": f"No answer [{note['layer']}]: {note['reason']}.",
        }
    reasons = note.get("reasons", "")
    gate = note.get("gate") or ("figures" if "shadow:figure" in reasons else "contradiction")
    return {
        "created_at": created_at, "trace_id": trace_id, "question": question,
        "gate": gate, "layer": "guard",
        "reason": f"would be {note.get('would_be')}: {reasons}",
        "suppressed": "sentence", "text": note.get("sentence", ""),
    }


def metrics_time(when: dt.datetime | None = None) -> str:
    """A fixed-width UTC timestamp, so stored times compare correctly as strings."""
    moment = when or dt.datetime.now(dt.timezone.utc)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> dt.datetime:
    """An ISO timestamp (``Z`` allowed); naive times are UTC."""
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def summarise(records: Iterable[AnswerMetrics]) -> dict[str, Any]:
    """Pooled rates over answers: the shape both ``stats`` and ``eval`` print."""
    items = list(records)
    sentences = sum(m.sentences for m in items)
    drafts = sum(m.drafts for m in items)
    dropped = {o: sum(m.dropped.get(o, 0) for m in items) for o in OUTCOMES}
    layers: dict[str, int] = {}
    for m in items:
        if m.refused:
            layer = m.refusal_layer or "unknown"
            layers[layer] = layers.get(layer, 0) + 1
    return {
        "answers": len(items),
        "groundedness": rate(sum(m.grounded for m in items), sentences),
        "citation_coverage": rate(sum(m.cited for m in items), sentences),
        "draft_faithfulness": rate(sum(m.drafts_supported for m in items), drafts),
        "draft_citation_coverage": rate(sum(m.drafts_cited for m in items), drafts),
        "drop_rate": rate(sum(dropped.values()), drafts),
        "drop_rate_by_outcome": {o: rate(c, drafts) for o, c in dropped.items() if o != "supported" or c},
        "refusal_rate": rate(sum(1 for m in items if m.refused), len(items)),
        "refusal_rate_by_layer": {k: rate(v, len(items)) for k, v in sorted(layers.items())},
        "flagged_retrieval_rate": rate(sum(1 for m in items if m.flagged_passages), len(items)),
    }


@dataclass(frozen=True, slots=True)
class Window:
    """One time window of recorded answers, with its pooled rates and drift flags."""

    start: dt.datetime
    end: dt.datetime
    summary: dict[str, Any]
    flags: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "start": metrics_time(self.start),
            "end": metrics_time(self.end),
            **self.summary,
            "flags": list(self.flags),
        }


# Rates that must not fall by more than the margin against the previous window.
WATCHED = ("citation_coverage", "draft_faithfulness", "draft_citation_coverage")


def drift_flags(
    current: Mapping[str, Any], previous: Mapping[str, Any] | None, *, margin: float, min_n: int
) -> tuple[str, ...]:
    """Why ``current`` is worse: any ungrounded sentence, or a watched rate falling by
    more than ``margin`` against ``previous`` when both windows have ``min_n`` items."""
    flags = []
    grounded = current["groundedness"]
    if grounded["n"] and grounded["count"] < grounded["n"]:
        flags.append(
            f"groundedness {grounded['value']:.2%} < 100% "
            f"({grounded['n'] - grounded['count']} of {grounded['n']} sentences failed the re-check)"
        )
    if previous is not None:
        for name in WATCHED:
            now, before = current[name], previous[name]
            if now["n"] < min_n or before["n"] < min_n:
                continue
            fall = before["value"] - now["value"]
            if round(fall, 9) > margin:  # 1.0 - 0.95 is 0.05000000000000004 in floats
                flags.append(
                    f"{name} fell {fall:.1%} ({before['value']:.1%} -> {now['value']:.1%}), "
                    f"more than the {margin:.1%} margin"
                )
    return tuple(flags)


def windows(
    records: Iterable[tuple[str, AnswerMetrics]],
    *,
    size: dt.timedelta,
    settings: Settings,
) -> list[Window]:
    """Non-empty windows of ``size`` aligned to the UTC epoch, oldest first, each
    compared with the previous non-empty window."""
    if size.total_seconds() <= 0:
        raise ValueError("window size must be positive")
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    buckets: dict[int, list[AnswerMetrics]] = {}
    for created_at, metrics in records:
        index = int((parse_time(created_at) - epoch) // size)
        buckets.setdefault(index, []).append(metrics)
    out: list[Window] = []
    previous: dict[str, Any] | None = None
    for index in sorted(buckets):
        summary = summarise(buckets[index])
        flags = drift_flags(
            summary, previous, margin=settings.drift_margin, min_n=settings.drift_min_n
        )
        start = epoch + index * size
        out.append(Window(start, start + size, summary, flags))
        previous = summary
    return out
