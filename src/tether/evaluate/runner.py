"""Run golden questions through the public pipeline (``Tether.stream``) and score them.

Every rate is ``{"value", "count", "n"}`` (``monitor.rate``): ``value`` is ``None``
exactly when its denominator is 0, so a refusal or an empty answer never yields NaN.
Denominators:

- ``groundedness``, ``citation_coverage``, ``instruction_leaks``: rendered sentences.
- ``draft_faithfulness``, ``draft_citation_coverage``, ``drop_rate`` (and by outcome):
  drafts, i.e. rendered + dropped sentences (what the generator proposed).
- ``refusal_rate`` (and by layer): questions.
- ``answer_accuracy``: answerable questions with ``expect_contains``; a refusal there
  counts as wrong. ``overall_accuracy`` adds unanswerable questions, right when refused.
- ``retrieval_hit_rate``: questions with ``expect_docs``; a hit is any retrieved
  passage from a named document.
- ``abstain_precision``: refused questions; ``abstain_recall``: unanswerable questions
  (abstaining is the positive class).

``latency_ms`` is the wall time of the whole stream per question, ``p50``/``p95`` by
linear interpolation (``None`` with no questions).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..facade import Tether
from ..generate import Generator
from ..ops.monitor import AnswerMetrics, Recheck, measure_answer, rate, summarise
from ..records import Answer, Hit
from ..text.fold import loose_fold
from .golden import GoldenItem, Labels, doc_matches
from .injection import detection_report, leaks

__all__ = ["EvalResult", "percentiles", "run_eval"]

# The top-level keys of ``EvalResult.to_json()`` the CLI contract promises (issue 8).
REQUIRED_KEYS = (
    "groundedness", "citation_coverage", "draft_faithfulness", "draft_citation_coverage",
    "drop_rate", "refusal_rate", "answer_accuracy", "abstain_precision", "abstain_recall",
    "latency_ms", "questions",
)


def percentiles(values: Sequence[float], *qs: float) -> list[float | None]:
    """Linear-interpolation percentiles (numpy's default); ``None`` for no values."""
    ordered = sorted(values)
    if not ordered:
        return [None for _ in qs]
    out: list[float | None] = []
    for q in qs:
        pos = (len(ordered) - 1) * q / 100
        low = int(pos)
        high = min(low + 1, len(ordered) - 1)
        out.append(round(ordered[low] + (ordered[high] - ordered[low]) * (pos - low), 2))
    return out


def _latency(values: Sequence[float]) -> dict[str, Any]:
    p50, p95 = percentiles(values, 50, 95)
    return {"p50": p50, "p95": p95, "max": round(max(values), 2) if values else None,
            "n": len(values)}


@dataclass(frozen=True, slots=True)
class EvalResult:
    """The figures of one run; ``to_json()`` is what ``tether eval --json`` prints."""

    summary: dict[str, Any]
    questions: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {**self.summary, "questions": self.questions}

    def gate_failures(self) -> list[str]:
        """Why this run breaks an invariant: an ungrounded sentence or a leak."""
        problems = []
        g = self.summary["groundedness"]
        if g["n"] and g["count"] < g["n"]:
            problems.append(f"groundedness {g['count']}/{g['n']}: "
                            f"{g['n'] - g['count']} rendered sentence(s) failed the re-check")
        leaked = self.summary["instruction_leaks"]
        if leaked["count"]:
            problems.append(f"{leaked['count']} rendered sentence(s) carry an injected instruction")
        return problems


def _hits(data: Any) -> list[Hit]:
    """The ``sources`` event's hits (anything hit-shaped: a passage, a document, a score)."""
    items = data if isinstance(data, (list, tuple)) else []
    return [h for h in items if hasattr(h, "passage") and hasattr(h, "score")]


def _citation(c: Any) -> dict[str, Any]:
    return {"doc_id": c.doc_id, "version": c.version, "start": c.start, "end": c.end,
            "quote": c.quote, "source": c.source, "title": c.title, "kind": c.kind,
            "region": c.region}


def _row(
    item: GoldenItem,
    answer: Answer,
    hits: Sequence[Hit],
    metrics: AnswerMetrics,
    rechecks: Sequence[Recheck],
    *,
    labels: Labels | None,
    planted: Sequence[str],
    latency_ms: float,
    first_ms: float | None,
) -> dict[str, Any]:
    rendered = loose_fold(" ".join(s.text for s in answer.sentences))
    correct: bool | None = None
    if item.answerable and item.expect_contains:
        correct = not answer.refused and any(loose_fold(e) in rendered for e in item.expect_contains)
    elif not item.answerable:
        correct = answer.refused
    hit: bool | None = None
    if item.expect_docs:
        hit = any(doc_matches(e, h.document, labels) for e in item.expect_docs for h in hits)
    sentences = []
    for sentence, recheck in zip(answer.sentences, rechecks):
        sentences.append({
            "text": sentence.text,
            "grounded": recheck.grounded,
            "problems": list(recheck.problems),
            "leaks": leaks(sentence.text, forbid=item.forbid_contains, planted=planted),
            "citations": [_citation(c) for c in sentence.citations],
        })
    probe = answer.probe
    return {
        "id": item.id,
        "question": item.question,
        "answerable": item.answerable,
        "expect_contains": list(item.expect_contains),
        "expect_docs": list(item.expect_docs),
        "refused": answer.refused,
        "refusal_layer": answer.refusal_layer,
        "refusal_reason": answer.refusal_reason,
        "correct": correct,
        "retrieval_hit": hit,
        "answer": " ".join(s.text for s in answer.sentences),
        "sentences": sentences,
        "dropped": [
            {"text": d.text, "outcome": d.verdict.outcome, "reasons": list(d.verdict.reasons),
             "checker": d.verdict.checker, "score": d.verdict.score}
            for d in answer.dropped
        ],
        "probe": (
            {"signal": probe.signal, "score": probe.score, "threshold": probe.threshold,
             "scorer": probe.scorer} if probe else None
        ),
        "top_score": max((h.score for h in hits), default=None),
        "retrieved": [
            {"doc_id": h.document.doc_id, "title": h.document.title, "source": h.document.source,
             "score": round(h.score, 4), "flags": list(h.passage.flags)}
            for h in hits
        ],
        "metrics": metrics.to_json(),
        "latency_ms": latency_ms,
        "first_sentence_ms": first_ms,
        "trace_id": answer.trace_id,
        "generator": answer.generator,
    }


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)


def run_eval(
    tether: Tether,
    items: Sequence[GoldenItem],
    *,
    labels: Labels | None = None,
    ingest_flags: Mapping[str, Sequence[str]] | None = None,
    principals: Sequence[str] | None = None,
    generator: Generator | None = None,
    modes: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    name: str = "",
) -> EvalResult:
    """Ask every golden question through ``tether.stream`` (not recorded in the
    monitoring log) and score the answers; see the module docstring for each rate.

        >>> result = run_eval(tether, load_golden("golden.jsonl"))   # doctest: +SKIP
        >>> result.summary["groundedness"]                           # doctest: +SKIP
        {'value': 1.0, 'count': 57, 'n': 57}
    """
    options: dict[str, Any] = {"record": False}
    if principals is not None:
        options["principals"] = principals
    if generator is not None:
        options["generator"] = generator
    if modes is not None:
        options["modes"] = modes
    planted = labels.planted_texts() if labels else []
    rows: list[dict[str, Any]] = []
    all_metrics: list[AnswerMetrics] = []
    for done, item in enumerate(items):
        started = time.perf_counter()
        hits: list[Hit] = []
        first: float | None = None
        answer: Answer | None = None
        for event in tether.stream(item.question, **options):
            if event.kind == "sources":
                hits = _hits(event.data)
            elif event.kind == "sentence" and first is None:
                first = _ms(started)
            elif event.kind == "done":
                answer = event.data
        latency = _ms(started)
        assert isinstance(answer, Answer), "stream ended without a done event"
        metrics, rechecks = measure_answer(answer, tether.store, settings=tether.settings, hits=hits)
        all_metrics.append(metrics)
        rows.append(_row(item, answer, hits, metrics, rechecks, labels=labels, planted=planted,
                         latency_ms=latency, first_ms=first))
        if progress:
            progress(done + 1, len(items))
    summary = _summary(rows, all_metrics)
    summary["injection_detection"] = (
        detection_report(tether.store, labels, ingest_flags) if labels else None
    )
    summary["run"] = {
        "name": name,
        "at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "generator": rows[0]["generator"] if rows else None,
        "scorer": getattr(tether.store, "scorer", None),
        "probe": any(r["probe"] for r in rows),
        "modes": dict(modes or {}),
        "settings": {"support_overlap": tether.settings.support_overlap,
                     "top_k": tether.settings.top_k,
                     "max_sentences": tether.settings.max_sentences},
    }
    return EvalResult(summary, rows)


def _summary(rows: Sequence[dict[str, Any]], metrics: Sequence[AnswerMetrics]) -> dict[str, Any]:
    pooled = summarise(metrics)
    answerable = [r for r in rows if r["answerable"] and r["expect_contains"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    refused = [r for r in rows if r["refused"]]
    scored = answerable + unanswerable
    with_docs = [r for r in rows if r["retrieval_hit"] is not None]
    sentences = [s for r in rows for s in r["sentences"]]
    return {
        "groundedness": pooled["groundedness"],
        "citation_coverage": pooled["citation_coverage"],
        "draft_faithfulness": pooled["draft_faithfulness"],
        "draft_citation_coverage": pooled["draft_citation_coverage"],
        "drop_rate": pooled["drop_rate"],
        "drop_rate_by_outcome": pooled["drop_rate_by_outcome"],
        "refusal_rate": pooled["refusal_rate"],
        "refusal_rate_by_layer": pooled["refusal_rate_by_layer"],
        "answer_accuracy": rate(sum(bool(r["correct"]) for r in answerable), len(answerable)),
        "overall_accuracy": rate(sum(bool(r["correct"]) for r in scored), len(scored)),
        "retrieval_hit_rate": rate(sum(bool(r["retrieval_hit"]) for r in with_docs), len(with_docs)),
        "abstain_precision": rate(sum(not r["answerable"] for r in refused), len(refused)),
        "abstain_recall": rate(sum(r["refused"] for r in unanswerable), len(unanswerable)),
        "instruction_leaks": rate(sum(bool(s["leaks"]) for s in sentences), len(sentences)),
        "flagged_retrieval_rate": pooled["flagged_retrieval_rate"],
        "latency_ms": _latency([r["latency_ms"] for r in rows]),
        "first_sentence_ms": _latency(
            [r["first_sentence_ms"] for r in rows if r["first_sentence_ms"] is not None]
        ),
        "counts": {
            "questions": len(rows),
            "answerable": sum(r["answerable"] for r in rows),
            "unanswerable": len(unanswerable),
            "refused": len(refused),
            "sentences": len(sentences),
            "drafts": sum(m.drafts for m in metrics),
            "dropped": sum(len(r["dropped"]) for r in rows),
        },
    }
