"""What an ingest of some paths will read, found before anything is written.

``collect_files`` walks the paths given (files, folders) once and reads the manifest,
if any: the files in the order they will be ingested, what the walks passed over,
the failures known before a file is read (a manifest entry whose file is missing),
and each file's metadata (the manifest's entry over the fields given for all). The
facade's ``Tether.ingest`` and ``tether ingest`` both ingest such a batch with
``parallel.ingest_files``; the command also reads it first (the progress bar's
totals, "no ingestible files").

    >>> batch = collect_files(["docs/"], Metadata(license="CC0"))  # doctest: +SKIP
    >>> [batch.meta_for(path).license for path in batch.files]     # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import IngestResult, Metadata, Skipped, iter_files, load_manifest, manifest_failures

__all__ = ["FileBatch", "collect_files"]


@dataclass(frozen=True, slots=True)
class FileBatch:
    files: list[Path]  # in the order they are ingested
    skipped: list[Skipped]  # what the folder walks passed over (the manifest itself excepted)
    failures: list[IngestResult]  # failed before reading: manifest entries with no file
    base: Metadata  # the fields every file gets
    entries: dict[Path, dict[str, Any]] = field(default_factory=dict)  # manifest, by resolved path

    def meta_for(self, path: Path) -> Metadata:
        # Only a manifest's entries differ from the base: no path to resolve without one.
        return self.base.merged(self.entries.get(path.resolve(), {})) if self.entries else self.base


def collect_files(
    paths: Sequence[str | os.PathLike[str]],
    base: Metadata,
    *,
    manifest: str | os.PathLike[str] | None = None,
) -> FileBatch:
    """The files under ``paths`` with their metadata; a missing path or a bad manifest
    is an ``InputError`` before anything is written."""
    named = [os.fspath(p) for p in paths]
    skipped: list[Skipped] = []
    files = list(iter_files(named, skipped))
    entries = load_manifest(manifest) if manifest is not None else {}
    if manifest is not None:  # the manifest is read, not skipped
        read = Path(manifest).resolve()
        skipped = [s for s in skipped if Path(s.path).resolve() != read]
    return FileBatch(files, skipped, manifest_failures(entries, named), base, entries)
