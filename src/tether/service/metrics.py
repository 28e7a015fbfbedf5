"""Prometheus metrics: what was served, what was refused or dropped, and how fast.

Every figure is aggregate and names no document: a metric labelled by document,
source or query would tell any caller who can read ``/metrics`` about documents it
cannot read. Routes are labelled by their template (``/v1/documents/{doc_id}``),
never by the concrete path.

Groundedness is re-checked on what was actually served, by the one re-check in
``ops.monitor`` (``recheck_sentence``): each sentence's quote must equal the stored
version text at its range, and the support test must still pass against that text.
A recorded answer was re-checked when it was recorded (``Done.rechecks``) and is
counted from that; only an unrecorded one is re-checked here. It must be 100 %; a
dip means something upstream changed. A refusal has no sentences and adds nothing to
these counters (it is counted as a refusal, never as a 0 % or 100 % answer).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..config import Settings
from ..ops.monitor import Recheck, recheck_answer
from ..records import OUTCOMES, Answer, Hit
from ..store import Store

__all__ = ["LatencyMiddleware", "Metrics", "recheck"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_RATIO_BUCKETS = (0.5, 0.8, 0.9, 0.95, 0.99, 1.0)
_LAYERS = ("retrieval", "probe", "generator", "guard")


class Metrics:
    """One registry per app, so two apps in a process (tests) never share counts."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.answers = Counter("tether_answers", "Answers served, refusals included.",
                               ["refused", "stream"], registry=r)
        self.refusals = Counter("tether_refusals", "Refusals by the layer that refused.",
                                ["layer"], registry=r)
        self.dropped = Counter("tether_dropped_sentences",
                               "Proposed sentences the guard did not show, by outcome.",
                               ["outcome"], registry=r)
        self.served = Counter("tether_sentences_served", "Sentences shown in answers.",
                              registry=r)
        self.grounded = Counter(
            "tether_sentences_grounded",
            "Shown sentences whose quote equals the stored range and whose support re-checks.",
            registry=r)
        self.cited = Counter("tether_sentences_cited",
                             "Shown sentences carrying at least one citation.", registry=r)
        self.groundedness = Histogram(
            "tether_answer_groundedness",
            "Per answer with sentences: share of its sentences that re-check grounded.",
            buckets=_RATIO_BUCKETS, registry=r)
        self.coverage = Histogram(
            "tether_answer_citation_coverage",
            "Per answer with sentences: share of its sentences with a citation.",
            buckets=_RATIO_BUCKETS, registry=r)
        self.probe = Counter("tether_probe_signals", "Retrieval probe signal per answer.",
                             ["signal"], registry=r)
        self.injection = Counter(
            "tether_injection_flags",
            "Instruction-like text flags on passages sent as sources (observability only).",
            ["flag"], registry=r)
        self.latency = Histogram("tether_request_seconds", "Request latency, to the last byte.",
                                 ["route", "method", "status"], buckets=_LATENCY_BUCKETS,
                                 registry=r)
        self.to_sources = Histogram("tether_time_to_sources_seconds",
                                    "Streamed answers: request start to the sources event.",
                                    buckets=_LATENCY_BUCKETS, registry=r)
        self.to_first_sentence = Histogram(
            "tether_time_to_first_sentence_seconds",
            "Streamed answers: request start to the first verified sentence event.",
            buckets=_LATENCY_BUCKETS, registry=r)
        # Known label values start at 0, so a dashboard sees the series before the first event.
        for layer in _LAYERS:
            self.refusals.labels(layer=layer)
        for outcome in OUTCOMES:
            if outcome != "supported":
                self.dropped.labels(outcome=outcome)

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def sources(self, hits: Sequence[Hit]) -> None:
        for hit in hits:
            for flag in hit.passage.flags:
                self.injection.labels(flag=flag).inc()

    def answer(self, answer: Answer, *, stream: bool) -> None:
        self.answers.labels(refused=str(answer.refused).lower(), stream=str(stream).lower()).inc()
        if answer.refused:
            self.refusals.labels(layer=answer.refusal_layer or "unknown").inc()
        for dropped in answer.dropped:
            self.dropped.labels(outcome=dropped.verdict.outcome).inc()
        if answer.probe is not None:
            self.probe.labels(signal=answer.probe.signal).inc()

    def recheck(self, answer: Answer, store: Store, settings: Settings) -> None:
        """Count ``answer``'s groundedness, re-checking it against ``store`` first."""
        if answer.sentences:
            self.grounding(answer, recheck_answer(answer, store, settings=settings))

    def grounding(self, answer: Answer, rechecks: Sequence[Recheck]) -> None:
        """Count ``answer``'s groundedness from its re-checks (one per sentence)."""
        if not answer.sentences:
            return
        grounded, cited = _counts(answer, rechecks)
        total = len(answer.sentences)
        self.served.inc(total)
        self.grounded.inc(grounded)
        self.cited.inc(cited)
        self.groundedness.observe(grounded / total)
        self.coverage.observe(cited / total)


def _counts(answer: Answer, rechecks: Sequence[Recheck]) -> tuple[int, int]:
    grounded = sum(1 for r in rechecks if r.grounded)
    return grounded, sum(1 for s in answer.sentences if s.citations)


def recheck(answer: Answer, store: Store, settings: Settings) -> tuple[int, int]:
    """(grounded, cited) sentence counts of ``answer``, checked against the store."""
    return _counts(answer, recheck_answer(answer, store, settings=settings))


class LatencyMiddleware:
    """Pure ASGI (streaming-safe): times each request to its last byte by route template."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        scope.setdefault("state", {})["started"] = started
        status = 500

        async def timed_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, timed_send)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            self.metrics.latency.labels(
                route=route, method=scope["method"], status=str(status)
            ).observe(time.perf_counter() - started)
