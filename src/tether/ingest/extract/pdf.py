"""PDF: the pypdf text layer, one ``Region`` per page, under tightened decompression caps.

A PDF without a text layer is refused (it needs OCR); encrypted files open only with
an empty user password; whatever pypdf raises on a hostile file becomes a clear
``ExtractionError``.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from typing import Any

from ...config import Settings
from ...errors import ExtractionError, LimitExceeded, TetherError
from ...records import Region
from .base import Extracted, cap_title
from .limits import check_chars, inflate_cap
from .sniff import PDF, clean

__all__ = ["PDF_EXTRACTOR", "PdfExtractor"]

_PDF_STREAM_FLOOR = 16 * 1024 * 1024


class PdfExtractor:
    """Pages joined by a blank line; each page with text becomes a ``Region``."""

    def extract(
        self, data: bytes, *, settings: Settings, name: str, charset: str | None
    ) -> Extracted:
        # The spec allows junk before the header; readers accept it within the first KiB.
        if b"%PDF-" not in data[:1024]:
            raise ExtractionError(
                f"{name}: not a PDF (no %PDF- header)",
                hint="check the file; if it is text or HTML, give it the matching extension",
            )
        import pypdf

        try:
            with _pypdf_limits(settings, len(data)):
                pieces, regions, title = _read(data, settings, name)
        except TetherError:
            raise
        except Exception as exc:  # noqa: BLE001 - translated at the boundary
            raise _translate(exc, name) from exc
        if not pieces:
            raise ExtractionError(
                f"{name}: the PDF has no text layer (a scan or images only) and needs OCR",
                hint="run OCR on it; an OCR transcript can be ingested with --kind transcribed",
            )
        return Extracted(text="\n\n".join(pieces), media_type=PDF,
                         extractor=f"pypdf {pypdf.__version__}", regions=tuple(regions),
                         title=title)


PDF_EXTRACTOR = PdfExtractor()


@contextlib.contextmanager
def _pypdf_limits(settings: Settings, size: int) -> Iterator[None]:
    """Tighten pypdf's decompression caps to what ``max_text_chars`` and the file's
    ``size`` (``max_decompression_ratio``) can justify.

    A content stream holds operators besides text, so it may be several times the
    text it draws; pypdf's own defaults stay the ceiling. Uses pypdf's context-local
    configuration (pypdf >= 7), so concurrent extractions don't interfere.
    """
    import pypdf

    apply = getattr(pypdf, "apply_configuration", None)
    if apply is None:  # older pypdf: its module-level defaults still apply
        yield
        return
    current = pypdf.get_configuration()
    cap = min(max(_PDF_STREAM_FLOOR, 4 * settings.max_text_chars), inflate_cap(size, settings))
    names = ("zlib_maximum_output_length", "lzw_maximum_output_length",
             "run_length_maximum_output_length", "array_based_stream_maximum_output_length",
             "brotli_maximum_output_length", "maximum_declared_stream_length")
    overrides = {n: min(cap, getattr(current, n)) for n in names if hasattr(current, n)}
    with apply(**overrides):
        yield


def _read(data: bytes, settings: Settings, name: str) -> tuple[list[str], list[Region], str | None]:
    """Page texts, their regions in the joined text, and the title (pypdf may raise anything)."""
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
    if reader.is_encrypted:
        _decrypt(reader, name)
    count = len(reader.pages)
    if count > settings.max_pdf_pages:
        raise LimitExceeded(
            f"{name}: {count} pages is over the max_pdf_pages limit of "
            f"{settings.max_pdf_pages}",
            hint="raise max_pdf_pages in tether.toml or TETHER_MAX_PDF_PAGES, or split "
            "the PDF",
        )
    if count == 0:
        raise ExtractionError(f"{name}: the PDF has no pages")
    pieces: list[str] = []
    regions: list[Region] = []
    pos = 0
    for number, page in enumerate(reader.pages, start=1):
        text = clean(page.extract_text()).strip()
        if not text:
            continue
        if pieces:
            pos += 2  # the "\n\n" that joins pages
        regions.append(Region(pos, pos + len(text), f"page {number}"))
        pieces.append(text)
        pos += len(text)
        check_chars(pos, settings, name)
    return pieces, regions, _pdf_title(reader)


def _translate(exc: Exception, name: str) -> TetherError:
    from pypdf.errors import FileNotDecryptedError, LimitReachedError

    if isinstance(exc, LimitReachedError):
        return LimitExceeded(
            f"{name}: the PDF hits a safety limit of the PDF parser ({exc})",
            hint="the file is malformed or a decompression bomb; if it is genuine, raise "
            "max_decompression_ratio (a stream may inflate to that many times the file's size)",
        )
    if isinstance(exc, FileNotDecryptedError):
        return _encrypted(name)
    # pypdf signals broken files with many exception types (its own, but also
    # ValueError, KeyError, struct/zlib errors...); a hostile PDF must never
    # escape as anything but a clear ExtractionError.
    return ExtractionError(
        f"{name}: corrupt or unreadable PDF ({type(exc).__name__}: {exc})",
        hint="re-export or repair it, e.g. with qpdf or by printing it to PDF again",
    )


def _encrypted(name: str) -> ExtractionError:
    return ExtractionError(
        f"{name}: the PDF is encrypted and needs a password",
        hint="decrypt it first, e.g. qpdf --decrypt --password=... in.pdf out.pdf",
    )


def _decrypt(reader: Any, name: str) -> None:
    """Open PDFs that are encrypted with an empty user password (owner-only locks)."""
    from pypdf.errors import DependencyError

    try:
        opened = reader.decrypt("")
    except DependencyError as exc:
        raise ExtractionError(
            f"{name}: the PDF uses AES encryption, which needs the cryptography package",
            hint="pip install cryptography",
        ) from exc
    if not opened:
        raise _encrypted(name)


def _pdf_title(reader: Any) -> str | None:
    try:
        meta = reader.metadata
        title = meta.title if meta is not None else None
    except Exception:  # noqa: BLE001 - metadata is optional; a broken Info dict is not fatal
        return None
    return cap_title(str(title)) if title else None
