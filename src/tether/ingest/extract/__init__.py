"""Extraction stage: turn a file's bytes into the one text that citations point into.

The extracted text is what a ``Version`` stores and what every ``(start, end)`` range
indexes, so this stage is deliberately conservative: it never guesses an encoding,
it refuses what it cannot read with a message that says what to do, and it enforces
every resource limit of ``Settings`` before the expensive step, not after it.

    >>> from tether.config import Settings
    >>> out = extract_bytes(b"# Gloves\\r\\nWear nitrile gloves.\\n", media_type="text/markdown",
    ...                     settings=Settings())
    >>> out.text, out.title
    ('# Gloves\\nWear nitrile gloves.', 'Gloves')

Each format is an ``Extractor`` (``base``) registered in ``EXTRACTORS``: plain text
(``text``: kept verbatim, we cite the source text itself), Markdown (``text`` and
``markdown``: rendered to the text its reader sees, lines without markup kept as
written), HTML (``html``: main content via trafilatura, plain-text fallback via lxml,
pages over 1 MiB streamed by ``htmlstream``, and the instruction-like text it hides),
PDF (``pdf``: pypdf text layer, one ``Region`` per page). What a browser does not draw
is decided once, in ``visibility`` (ADR 0046). ``sniff`` names media types and
decodes; ``limits`` holds the shared caps. Injection detection over the visible text
is *not* done here: ingest flags passages with ``tether.instructions``; only the
hidden HTML and Markdown text, which no passage keeps, is flagged at extraction.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import gc
import os
import stat
from pathlib import Path
from typing import Any

from ...config import Settings
from ...errors import ExtractionError, InputError
from .base import Extracted, Extractor
from .html import HTML_EXTRACTOR
from .limits import check_chars, check_size
from .pdf import PDF_EXTRACTOR
from .sniff import (
    HTML,
    MARKDOWN,
    PDF,
    SUPPORTED_EXTENSIONS,
    SUPPORTED_SUFFIXES,
    TEXT,
    canonical_media_type,
    charset_param,
    media_type_for,
)
from .text import MARKDOWN_EXTRACTOR, TEXT_EXTRACTOR

__all__ = [
    "EXTRACTORS",
    "HTML",
    "MARKDOWN",
    "PDF",
    "SUPPORTED_EXTENSIONS",
    "SUPPORTED_SUFFIXES",
    "TEXT",
    "Extracted",
    "Extractor",
    "extract_bytes",
    "extract_file",
    "media_type_for",
    "read_file",
    "return_freed_memory",
]

# The one table of formats: every canonical media type ``sniff`` knows has its reader.
EXTRACTORS: dict[str, Extractor] = {
    TEXT: TEXT_EXTRACTOR,
    MARKDOWN: MARKDOWN_EXTRACTOR,
    HTML: HTML_EXTRACTOR,
    PDF: PDF_EXTRACTOR,
}


def extract_file(path: Path, *, settings: Settings, media_type: str | None = None) -> Extracted:
    """Extract the text of the file at ``path``.

    The size is checked with ``stat`` before anything is read, and the read itself is
    bounded, so a file that grows in between is still refused.

        >>> extract_file(Path("manual.pdf"), settings=Settings())  # doctest: +SKIP
    """
    path = Path(path)
    data, kind = read_file(path, settings=settings, media_type=media_type)
    return extract_bytes(data, media_type=kind, settings=settings, name=str(path))


def read_file(
    path: Path, *, settings: Settings, media_type: str | None = None
) -> tuple[bytes, str]:
    """The bytes of the file at ``path`` (at most ``max_file_bytes + 1`` of them, so
    ``extract_bytes`` refuses a file that grew) and the media type to read them as:
    ``media_type`` if given (validated), else the one its extension names.

    The file is opened once, without blocking, and what is checked is the opened
    descriptor (``fstat``), so a path swapped in between for a FIFO or a device is
    refused instead of hanging, and a file removed in between fails alone.

        >>> read_file(Path("notes.md"), settings=Settings())  # doctest: +SKIP
        (b'# Notes...', 'text/markdown')
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a regular file")
        kind = canonical_media_type(media_type, str(path)) if media_type else media_type_for(path)
        check_size(info.st_size, settings, str(path))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            # What the file holds, plus a byte to see it grew; a read of the whole
            # limit would allocate max_file_bytes for every small file.
            want = min(info.st_size, settings.max_file_bytes) + 1
            data = handle.read(want)
            if len(data) == want:  # it grew since fstat: read on up to the limit
                data += handle.read(settings.max_file_bytes + 1 - want)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    return data, media_type or kind


def extract_bytes(
    data: bytes, *, media_type: str, settings: Settings, name: str = "<bytes>"
) -> Extracted:
    """Extract the text of ``data`` read as ``media_type``.

    ``media_type`` may carry a ``charset`` parameter (``text/html; charset=latin1``), as an
    HTTP upload does; it is then used instead of the document's own declaration.

        >>> extract_bytes(b"<p>Hi</p>", media_type="text/html", settings=Settings()).text
        'Hi'
    """
    kind = canonical_media_type(media_type, name)
    charset = charset_param(media_type)
    check_size(len(data), settings, name)
    large = len(data) >= _RETURN_BYTES
    # Only a parser's objects form cycles; text and Markdown leave none to collect
    # (a full collection is ~20 ms in a worker, twice per large file).
    cyclic = kind not in (TEXT, MARKDOWN)
    if large:  # what the previous file left (its tree, its passages) goes back first
        return_freed_memory(collect=cyclic)
    draft = EXTRACTORS[kind].extract(data, settings=settings, name=name, charset=charset)
    if large:  # the parse tree and the parser's copies are garbage now
        return_freed_memory(collect=cyclic)
    return _finish(draft, settings, name)


# Files this large hand the memory freed around their extraction back to the system:
# glibc keeps a freed heap mapped, so a worker that once read a large page would hold
# its peak for the rest of the ingest, beside the other workers' peaks (ADR 0028).
_RETURN_BYTES = 256 * 1024


def return_freed_memory(*, collect: bool = True) -> None:
    """Collect cyclic garbage (unless not ``collect``) and return the freed heap to
    the system (glibc's ``malloc_trim``; a no-op elsewhere). A few milliseconds."""
    if collect:
        gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


def _finish(draft: Extracted, settings: Settings, name: str) -> Extracted:
    """The checks every format shares, on an extractor's draft."""
    text = draft.text.rstrip()
    check_chars(len(text), settings, name)
    if not text:
        raise ExtractionError(f"{name}: no text", hint="the file is empty or holds only markup")
    # Trailing whitespace was cut: keep every region inside the text.
    regions = tuple(
        dataclasses.replace(r, end=min(r.end, len(text)))
        for r in draft.regions
        if r.start < len(text)
    )
    return dataclasses.replace(draft, text=text, regions=regions)
