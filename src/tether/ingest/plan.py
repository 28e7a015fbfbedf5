"""Ingest's plan and prepare steps (plan → prepare → write), touching no store but to plan.

``plan_file`` stats a file and asks the store's record of it (``files``): an unchanged
file is done there, any other becomes a ``FileJob``. ``prepare_file`` reads, extracts,
detects and segments a job in any process (``parallel``'s workers run it) and gives a
``Prepared``, which ``write.write_prepared`` writes. ``build_document`` is the part
files and uploaded bytes share: extraction and segmentation into a ``Built``
document, which pickles compactly from a worker to the writer.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from .. import ids
from ..config import Settings
from ..errors import TetherError
from ..instructions import detect as injection
from ..records import Document, Passage, Piece, SlicedPassages, Version
from ..store import Store
from ..store.protocols import FileRecord
from .extract import extract_bytes, read_file
from .files import IngestResult, Metadata, fingerprint, record_key, unchanged_result
from .segment import passage_spans, region_label

__all__ = [
    "Built",
    "FileJob",
    "Prepared",
    "build_document",
    "build_passages",
    "library_warnings",
    "plan_file",
    "prepare_file",
    "sliced_passages",
]


@dataclass(frozen=True, slots=True)
class FileJob:
    """A file to read: where, with which metadata, and what the store knew of it."""

    path: Path
    meta: Metadata
    fingerprint: str
    size: int
    mtime_ns: int
    stat_ns: int  # when it was stat-ed (wall clock), for the racy case
    record: FileRecord | None
    resolved: Path  # ``path`` resolved when planned (each resolve reads every link)


@dataclass(frozen=True, slots=True)
class Prepared:
    """What reading a file gave: a document to write, the same bytes as recorded, or
    a failure (``result``). Built in a worker, written by the one writer."""

    job: FileJob
    sha256: str = ""
    built: Built | None = None
    result: IngestResult | None = None
    warnings: tuple[str, ...] = ()

    def outcome(self) -> tuple[Any, ...]:
        """Every field but the job: what a worker sends back to the writer, which holds
        the job already (unpickling a job's records cost it ~30 µs a file)."""
        return tuple(getattr(self, f.name) for f in fields(self)[1:])

    @classmethod
    def of(cls, job: FileJob, outcome: tuple[Any, ...]) -> Prepared:
        """The prepared job from its ``outcome``."""
        return cls(job, *outcome)


def plan_file(
    store: Store, path: Path, meta: Metadata, *, settings: Settings, verify: bool = False
) -> FileJob | IngestResult:
    """The job of reading ``path``, or its ``unchanged`` result when its size and
    modification time match the store's record (same metadata and settings): O(stat)."""
    resolved = path.resolve()
    try:
        info = resolved.stat()
        size, mtime_ns = info.st_size, info.st_mtime_ns
    except OSError:
        size = mtime_ns = -1  # the read reports why
    stamp = fingerprint(meta, settings)
    record = store.file_record(record_key(resolved))
    if record is not None and record.fingerprint != stamp:
        record = None
    if (record is not None and not verify and record.mtime_ns > 0
            and (record.size, record.mtime_ns) == (size, mtime_ns)):
        return unchanged_result(str(path), record)
    return FileJob(path, meta, stamp, size, mtime_ns, time.time_ns(), record, resolved)


def prepare_file(job: FileJob, *, settings: Settings) -> Prepared:
    """Read, extract and segment one file, touching no store (worker processes run
    this). Bytes equal to the record's need no extraction."""
    with library_warnings() as lines:
        prepared = _prepare(job, settings)
    return replace(prepared, warnings=tuple(dict.fromkeys(lines)))


def _prepare(job: FileJob, settings: Settings) -> Prepared:
    path = job.path
    try:
        job.meta.validated()
        data, media_type = read_file(path, settings=settings)
        if not data.strip():
            return Prepared(job, result=IngestResult(path=str(path), status="empty"))
        digest = hashlib.sha256(data).hexdigest()
        if job.record is not None and job.record.sha256 == digest:
            return Prepared(job, digest)
        built = build_document(
            data, media_type, job.meta, name=str(path), default_source=job.resolved.as_uri(),
            default_title=_readable_name(path.stem), settings=settings,
        )
        return Prepared(job, digest, built)
    except TetherError as exc:
        # Messages name the file they are about; the result already does, so once.
        error = str(exc).removeprefix(f"{path}: ")
        return Prepared(job, result=IngestResult(path=str(path), status="failed", error=error))


def _readable_name(name: str) -> str:
    """A file name as text for a person (the default title): bytes that are not UTF-8
    become U+FFFD. Lossy on purpose; the source URI keeps the exact bytes."""
    return os.fsencode(name).decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class Built:
    """A document ready to write: what extraction and segmentation made of some bytes."""

    name: str
    document: Document
    version: Version
    passages: Sequence[Passage]
    # Every passage's flags and those of hidden HTML text, which extraction drops, so
    # no passage carries them; the result reports them (observability only).
    flags: tuple[str, ...]
    dropped: tuple[tuple[str, int], ...]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (worker to writer) with each passage as the few fields of its own
        (``SlicedPassages``' pieces): its text is a slice of the version's and the rest
        is the document's, so the writer does not unpickle a dataclass field by field
        (that was a fifth of its time). Passages kept otherwise travel whole."""
        doc, version, passages = self.document, self.version, self.passages
        parts = (self.name, doc, version, self.flags, self.dropped)
        if (isinstance(passages, SlicedPassages) and passages.doc_id == doc.doc_id
                and passages.version == version.version and passages.text is version.text
                and passages.kind == doc.kind and passages.process == doc.process):
            return (_rebuilt, (parts, passages.pieces))
        return (Built, (*parts[:3], tuple(passages), *parts[3:]))


def _rebuilt(parts: tuple[Any, ...], pieces: tuple[Piece, ...]) -> Built:
    name, document, version, flags, dropped = parts
    passages = SlicedPassages(document.doc_id, version.version, version.text, document.kind,
                              document.process, pieces)
    return Built(name, document, version, passages, flags, dropped)


def build_document(
    data: bytes,
    media_type: str,
    meta: Metadata,
    *,
    name: str,
    default_source: str,
    default_title: str,
    settings: Settings,
) -> Built:
    """Extraction and segmentation, touching no store (worker processes run this)."""
    extracted = extract_bytes(data, media_type=media_type, settings=settings, name=name)
    source = meta.source or default_source
    document = Document(
        doc_id=ids.doc_id_for(source),
        source=source,
        title=meta.title or extracted.title or default_title,
        license=meta.license,
        fetched_at=meta.fetched_at or _today(),
        media_type=extracted.media_type,
        acl=meta.acl,
        kind=meta.kind,  # type: ignore[arg-type]
        process=meta.process,
    )
    version = Version(
        doc_id=document.doc_id,
        version=ids.version_of(extracted.text),
        text=extracted.text,
        extractor=extracted.extractor,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        regions=extracted.regions,
    )
    passages = sliced_passages(version, document, max_chars=settings.passage_chars)
    flagged = {f for *_, flags, _heading in passages.pieces for f in flags}
    flags = tuple(sorted(flagged | set(extracted.hidden_flags)))
    return Built(name, document, version, passages, flags, tuple(extracted.dropped))


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def build_passages(version: Version, document: Document, *, max_chars: int) -> list[Passage]:
    """Segment a version into passages carrying the document's provenance."""
    return list(sliced_passages(version, document, max_chars=max_chars))


def sliced_passages(version: Version, document: Document, *, max_chars: int) -> SlicedPassages:
    """``build_passages`` as the pieces of ``SlicedPassages``: records are made only
    where one is read, and a worker sends the pieces to the writer as they are (the
    store writes its rows from them)."""
    regions = version.regions
    breaks = [r.start for r in regions]
    spans = passage_spans(version.text, max_chars=max_chars, breaks=breaks)
    text = version.text
    texts = [text[span.start : span.end] for span in spans]
    passage_ids = ids.passage_ids(document.doc_id, version.version, [(span.start, span.end) for span in spans])
    pieces = [
        (passage_id, span.start, span.end, region_label(regions, span.start) if regions else None,
         flags, span.heading)
        for passage_id, span, flags in zip(passage_ids, spans, injection.detect_each(texts), strict=True)
    ]
    return SlicedPassages(document.doc_id, version.version, text, document.kind, document.process, pieces)


class _Heard(logging.Handler):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append("PDF reader: " + " ".join(record.getMessage().split()))


@contextmanager
def library_warnings() -> Iterator[list[str]]:
    """What the PDF reader logs or warns while one file is read, kept off the terminal
    (the file's result already says whether it failed) and handed back for --verbose."""
    lines: list[str] = []
    logger = logging.getLogger("pypdf")
    handler, propagate = _Heard(lines), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield lines
        lines.extend(f"{w.category.__name__}: " + " ".join(str(w.message).split()) for w in caught)
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
