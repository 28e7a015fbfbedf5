"""Ingest stage: files (or bytes) + metadata → Document, Version and Passages in the store.

Extraction and segmentation happen before the store is touched; the write itself is
one transaction (see ``store``), so a document either lands whole or not at all.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import ids
from ..config import Settings
from ..errors import InputError, TetherError
from ..records import KINDS, PUBLIC, Document, Passage, Version
from ..store import Store
from ..text import instructions as injection
from .extract import SUPPORTED_SUFFIXES, extract_bytes, read_file
from .segment import passage_spans, region_label

__all__ = [
    "SKIP_REASONS",
    "IngestResult",
    "Metadata",
    "Skipped",
    "build_passages",
    "ingest_bytes",
    "ingest_file",
    "iter_files",
    "load_manifest",
    "manifest_failures",
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
        return self


@dataclass(frozen=True, slots=True)
class IngestResult:
    path: str
    status: str  # ingested | updated | unchanged | failed
    doc_id: str | None = None
    version: str | None = None
    passages: int = 0
    chars: int = 0
    error: str | None = None
    flags: tuple[str, ...] = field(default_factory=tuple)
    # Text extraction dropped as unseen by a reader, (reason, pieces): PDF text drawn
    # white on white, invisible, too small or off the page (flagged ``hidden-pdf``).
    dropped: tuple[tuple[str, int], ...] = field(default_factory=tuple)


def _today() -> str:
    return dt.datetime.now(dt.timezone.utc).date().isoformat()


# Why a folder walk passes over an entry, in the order the ingest summary lists them.
SKIP_REASONS = ("unsupported type", "hidden", "not a regular file", "unreadable folder")


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
        data = json.loads(manifest.read_text(encoding="utf-8"))
        entries = data["documents"]
        return {
            (manifest.parent / entry["path"]).resolve(): dict(entry)
            for entry in entries
        }
    except FileNotFoundError as exc:
        raise InputError(f"manifest not found: {manifest}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"manifest {manifest} is not valid JSON: {exc}") from exc
    except (KeyError, TypeError) as exc:
        raise InputError(
            f"manifest {manifest} must be {{\"documents\": [{{\"path\": ...}}, ...]}}: missing {exc}"
        ) from exc


def build_passages(
    version: Version, document: Document, *, max_chars: int
) -> list[Passage]:
    """Segment a version into passages carrying the document's provenance."""
    breaks = [r.start for r in version.regions]
    passages = []
    for span in passage_spans(version.text, max_chars=max_chars, breaks=breaks):
        text = version.text[span.start : span.end]
        passages.append(
            Passage(
                passage_id=ids.passage_id_for(document.doc_id, version.version, span.start, span.end),
                doc_id=document.doc_id,
                version=version.version,
                start=span.start,
                end=span.end,
                text=text,
                kind=document.kind,
                region=region_label(version.regions, span.start),
                process=document.process,
                flags=injection.detect(text),
            )
        )
    return passages


def ingest_file(store: Store, path: Path, meta: Metadata, *, settings: Settings) -> IngestResult:
    """Ingest one file; a broken file gives a ``failed`` result, never a partial write.

    The file is read once (bounded) and then takes the same path as uploaded bytes.
    """
    try:
        meta.validated()
        data, media_type = read_file(path, settings=settings)
        return _ingest(
            store, data, media_type, meta, name=str(path),
            default_source=path.resolve().as_uri(), default_title=path.stem, settings=settings,
        )
    except TetherError as exc:
        # Messages name the file they are about; the result already does, so once.
        error = str(exc).removeprefix(f"{path}: ")
        return IngestResult(path=str(path), status="failed", error=error)


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
        created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        regions=extracted.regions,
    )
    passages = build_passages(version, document, max_chars=settings.passage_chars)
    status = store.put(document, version, passages)
    # Hidden HTML text is dropped by extraction, so no passage carries its flags; the
    # result reports them (observability only).
    flags = {f for p in passages for f in p.flags} | set(extracted.hidden_flags)
    return IngestResult(
        path=name,
        status=status,
        doc_id=document.doc_id,
        version=version.version,
        passages=len(passages),
        chars=len(extracted.text),
        flags=tuple(sorted(flags)),
        dropped=extracted.dropped,
    )
