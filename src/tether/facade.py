"""Answer stage: the pipeline end to end, as a stream of events or one ``Answer``.

``stream`` is the core: it yields ``sources`` (what was retrieved) before any text,
then each ``sentence`` as soon as the guard has verified it, then ``done`` with the
whole ``Answer``. ``ask`` is the same run, keeping only the last event. A refusal is
an ordinary answer with ``refused=True``, never an exception.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from . import ids
from .config import Settings, default_db_location, load_settings
from .errors import ProviderError
from .generate import Generator, load_generator
from .generate.llm import LLM_GENERATORS, settings_options
from .guard.answercheck import (
    anchors,
    check_answer,
    judge_answers,
    judged_refusal,
    sentence_answers,
)
from .guard.attribute import evidence_from_hits, evidence_from_texts
from .guard.citation import attribute_statements, judge_draft
from .ingest.segment import sentence_spans, split_sentences
from .ingest.sources import IngestResult, Metadata, ingest_file, iter_files
from .judges import load_judge
from .judges.base import Judge
from .modes import ModesSpec, resolve_modes
from .ops.cite import Resolution, answer_citations, resolve, resolve_trace
from .ops.monitor import measure_answer, metrics_time
from .records import Answer, AnswerSentence, Citation, Draft, Dropped, Hit, to_json
from .retrieve.calibrate import Threshold, resolve_threshold
from .retrieve.probe import probe_retrieved, steering_text
from .retrieve.search import retrieve
from .store import Store, open_store

_UNSET = object()

__all__ = ["Event", "Tether", "verify_answer"]


@dataclass(frozen=True, slots=True)
class Event:
    """One step of a streamed answer: ``sources``, ``sentence`` or ``done``."""

    kind: str
    data: Any


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 2)


class Tether:
    """A document collection you can ask questions of.

    >>> t = Tether("demo.db")                       # doctest: +SKIP
    >>> t.ingest("docs/", license="CC BY 4.0")      # doctest: +SKIP
    >>> t.ask("What is the exposure limit for methanol?").sentences  # doctest: +SKIP
    """

    def __init__(
        self,
        db: str | os.PathLike[str] | None = None,
        *,
        settings: Settings | None = None,
        store: Store | None = None,
        create: bool = True,
    ) -> None:
        self.settings = settings or load_settings()
        self.store = store or open_store(
            db if db else default_db_location(), create=create, settings=self.settings
        )
        self._generators: dict[str, Generator] = {}
        self._threshold: Threshold | None = None
        self._judge: object = _UNSET

    def __enter__(self) -> Tether:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.store.close()

    # -- ingest ------------------------------------------------------------------

    def ingest(
        self, *paths: str | os.PathLike[str], meta: Metadata | None = None, **fields: Any
    ) -> list[IngestResult]:
        """Ingest files and folders; failures are reported per file, not raised."""
        base = (meta or Metadata()).merged(fields)
        return [
            ingest_file(self.store, path, base, settings=self.settings)
            for path in iter_files(list(paths))
        ]

    # -- answer ------------------------------------------------------------------

    def judge(self) -> Judge | None:
        """The model judge the ``judge`` setting names, loaded on first use."""
        if self._judge is _UNSET:
            self._judge = load_judge(self.settings)
        return cast(Judge | None, self._judge)

    def generator(self, name: str | None = None, **options: Any) -> Generator:
        name = name or self.settings.generator
        if name in LLM_GENERATORS:
            options = settings_options(self.settings, options)
        key = name if not options else f"{name}:{sorted(options.items())}"
        if key not in self._generators:
            if name == "extractive":
                options.setdefault("max_sentences", self.settings.max_sentences)
            self._generators[key] = load_generator(name, **options)
        return self._generators[key]

    def probe_threshold(self) -> Threshold:
        """The probe threshold in force for this store (see ``calibrate``)."""
        if self._threshold is None:
            self._threshold = resolve_threshold(self.store, self.settings)
        return self._threshold

    def stream(
        self,
        question: str,
        *,
        principals: Sequence[str] | None = None,
        generator: Generator | None = None,
        modes: ModesSpec = None,
        record: bool = True,
    ) -> Iterator[Event]:
        """Sources first, then verified sentences as they pass, then the Answer.

        ``modes`` sets gates for this call (``{"abstain": "shadow"}``, or one mode
        for every gate); the ``modes`` setting and then ``on`` fill in the rest.
        With the abstain gate ``on``, a sentence is held back until one sentence of
        the answer is known to answer the question, so a refused answer never shows
        text. What a ``shadow`` gate would have suppressed goes to the shadow log
        (when ``record``) and to ``Answer.trace["shadow"]``.
        """
        started = time.perf_counter()
        timings: dict[str, float] = {}
        gen = generator or self.generator()
        in_force = resolve_modes(self.settings.modes, modes)
        threshold = self.probe_threshold()
        trace_id = ids.trace_id()
        hits = retrieve(
            self.store,
            question,
            k=self.settings.top_k,
            principals=principals,
            max_chars=self.settings.max_question_chars,
        )
        timings["retrieve_ms"] = _ms(started)
        yield Event("sources", hits)

        report = probe_retrieved(
            self.store, question, hits, threshold=threshold.value, principals=principals
        )
        timings["probe_ms"] = _ms(started)
        abstain = in_force["abstain"]
        kept: list[AnswerSentence] = []
        dropped: list[Dropped] = []
        shadow: list[dict[str, str]] = []
        drafts: list[Draft] = []
        refusal: tuple[str, str] | None = None
        answer_judged: dict[str, Any] | None = None
        generation: dict[str, Any] = {}
        withheld: list[AnswerSentence] = []
        if report.signal != "ok" and abstain == "on":
            refusal = ("probe", report.reason())
        elif report.signal != "ok" and abstain == "shadow":
            shadow.append(_would_refuse("probe", report.reason()))
        if refusal is None and hits:
            texts: dict[tuple[str, str], str | None] = {}

            def version_text(doc_id: str, version: str) -> str | None:
                if (doc_id, version) not in texts:
                    found = self.store.version(doc_id, version)
                    texts[doc_id, version] = found.text if found else None
                return texts[doc_id, version]

            evidence = evidence_from_hits(hits, version_text)
            by_id = {h.passage.passage_id: h for h in hits}
            texts_of_hits = [h.passage.text for h in hits] + [h.document.title for h in hits]
            asked = anchors(question, texts_of_hits)
            answered = abstain != "on"
            # A judge that reads answers decides only once all sentences are in, so
            # with both gates on nothing streams before it has.
            reader = self.judge() if in_force["judge"] != "off" and abstain != "off" else None
            hold = abstain == "on" and in_force["judge"] == "on" and callable(
                getattr(reader, "answers", None)
            )
            seen: set[str] = set()
            steering = steering_text(report, hits)

            def release(ready: Sequence[AnswerSentence]) -> Iterator[Event]:
                for sentence in ready:
                    timings.setdefault("first_sentence_ms", _ms(started))
                    yield Event("sentence", sentence)

            for draft in _recorded(gen.generate(question, hits, steering=steering), generation):
                text = draft.text.strip()
                if not text or text in seen:
                    continue
                seen.add(text)
                drafts.append(draft)
                outcome, note = judge_draft(
                    draft, evidence, settings=self.settings, modes=in_force,
                    judge=self.judge() if in_force["judge"] != "off" else None,
                )
                if note:
                    shadow.append(note)
                if not isinstance(outcome, AnswerSentence):
                    dropped.append(outcome)
                    continue
                kept.append(outcome)
                if not answered:
                    withheld.append(outcome)
                    _, context, section = _answering(outcome, by_id)
                    if hold or sentence_answers(
                        question, outcome.text, context, section=section, passages=texts_of_hits,
                        anchor_terms=asked,
                    ) is not None:
                        continue
                    answered = True
                yield from release(withheld or [outcome])
                withheld = []
            if kept and abstain != "off":
                answering = [_answering(k, by_id) for k in kept]
                why = check_answer(question, answering, passages=texts_of_hits)
                gate = abstain
                if why is None and reader is not None:
                    judged = judge_answers(reader, question, answering)
                    why = judged_refusal(judged)
                    gate = "on" if abstain == in_force["judge"] == "on" else "shadow"
                    if judged is not None:
                        answer_judged = {"checker": judged.checker, "label": judged.label,
                                         "error": judged.error}
                if why and gate == "on":
                    refusal, withheld = ("guard", why), kept
                    kept = []
                elif why:
                    shadow.append(_would_refuse("guard", why))
                if refusal is None:  # what waited for the judge
                    yield from release(withheld)
                    withheld = []
        timings["total_ms"] = _ms(started)
        answer = self._finish(
            question, hits, drafts, kept, dropped, shadow,
            trace_id=trace_id, generator=gen.name, modes=in_force, timings=timings,
        )
        answer = replace(
            answer,
            probe=report.probe,
            trace={
                **answer.trace,
                "probe": {
                    "threshold_source": threshold.source,
                    "missing": list(report.missing),
                    "absent": list(report.absent),
                },
                "withheld": [w.text for w in withheld],
                **({"answer_judge": answer_judged} if answer_judged else {}),
            },
        )
        if refusal is not None:
            answer = replace(
                answer, sentences=(), refused=True,
                refusal_layer=refusal[0], refusal_reason=refusal[1],
            )
        answer = _with_generation(answer, gen, generation)
        if record:
            now = dt.datetime.now(dt.timezone.utc).isoformat()
            self.store.record_answer(trace_id, now, to_json(answer), answer_citations(answer))
            for entry in shadow:
                self.store.record_shadow(_shadow_entry(entry, question, trace_id, now))
            # Per-answer counts for `tether stats` (grounding is monitored, not assumed).
            metrics, _ = measure_answer(answer, self.store, settings=self.settings, hits=hits)
            self.store.record_metrics(trace_id, metrics_time(), metrics.to_json())
        yield Event("done", answer)

    def _finish(
        self,
        question: str,
        hits: Sequence[Hit],
        drafts: Sequence[Draft],
        kept: Sequence[AnswerSentence],
        dropped: Sequence[Dropped],
        shadow: Sequence[dict[str, str]],
        *,
        trace_id: str,
        generator: str,
        modes: Mapping[str, str] | None,
        timings: dict[str, float],
    ) -> Answer:
        reason = layer = None
        if not hits:
            reason, layer = "nothing in the collection matches the question", "retrieval"
        elif not drafts:
            reason, layer = "no retrieved passage contains a sentence that answers the question", "generator"
        elif not kept:
            reason = f"none of the {len(drafts)} proposed sentences is supported by the retrieved passages"
            layer = "guard"
            withheld = sum(1 for d in dropped if d.reason)
            if withheld:
                reason = (f"none of the {len(drafts)} proposed sentences is supported by original"
                          f" text in the retrieved passages ({withheld} rest only on transcribed"
                          " or generated text, which quote_original_only withholds)")
        return Answer(
            question=question,
            sentences=tuple(kept),
            dropped=tuple(dropped),
            refused=not kept,
            refusal_reason=reason,
            refusal_layer=layer,
            trace_id=trace_id,
            modes=dict(modes or {}),
            generator=generator,
            timings_ms=timings,
            trace={
                "retrieved": [h.passage.passage_id for h in hits],
                "shadow": list(shadow),
            },
        )

    # -- citations ---------------------------------------------------------------

    def resolve(
        self, citation: Citation | Mapping[str, Any], *, principals: Sequence[str] | None = None
    ) -> Resolution:
        """Where a stored citation (record or JSON) points today: exact, relocated,
        changed or missing, with today's range and passages (see ``tether.cite``)."""
        return resolve(citation, self.store, principals=principals)

    def resolve_trace(
        self, trace_id: str, *, principals: Sequence[str] | None = None
    ) -> list[tuple[int, Citation, Resolution]]:
        """Resolve every citation of a recorded answer: ``(sentence, cited, resolution)``."""
        return resolve_trace(self.store, trace_id, principals=principals)

    def ask(self, question: str, **options: Any) -> Answer:
        """Run the whole pipeline and return the Answer (see ``stream`` for options)."""
        answer = None
        for event in self.stream(question, **options):
            if event.kind == "done":
                answer = event.data
        assert isinstance(answer, Answer)
        return answer


def _would_refuse(layer: str, reason: str) -> dict[str, str]:
    return {"gate": "abstain", "layer": layer, "reason": reason, "would": "refuse"}


def _shadow_entry(
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


def _answering(sentence: AnswerSentence, by_id: Mapping[str, Hit]) -> tuple[str, str, str]:
    """The sentence, what it may lean on (its document's title and the sentence before
    it) and the passage it was cut from, as the answer check takes them."""
    citation = sentence.citations[0]
    hit = by_id.get(citation.passage_id)
    if hit is None:
        return sentence.text, citation.title, ""
    before = hit.passage.text[: max(0, citation.start - hit.passage.start)]
    spans = sentence_spans(before)
    previous = before[spans[-1].start : spans[-1].end] if spans else ""
    return sentence.text, f"{hit.document.title}\n{previous}", hit.passage.text


def _recorded(drafts: Iterator[Draft], record: dict[str, Any]) -> Iterator[Draft]:
    """Pass drafts through, noting markers out of range and a provider failure.

    A failure ends the drafts: what was verified before it stays, nothing after it
    is shown, and ``_with_generation`` puts the reason in the answer.
    """
    try:
        for draft in drafts:
            if draft.ignored_markers:
                record.setdefault("ignored_markers", []).append(
                    {"sentence": draft.text.strip(), "markers": list(draft.ignored_markers)}
                )
            yield draft
    except ProviderError as exc:
        record["generator_failure"] = str(exc)


def _with_generation(answer: Answer, gen: Generator, record: dict[str, Any]) -> Answer:
    """The answer with its generator's record in the trace; a refusal if it failed bare."""
    trace = {**answer.trace, **record}
    model = getattr(gen, "model", None)
    if isinstance(model, str):
        trace["generator_model"] = model
    failure = record.get("generator_failure")
    if failure is None or answer.sentences:
        return replace(answer, trace=trace)
    return replace(
        answer,
        trace=trace,
        refused=True,
        refusal_layer="generator",
        refusal_reason=f"the generator failed before any sentence was verified: {failure}",
    )


def verify_answer(
    *,
    passages: Mapping[str, str],
    sentences: Sequence[str] | None = None,
    answer: str | None = None,
    settings: Settings | None = None,
    modes: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The guard on its own: verdicts for ``sentences`` (or ``answer`` split into
    sentences) against free-standing ``passages`` (id → text).

    >>> verify_answer(passages={"a": "Water boils at 100 °C."},
    ...               sentences=["Water boils at 100 °C."])[0]["outcome"]
    'supported'
    """
    settings = settings or load_settings()
    items = list(sentences) if sentences is not None else split_sentences(answer or "")
    evidence = evidence_from_texts(passages)
    results = []
    for text in items:
        verdict = attribute_statements(
            text, evidence, settings=settings, hints=(), modes=modes
        ).verdict
        quote = None
        if verdict.span and verdict.passage_id in passages:
            quote = passages[verdict.passage_id][verdict.span[0] : verdict.span[1]]
        results.append(
            {
                "text": text,
                "outcome": verdict.outcome,
                "passage_id": verdict.passage_id,
                "span": list(verdict.span) if verdict.span else None,
                "quote": quote,
                "score": verdict.score,
                "reasons": list(verdict.reasons),
                "checker": verdict.checker,
            }
        )
    return results
