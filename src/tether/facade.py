"""The ``Tether`` facade: a document collection you ingest into and ask questions of.

The answering itself is ``tether.pipeline``: ``stream`` yields ``Sources`` (what was
retrieved) before any text, then each ``Sentence`` as soon as the guard has verified
it, then ``Done`` with the whole ``Answer``. ``ask`` is the same run, keeping only
the answer. A refusal is an ordinary answer with ``refused=True``, never an exception.
``verify_answer`` is the guard on its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from .config import Settings, default_db_location, load_settings
from .guard.attribute import evidence_from_texts
from .guard.citation import attribute_statements, judged
from .ingest.batch import FileBatch, collect_files
from .ingest.parallel import Done as Progress
from .ingest.parallel import ingest_files
from .ingest.reindex import Reindexed
from .ingest.reindex import reindex as reindex_store
from .ingest.files import IngestResult, Metadata
from .modes import ModesSpec, resolve_modes
from .ops.apikeys import hash_key
from .records import PUBLIC, Answer, Citation, Document, Hit, Version
from .store import DocumentSummary, Store, open_store
from .text.sentences import split_sentences
from .workers import forked_map

if TYPE_CHECKING:  # the answer side, imported on first use: ``tether ingest`` needs none of it
    from .generate import Generator
    from .judges.base import Judge
    from .ops.cite import Resolution
    from .pipeline import Event
    from .retrieve.calibrate import Threshold

_UNSET = object()
# Sentences x passages from which ``verify_answer`` forks its workers: below that the
# whole request takes under ~0.2 s of CPU, about what starting the workers costs.
FORK_PAIRS = 100_000

__all__ = ["Event", "Progress", "Tether", "verify_answer"]


def __getattr__(name: str) -> object:
    # ``Event`` is the pipeline's: importing it here would import the whole pipeline.
    if name == "Event":
        from .pipeline import Event

        return Event
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        self,
        *paths: str | os.PathLike[str],
        meta: Metadata | None = None,
        manifest: str | os.PathLike[str] | None = None,
        progress: Progress | None = None,
        workers: int | None = None,
        verify: bool = False,
        **fields: Any,
    ) -> list[IngestResult]:
        """Ingest files and folders; failures are reported per file, not raised.

        ``meta`` and ``fields`` apply to every file; a ``manifest``'s entry for a file
        (``{"documents": [{"path", "source", "title", ...}]}``) applies over them, and
        an entry whose file is missing is a ``failed`` result. The rest is
        ``ingest_batch``'s.
        """
        batch = collect_files(paths, (meta or Metadata()).merged(fields), manifest=manifest)
        return self.ingest_batch(batch, progress=progress, workers=workers, verify=verify)

    def ingest_batch(
        self,
        batch: FileBatch,
        *,
        progress: Progress | None = None,
        workers: int | None = None,
        verify: bool = False,
    ) -> list[IngestResult]:
        """Ingest what ``collect_files`` found, as ``tether ingest`` does: a file whose
        size and modification time match the store's record is ``unchanged`` without
        being read (``verify`` reads it and compares its bytes); the others are
        extracted by ``workers`` processes (default: the ``ingest_workers`` setting; 0:
        one per core, as many as the work keeps busy, none for a little work; 1: this
        process alone) and written here, in order. ``progress(path, result, size)`` is
        called once per file, after its write is committed.

        The workers are spawned interpreters: a script that ingests many files calls
        this under ``if __name__ == "__main__":``, as for any ``multiprocessing``
        (or passes ``workers=1``)."""
        return batch.failures + ingest_files(
            self.store, batch.files, batch.meta_for, settings=self.settings, verify=verify,
            done=progress, workers=self.settings.ingest_workers if workers is None else workers,
        )

    def reindex(self, *, passage_chars: int | None = None) -> Reindexed:
        """Cut every document's current version into passages again, of about
        ``passage_chars`` characters (default: the ``passage_chars`` setting); every
        stored citation still resolves afterwards, mapped onto the new passages."""
        return reindex_store(self.store, passage_chars=passage_chars or self.settings.passage_chars)

    # -- answer ------------------------------------------------------------------

    def judge(self) -> Judge | None:
        """The model judge the ``judge`` setting names, loaded on first use."""
        if self._judge is _UNSET:
            from .judges import load_judge

            self._judge = load_judge(self.settings)
        return cast("Judge | None", self._judge)

    def generator(self, name: str | None = None, **options: Any) -> Generator:
        from .generate import load_generator
        from .generate.llm import LLM_GENERATORS, settings_options

        name = name or self.settings.generator
        if name in LLM_GENERATORS:
            options = settings_options(self.settings, options)
        key = name if not options else f"{name}:{sorted(options.items())}"
        if key not in self._generators:
            if name == "extractive":
                options.setdefault("max_sentences", self.settings.max_sentences)
                options.setdefault("reader", self.settings.reader)
            self._generators[key] = load_generator(name, **options)
        return self._generators[key]

    def probe_threshold(self) -> Threshold:
        """The probe threshold in force for this store (see ``calibrate``)."""
        if self._threshold is None:
            from .retrieve.calibrate import resolve_threshold

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
        from . import pipeline
        from .verify.rules import rules_off_setting

        rules_off_setting(self.settings.support_rules_off)  # a typo fails before any answer
        yield from pipeline.stream(
            self, question, generator=generator or self.generator(),
            principals=principals, modes=modes, record=record,
        )

    # -- reading -----------------------------------------------------------------

    def search(
        self, question: str, *, principals: Sequence[str] | None = None, k: int | None = None
    ) -> list[Hit]:
        """The passages an answer to ``question`` would start from (the ``Sources`` of
        ``stream``), at most ``k`` (default ``top_k``), only from documents
        ``principals`` may read (``None``: all). An empty or overlong question is an
        ``InputError``."""
        from .retrieve.focused import sources

        return sources(self.store, question, self.settings, k=k or self.settings.top_k,
                       principals=principals)

    def read(
        self, doc_id: str, *, version: str | None = None, principals: Sequence[str] | None = None
    ) -> tuple[Document, Version] | None:
        """A document and its current version (or the stored ``version`` a citation
        names); ``None`` when there is no such document or version, or ``principals``
        may not read it (the cases look the same to a caller)."""
        document = self.store.document(doc_id)
        if document is None or (principals is not None and set(document.acl).isdisjoint(principals)):
            return None
        found = self.store.version(doc_id, version)
        return None if found is None else (document, found)

    def documents(
        self, *, principals: Sequence[str] | None = None, limit: int = 500
    ) -> list[DocumentSummary]:
        """The first ``limit`` documents ``principals`` may read, ordered by source."""
        return self.store.list_documents(principals, limit=limit)

    def key_principals(self, key: str) -> tuple[str, ...] | None:
        """The principals an API key acts as (``public`` included, as in the service);
        ``None`` for a key this store does not hold or has revoked."""
        found = self.store.key_for(hash_key(key))
        return None if found is None else tuple(dict.fromkeys((*found.principals, PUBLIC)))

    # -- citations ---------------------------------------------------------------

    def resolve(
        self, citation: Citation | Mapping[str, Any], *, principals: Sequence[str] | None = None
    ) -> Resolution:
        """Where a stored citation (record or JSON) points today: exact, relocated,
        changed or missing, with today's range and passages (see ``tether.cite``)."""
        from .ops.cite import resolve

        return resolve(citation, self.store, principals=principals)

    def resolve_trace(
        self, trace_id: str, *, principals: Sequence[str] | None = None
    ) -> list[tuple[int, Citation, Resolution]]:
        """Resolve every citation of a recorded answer: ``(sentence, cited, resolution)``."""
        from .ops.cite import resolve_trace

        return resolve_trace(self.store, trace_id, principals=principals)

    def ask(self, question: str, **options: Any) -> Answer:
        """Run the whole pipeline and return the Answer (see ``stream`` for options)."""
        from .pipeline import Done

        answer = None
        for event in self.stream(question, **options):
            if isinstance(event, Done):
                answer = event.answer
        assert isinstance(answer, Answer)
        return answer


def verify_answer(
    *,
    passages: Mapping[str, str],
    sentences: Sequence[str] | None = None,
    answer: str | None = None,
    settings: Settings | None = None,
    modes: Mapping[str, str] | None = None,
    judge: Judge | None = None,
    workers: int = 1,
) -> list[dict[str, Any]]:
    """The guard on its own: verdicts for ``sentences`` (or ``answer`` split into
    sentences) against free-standing ``passages`` (id → text).

    With a ``judge`` (and the ``judge`` gate not ``off``) each verdict goes through it
    as in ``ask``: by default it can only take support away. Without one, a request of
    at least ``FORK_PAIRS`` sentences × passages is shared out among ``workers``
    forked processes (the same verdicts; a process that holds threads or connections
    should leave ``workers`` at 1).

    >>> verify_answer(passages={"a": "Water boils at 100 °C."},
    ...               sentences=["Water boils at 100 °C."])[0]["outcome"]
    'supported'
    """
    settings = settings or load_settings()
    items = list(sentences) if sentences is not None else split_sentences(answer or "")
    evidence = evidence_from_texts(passages)
    judge_mode = resolve_modes(settings.modes, modes)["judge"]
    reader = judge if judge_mode != "off" else None

    def row(text: str) -> dict[str, Any]:
        result = attribute_statements(text, evidence, settings=settings, hints=(), modes=modes)
        if reader is not None:
            result, _ = judged(text, result, reader, mode=judge_mode,
                               accept_paraphrase=settings.judge_accepts_paraphrase)
        verdict = result.verdict
        quote = None
        if verdict.span and verdict.passage_id is not None and verdict.passage_id in passages:
            quote = passages[verdict.passage_id][verdict.span[0] : verdict.span[1]]
        return {
            "text": text,
            "outcome": verdict.outcome,
            "passage_id": verdict.passage_id,
            "span": list(verdict.span) if verdict.span else None,
            "quote": quote,
            "score": verdict.score,
            "reasons": list(verdict.reasons),
            "checker": verdict.checker,
            "rules": list(verdict.rules),
        }

    # A judge (even one its gate leaves off) holds a model's threads or a connection
    # that a fork would copy: the work stays in this process.
    if judge is not None or workers <= 1 or len(items) * len(passages) < FORK_PAIRS:
        return [row(text) for text in items]
    # The first sentence here, before the fork: it builds the passages' index and
    # prepares every passage once, for all the workers.
    return [row(items[0])] + forked_map(row, items[1:], workers=workers)
