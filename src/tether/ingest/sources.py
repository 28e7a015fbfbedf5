"""Ingest stage: files (or bytes) + metadata → Document, Version and Passages in the store.

Extraction and segmentation happen before the store is touched; the write itself is
one transaction (see ``store``), so a document either lands whole or not at all.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import importlib.metadata
import json
import logging
import os
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .. import ids
from ..config import Settings
from ..errors import InputError, TetherError
from ..records import KINDS, PUBLIC, Document, Passage, Piece, SlicedPassages, Version
from ..store import Store
from ..store.protocols import FileRecord
from ..instructions import detect as injection
from ..text.jsonin import loads_strict
from .extract import SUPPORTED_SUFFIXES, extract_bytes, read_file
from .segment import passage_spans, region_label

__all__ = [
    "SKIP_REASONS",
    "Built",
    "FileJob",
    "IngestResult",
    "Metadata",
    "Prepared",
    "Skipped",
    "build_document",
    "build_passages",
    "fingerprint",
    "ingest_bytes",
    "ingest_file",
    "iter_files",
    "library_warnings",
    "load_manifest",
    "manifest_failures",
    "plan_file",
    "prepare_file",
    "sliced_passages",
    "write_prepared",
]


@dataclass(frozen=True, slots=True)
class Metadata:
    """What the caller says about a document; unset fields get documented defaults."""

    source: str | None = None
    title: str | None = None
    license: str = "unknown"
    fetched_at: str | None = None  # default: today (UTC)
    kind: str = "original"
    process: str | None = None
    acl: tuple[str, ...] = (PUBLIC,)

    def merged(self, other: dict[str, Any]) -> Metadata:
        """These options, with a manifest entry's values where the entry sets them."""
        known = {"source", "title", "license", "fetched_at", "kind", "process", "acl"}
        values = {k: v for k, v in other.items() if k in known and v is not None}
        if "acl" in values:
            acl = values["acl"]
            values["acl"] = tuple([acl] if isinstance(acl, str) else acl)
        return replace(self, **values)

    def validated(self) -> Metadata:
        if self.kind not in KINDS:
            raise InputError(f"unknown kind {self.kind!r}", hint="use one of " + ", ".join(KINDS))
        if self.kind != "original" and not self.process:
            raise InputError(
                f"a {self.kind} document needs the process that produced it",
                hint="pass --process, e.g. --process 'OCR: tesseract 5'",
            )
        if self.fetched_at is not None:
            try:
                dt.datetime.fromisoformat(self.fetched_at)
            except ValueError as exc:
                raise InputError(
                    f"fetched_at {self.fetched_at!r} is not an ISO date",
                    hint="use YYYY-MM-DD or an ISO timestamp",
                ) from exc
        if not self.acl or any(not isinstance(p, str) or not p.strip() for p in self.acl):
            raise InputError("acl must list at least one non-empty principal")
        for name, value in self._texts():
            if not _is_utf8(value):  # lone surrogates: no store or JSON can hold them
                raise InputError(f"{name} is not valid text (bytes that are not UTF-8)")
        return self

    def _texts(self) -> Iterator[tuple[str, str]]:
        for name in ("source", "title", "license", "fetched_at", "process"):
            value = getattr(self, name)
            if isinstance(value, str):
                yield name, value
        yield from (("acl", principal) for principal in self.acl)


@dataclass(frozen=True, slots=True)
class IngestResult:
    path: str
    # ingested | updated | unchanged | failed | empty (no bytes but whitespace: nothing to
    # ingest, and not a failure a scheduled ingest would report on every run)
    status: str
    doc_id: str | None = None
    version: str | None = None
    passages: int = 0
    chars: int = 0
    error: str | None = None
    flags: tuple[str, ...] = field(default_factory=tuple)
    # Text extraction dropped as unseen by a reader, (reason, pieces): PDF text drawn
    # white on white, invisible, too small or off the page (flagged ``hidden-pdf``).
    dropped: tuple[tuple[str, int], ...] = field(default_factory=tuple)
    # What the PDF reader warned while the file was read (``tether ingest --verbose``).
    warnings: tuple[str, ...] = ()
    # True when the file was not read at all: its size and mtime matched the record.
    skipped: bool = False


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


# Why a folder walk passes over an entry, in the order the ingest summary lists them.
SKIP_REASONS = ("unsupported type", "empty", "hidden", "not a regular file", "unreadable folder")


@dataclass(frozen=True, slots=True)
class Skipped:
    """An entry a folder walk passed over, and why (one of ``SKIP_REASONS``)."""

    path: str
    reason: str
    detail: str = ""


def iter_files(
    paths: Sequence[str | Path], skipped: list[Skipped] | None = None
) -> Iterator[Path]:
    """Files named directly, and supported files under folders (recursively, sorted,
    hidden entries skipped). A missing path is an error before anything is written.

    What a folder walk passes over (another type, hidden, a link to a folder, a FIFO,
    a folder it cannot read) is appended to ``skipped`` when given, never lost."""
    resolved = [Path(p) for p in paths]
    for path in resolved:
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
    note = skipped.append if skipped is not None else (lambda _: None)
    for path in resolved:
        if path.is_dir():
            yield from _walk(path, note)
        else:
            yield path


def _walk(root: Path, note: Callable[[Skipped], None]) -> list[Path]:
    """The supported files under ``root``, sorted; every other entry goes to ``note``."""

    def unreadable(exc: OSError) -> None:
        note(Skipped(str(exc.filename or root), "unreadable folder", exc.strerror or str(exc)))

    found: list[Path] = []
    for top, folders, names in os.walk(root, onerror=unreadable):
        here = Path(top)
        kept = []
        for name in sorted(folders):
            child = here / name
            if name.startswith("."):
                note(Skipped(str(child), "hidden", "a folder, not walked"))
            elif child.is_symlink():
                note(Skipped(str(child), "not a regular file", "a link to a folder, not followed"))
            else:
                kept.append(name)
        folders[:] = kept
        for name in sorted(names):
            child = here / name
            skip = _skip_reason(child)
            if skip is None:
                found.append(child)
            else:
                note(Skipped(str(child), *skip))
    return sorted(found)


def _skip_reason(path: Path) -> tuple[str, str] | None:
    if path.name.startswith("."):
        return "hidden", ""
    if not path.is_file():
        return "not a regular file", "a broken link" if path.is_symlink() else "a FIFO, socket or device"
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        return "unsupported type", path.suffix.lower() or "no extension"
    return None


def manifest_failures(
    entries: dict[Path, dict[str, Any]], paths: Sequence[str | Path]
) -> list[IngestResult]:
    """A failed result for each manifest entry under ``paths`` whose file is missing:
    the manifest promised a document that cannot be ingested."""
    roots = [Path(p).resolve() for p in paths]
    missing = sorted(
        entry for entry in entries
        if not entry.exists() and any(entry == r or r in entry.parents for r in roots)
    )
    return [
        IngestResult(path=_shown(entry), status="failed",
                     error="listed in the manifest, but there is no such file")
        for entry in missing
    ]


def _shown(path: Path) -> str:
    """``path`` relative to the working folder when it lies under it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def load_manifest(path: str | Path) -> dict[Path, dict[str, Any]]:
    """``{"documents": [{"path", "source", "title", ...}]}``, paths relative to the file."""
    manifest = Path(path)
    try:
        # Strict: invalid UTF-8 or a "\udcff" escape in a manifest is bad input (exit 2)
        # before anything is written, not a title no store can hold.
        data = loads_strict(manifest.read_bytes(), where=f"manifest {manifest}")
        entries = data["documents"]
        return {
            (manifest.parent / entry["path"]).resolve(): dict(entry)
            for entry in entries
        }
    except FileNotFoundError as exc:
        raise InputError(f"manifest not found: {manifest}") from exc
    except OSError as exc:  # a folder, no permission
        raise InputError(f"cannot read manifest {manifest}: {exc.strerror or exc}") from exc
    except (KeyError, TypeError) as exc:
        raise InputError(
            f"manifest {manifest} must be {{\"documents\": [{{\"path\": ...}}, ...]}}: missing {exc}"
        ) from exc


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


def ingest_file(
    store: Store, path: Path, meta: Metadata, *, settings: Settings, verify: bool = False
) -> IngestResult:
    """Ingest one file; a broken file gives a ``failed`` result, never a partial write.

    A file whose size and modification time match the store's record of it (same
    metadata and settings) is ``unchanged`` without being read; ``verify`` reads it
    and compares its bytes instead. Otherwise it is read once (bounded) and takes the
    same path as uploaded bytes.
    """
    job = plan_file(store, path, meta, settings=settings, verify=verify)
    if isinstance(job, IngestResult):
        return job
    return write_prepared(store, prepare_file(job, settings=settings))


def ingest_bytes(
    store: Store, data: bytes, *, media_type: str, meta: Metadata, settings: Settings
) -> IngestResult:
    """Ingest an upload; unlike files, failures raise (the caller reports them)."""
    if not meta.source:
        raise InputError("an uploaded document needs a source", hint="set its source URL or name")
    meta.validated()
    return _ingest(
        store, data, media_type, meta, name=meta.source,
        default_source=meta.source, default_title=meta.source, settings=settings,
    )


def _ingest(
    store: Store,
    data: bytes,
    media_type: str,
    meta: Metadata,
    *,
    name: str,
    default_source: str,
    default_title: str,
    settings: Settings,
) -> IngestResult:
    """Extract, segment, then one store write: a failure before ``put`` writes nothing,
    and ``put`` is one transaction, so a document lands whole or not at all."""
    built = build_document(data, media_type, meta, name=name, default_source=default_source,
                           default_title=default_title, settings=settings)
    return _put(store, built)


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


def _put(store: Store, built: Built) -> IngestResult:
    status = store.put(built.document, built.version, built.passages)
    return IngestResult(
        path=built.name,
        status=status,
        doc_id=built.document.doc_id,
        version=built.version.version,
        passages=len(built.passages),
        chars=len(built.version.text),
        flags=built.flags,
        dropped=built.dropped,
    )


# -- files the store has seen --------------------------------------------------

# Bump when what ingest makes of the same bytes changes in a way a package version
# does not show (a development tree): every file is then read again.
INGEST_RECIPE = 3  # 2: HTML visibility and Markdown rendered (ADR 0046); 3: HTML code fenced, headings over tables (ADR 0056)
# A file modified this recently may change again within the same mtime tick after it
# was read (the "racy" case git knows): its record is kept untrusted (mtime 0), so the
# next run reads it and compares its bytes.
_RACY_NS = 2_000_000_000
# Settings that change what a file becomes; a record made under others is not reused.
_INGEST_SETTINGS = (
    "passage_chars", "max_file_bytes", "max_text_chars", "max_pdf_pages", "max_pdf_tokens",
    "max_pdf_page_tokens", "min_pdf_text_pt", "max_html_depth", "max_decompression_ratio",
)


@functools.cache
def _package_version() -> str:
    try:
        return importlib.metadata.version("tether")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - not installed
        return "unknown"


def fingerprint(meta: Metadata, settings: Settings) -> str:
    """A digest of the metadata and settings a file is ingested with (and the code)."""
    fields = [INGEST_RECIPE, _package_version(), meta.source, meta.title, meta.license,
              meta.fetched_at, meta.kind, meta.process, list(meta.acl),
              [getattr(settings, name, None) for name in _INGEST_SETTINGS]]
    return hashlib.sha256(json.dumps(fields).encode("utf-8", "surrogatepass")).hexdigest()


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
    record = store.file_record(_record_key(resolved))
    if record is not None and record.fingerprint != stamp:
        record = None
    if (record is not None and not verify and record.mtime_ns > 0
            and (record.size, record.mtime_ns) == (size, mtime_ns)):
        return _unchanged(str(path), record)
    return FileJob(path, meta, stamp, size, mtime_ns, time.time_ns(), record, resolved)


def _record_key(resolved: Path) -> str:
    """The store's key for a file's record: its resolved path, or, for a name whose
    bytes are not UTF-8 (``os.fsdecode`` hands them over as lone surrogates, which no
    store or JSON can hold), its ``file://`` URI with those bytes percent-encoded. A
    resolved path starts with ``/`` and a URI with ``file:``, so the keys never meet,
    and the same bytes give the same key on every run (re-ingest finds the record)."""
    key = str(resolved)
    return key if _is_utf8(key) else resolved.as_uri()


def _readable_name(name: str) -> str:
    """A file name as text for a person (the default title): bytes that are not UTF-8
    become U+FFFD. Lossy on purpose; the source URI keeps the exact bytes."""
    return os.fsencode(name).decode("utf-8", "replace")


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: bytes that were not UTF-8
        return False
    return True


def _unchanged(name: str, record: FileRecord) -> IngestResult:
    return IngestResult(path=name, status="unchanged", doc_id=record.doc_id, version=record.version,
                        passages=record.passages, chars=record.chars, flags=record.flags,
                        dropped=record.dropped, skipped=True)


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


def write_prepared(store: Store, prepared: Prepared) -> IngestResult:
    """The one writer: the document in its own transaction, then the file's record."""
    job = prepared.job
    if prepared.result is not None:
        return replace(prepared.result, warnings=prepared.warnings)
    if prepared.built is None:  # the bytes the record names: only the stat was new
        record = job.record
        assert record is not None
        document = store.document(record.doc_id)
        if document is not None:
            store.record_file(_trusted(replace(record, size=job.size, mtime_ns=job.mtime_ns), job),
                              document)
        return replace(_unchanged(str(job.path), record), warnings=prepared.warnings, skipped=False)
    result = _put(store, prepared.built)
    built = prepared.built
    record = FileRecord(
        path=_record_key(job.resolved), size=job.size, mtime_ns=job.mtime_ns, sha256=prepared.sha256,
        fingerprint=job.fingerprint, doc_id=built.document.doc_id, version=built.version.version,
        passages=len(built.passages), chars=len(built.version.text), flags=built.flags,
        dropped=built.dropped,
    )
    store.record_file(_trusted(record, job), built.document)
    return replace(result, warnings=prepared.warnings)


def _trusted(record: FileRecord, job: FileJob) -> FileRecord:
    """The record, its mtime zeroed (not to be trusted) when the file was modified
    within the racy window before it was stat-ed, or could not be stat-ed."""
    if job.mtime_ns <= 0 or job.stat_ns - job.mtime_ns < _RACY_NS:
        return replace(record, mtime_ns=0)
    return record


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
