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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import ids
from .attribute import evidence_from_hits, evidence_from_texts
from .config import Settings, default_db_location, load_settings
from .generate import Generator, load_generator
from .attribute import attribute
from .guard import judge_draft
from .ingest import IngestResult, Metadata, ingest_file, iter_files
from .records import Answer, AnswerSentence, Draft, Dropped, Hit, to_json
from .retrieve import retrieve
from .segment import split_sentences
from .store import Store, open_store

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

    def generator(self, name: str = "extractive", **options: Any) -> Generator:
        key = name if not options else f"{name}:{sorted(options.items())}"
        if key not in self._generators:
            if name == "extractive":
                options.setdefault("max_sentences", self.settings.max_sentences)
            self._generators[key] = load_generator(name, **options)
        return self._generators[key]

    def stream(
        self,
        question: str,
        *,
        principals: Sequence[str] | None = None,
        generator: Generator | None = None,
        modes: Mapping[str, str] | None = None,
        record: bool = True,
    ) -> Iterator[Event]:
        """Sources first, then verified sentences as they pass, then the Answer."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        gen = generator or self.generator()
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

        kept: list[AnswerSentence] = []
        dropped: list[Dropped] = []
        shadow: list[dict[str, str]] = []
        drafts: list[Draft] = []
        if hits:
            texts: dict[tuple[str, str], str | None] = {}

            def version_text(doc_id: str, version: str) -> str | None:
                if (doc_id, version) not in texts:
                    found = self.store.version(doc_id, version)
                    texts[doc_id, version] = found.text if found else None
                return texts[doc_id, version]

            evidence = evidence_from_hits(hits, version_text)
            seen: set[str] = set()
            for draft in gen.generate(question, hits):
                text = draft.text.strip()
                if not text or text in seen:
                    continue
                seen.add(text)
                drafts.append(draft)
                outcome, note = judge_draft(draft, evidence, settings=self.settings, modes=modes)
                if note:
                    shadow.append(note)
                if isinstance(outcome, AnswerSentence):
                    kept.append(outcome)
                    timings.setdefault("first_sentence_ms", _ms(started))
                    yield Event("sentence", outcome)
                else:
                    dropped.append(outcome)
        timings["total_ms"] = _ms(started)
        answer = self._finish(
            question, hits, drafts, kept, dropped, shadow,
            trace_id=trace_id, generator=gen.name, modes=modes, timings=timings,
        )
        if record:
            self.store.record_answer(
                trace_id, dt.datetime.now(dt.timezone.utc).isoformat(), to_json(answer)
            )
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

    def ask(self, question: str, **options: Any) -> Answer:
        """Run the whole pipeline and return the Answer (see ``stream`` for options)."""
        answer = None
        for event in self.stream(question, **options):
            if event.kind == "done":
                answer = event.data
        assert isinstance(answer, Answer)
        return answer


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
        verdict = attribute(text, evidence, settings=settings, modes=modes).verdict
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
