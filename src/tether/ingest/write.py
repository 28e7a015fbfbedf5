"""Ingest's write step (plan → prepare → write), and the entry points that run all three.

``write_prepared`` is the one writer: a prepared document in its own transaction, then
the file's record (its mtime left untrusted when the file may still change in the
same tick). ``ingest_file`` plans, prepares and writes one file in this process;
``ingest_bytes`` does the same for an upload (no file, no record). Many files go
through ``parallel.ingest_files``, which prepares in workers and writes here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..config import Settings
from ..errors import InputError
from ..store import Store
from ..store.protocols import FileRecord
from .files import IngestResult, Metadata, record_key, unchanged_result
from .plan import Built, FileJob, Prepared, build_document, plan_file, prepare_file

__all__ = ["ingest_bytes", "ingest_file", "write_prepared"]

# A file modified this recently may change again within the same mtime tick after it
# was read (the "racy" case git knows): its record is kept untrusted (mtime 0), so the
# next run reads it and compares its bytes.
_RACY_NS = 2_000_000_000


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
        return replace(unchanged_result(str(job.path), record), warnings=prepared.warnings, skipped=False)
    result = _put(store, prepared.built)
    built = prepared.built
    record = FileRecord(
        path=record_key(job.resolved), size=job.size, mtime_ns=job.mtime_ns, sha256=prepared.sha256,
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
