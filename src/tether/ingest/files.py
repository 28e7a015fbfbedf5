"""Ingest, before plan → prepare → write: what is ingested and what the store knew of it.

The caller's ``Metadata`` and the ``IngestResult`` each file gets; the folder walk
(``iter_files``, and ``Skipped`` for what it passes over); manifests of per-file
metadata; and a file's identity in the store's records (``record_key``) with the
``fingerprint`` of the metadata, settings and code it was ingested with, by which
``plan`` decides a file is unchanged without reading it.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import importlib.metadata
import json
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import InputError
from ..records import KINDS, PUBLIC
from ..store.protocols import FileRecord
from ..text.jsonin import loads_strict
from .extract import SUPPORTED_SUFFIXES

__all__ = [
    "INGEST_RECIPE",
    "SKIP_REASONS",
    "IngestResult",
    "Metadata",
    "Skipped",
    "fingerprint",
    "iter_files",
    "load_manifest",
    "manifest_failures",
    "record_key",
    "unchanged_result",
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


# -- files the store has seen --------------------------------------------------

# Bump when what ingest makes of the same bytes changes in a way a package version
# does not show (a development tree): every file is then read again.
INGEST_RECIPE = 4  # 2: HTML visibility and Markdown rendered (ADR 0046); 3: HTML code fenced, headings over tables (ADR 0056); 4: an HTML <pre> of code comments is code
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


def record_key(resolved: Path) -> str:
    """The store's key for a file's record: its resolved path, or, for a name whose
    bytes are not UTF-8 (``os.fsdecode`` hands them over as lone surrogates, which no
    store or JSON can hold), its ``file://`` URI with those bytes percent-encoded. A
    resolved path starts with ``/`` and a URI with ``file:``, so the keys never meet,
    and the same bytes give the same key on every run (re-ingest finds the record)."""
    key = str(resolved)
    return key if _is_utf8(key) else resolved.as_uri()


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: bytes that were not UTF-8
        return False
    return True


def unchanged_result(name: str, record: FileRecord) -> IngestResult:
    return IngestResult(path=name, status="unchanged", doc_id=record.doc_id, version=record.version,
                        passages=record.passages, chars=record.chars, flags=record.flags,
                        dropped=record.dropped, skipped=True)
