"""PDF: the pypdf text layer, one ``Region`` per page, under tightened decompression caps.

A PDF without a text layer is refused (it needs OCR); encrypted files open only with
an empty user password; whatever pypdf raises on a hostile file becomes a clear
``ExtractionError``. Text a reader cannot see (white on white, invisible render mode,
fully transparent, under ``min_pdf_text_pt``, outside the crop box, in an optional-content
layer that is OFF: ``pdflayers``) is dropped while pypdf reads the page (``pdfvisible``); what was dropped is counted on ``Extracted.dropped`` and flagged
``hidden-pdf`` (with the codes of any instruction-like text in it).

Work is bounded (ADR 0023): content-stream tokens parsed per page
(``max_pdf_page_tokens``, pypdf's own per-stream budget lowered to it) and per document
(``max_pdf_tokens``); each page, and each operator the visibility tracker sees, asks
``deadline.check()``; a content stream without a text-showing operator is not handed
to pypdf at all, and the answer is kept per stream, so 2,000 pages drawn from one big
stream are scanned once.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from typing import Any

from ... import deadline
from ...config import Settings
from ...errors import ExtractionError, LimitExceeded, TetherError
from ...instructions.detect import CODES, instruction_codes
from ...records import Region
from .base import Extracted, cap_title
from .limits import check_chars, inflate_cap
from .pdflayers import Layers, layers_of, resolved
from .pdfvisible import REASONS, Visibility
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

        hidden = _Hidden()
        try:
            with _pypdf_limits(settings, len(data)):
                pieces, regions, title = _read(data, settings, name, hidden)
        except TetherError:
            raise
        except Exception as exc:  # noqa: BLE001 - translated at the boundary
            raise _translate(exc, name) from exc
        if not pieces:
            raise _no_text(name, hidden)
        return Extracted(text="\n\n".join(pieces), media_type=PDF,
                         extractor=f"pypdf {pypdf.__version__}", regions=tuple(regions),
                         title=title, hidden_flags=hidden.flags(),
                         dropped=tuple((r, hidden.counts[r]) for r in REASONS
                                       if hidden.counts.get(r)))


class _Hidden:
    """What the pages of one document dropped as unseen: counts by reason, and the text."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.text: list[str] = []
        self.tokens = 0  # content-stream tokens parsed so far (max_pdf_tokens)
        self.textless: dict[object, bool] = {}  # content stream -> holds no text operator

    def add(self, seen: Visibility) -> None:
        self.tokens += seen.tokens
        for reason, count in seen.dropped.items():
            self.counts[reason] = self.counts.get(reason, 0) + count
        if len(self.text) < 2_000:
            self.text.extend(seen.dropped_text)

    def flags(self) -> tuple[str, ...]:
        """``hidden-pdf`` and the codes of the instruction-like text among what was dropped."""
        if not self.counts:
            return ()
        found = instruction_codes(" ".join(self.text)[:200_000])
        return ("hidden-pdf", *(code for code in CODES if code in found))


def _no_text(name: str, hidden: _Hidden) -> ExtractionError:
    if hidden.counts.get("invisible-render-mode"):
        return ExtractionError(
            f"{name}: the PDF's only text is invisible (render mode 3, as an OCR layer under "
            "a scan is drawn): no reader sees it, so it is not taken as the document's text",
            hint="ingest its OCR transcript as a transcribed document: extract the text, "
            "then ingest it with --kind transcribed --process 'OCR: ...'",
        )
    if hidden.counts:
        return ExtractionError(
            f"{name}: the PDF's only text is drawn where no reader sees it "
            f"({', '.join(sorted(hidden.counts))})",
            hint="re-export the PDF with its text visible; min_pdf_text_pt sets the "
            "smallest size kept",
        )
    return ExtractionError(
        f"{name}: the PDF has no text layer (a scan or images only) and needs OCR",
        hint="run OCR on it; an OCR transcript can be ingested with --kind transcribed",
    )


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


def _read(
    data: bytes, settings: Settings, name: str, hidden: _Hidden
) -> tuple[list[str], list[Region], str | None]:
    """Page texts, their regions in the joined text, and the title (pypdf may raise anything);
    the unseen text each page dropped goes to ``hidden``."""
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
    layers = layers_of(reader)
    for number, page in enumerate(reader.pages, start=1):
        deadline.check()
        text = clean(_page_text(page, settings, hidden, name, layers)).strip()
        _check_tokens(hidden, settings, name)
        if not text:
            continue
        if pieces:
            pos += 2  # the "\n\n" that joins pages
        regions.append(Region(pos, pos + len(text), f"page {number}"))
        pieces.append(text)
        pos += len(text)
        check_chars(pos, settings, name)
    return pieces, regions, _pdf_title(reader)


# The operators that can put text on a page (pypdf's own test): a page whose content
# has none is not walked by the visibility tracker, as pypdf does not parse it either.
_TEXT_OPERATORS = (b"Tj", b"TJ", b"Do", b"'", b'"')


def _page_text(page: Any, settings: Settings, hidden: _Hidden, name: str,
               layers: Layers) -> str:
    """The text of ``page`` that a reader sees (pypdf's extraction, unseen text blanked)."""
    key = _contents_key(page)
    if key is not None and hidden.textless.get(key):
        return ""  # the same stream as an earlier page, already found to draw no text
    contents = page.get_contents()
    if contents is None:
        return ""
    data = contents.get_data()
    textless = not any(op in data for op in _TEXT_OPERATORS)
    if key is not None:
        hidden.textless[key] = textless
    if textless:  # pypdf would find no text either (its own test), after a second scan
        return ""
    seen = Visibility(box=_box(page), min_size=settings.min_pdf_text_pt,
                      resources=resolved(dict.get(page, "/Resources")), layers=layers,
                      check=deadline.check)
    text = _budgeted(page, seen, settings, hidden, name)
    hidden.add(seen)
    return text


def _budgeted(page: Any, seen: Visibility, settings: Settings, hidden: _Hidden, name: str) -> str:
    """pypdf's extraction of ``page`` with its per-stream parsing budget lowered to what
    is left of ``max_pdf_page_tokens`` and ``max_pdf_tokens``."""
    import pypdf
    from pypdf.errors import LimitReachedError

    apply = getattr(pypdf, "apply_configuration", None)
    if apply is None:  # older pypdf has no parsing budget: pages, deadline and tokens seen
        return str(page.extract_text(visitor_operand_before=seen,
                                     visitor_operand_after=seen.after))
    page_cap = min(settings.max_pdf_page_tokens,
                   pypdf.get_configuration().stream_parsing_work_maximum_count)
    left = max(1, settings.max_pdf_tokens - hidden.tokens + 1)
    try:
        with apply(stream_parsing_work_maximum_count=min(page_cap, left)):
            return str(page.extract_text(visitor_operand_before=seen,
                                         visitor_operand_after=seen.after))
    except LimitReachedError as exc:
        if "per stream" not in str(exc):
            raise
        raise _over_tokens(settings, page_bound=page_cap <= left, name=name) from exc


def _contents_key(page: Any) -> object | None:
    """Which stored stream(s) draw ``page``: pages that share one share the key."""
    try:
        raw = page.raw_get("/Contents")
        refs = list(raw) if isinstance(raw, list) else [raw]
        keys = tuple((r.idnum, r.generation) for r in refs)
    except Exception:  # noqa: BLE001 - direct (unshared) contents: nothing to share
        return None
    return keys if keys and len(keys) == len(refs) else None


def _check_tokens(hidden: _Hidden, settings: Settings, name: str) -> None:
    if hidden.tokens > settings.max_pdf_tokens:
        raise _over_tokens(settings, page_bound=False, name=name)


def _over_tokens(settings: Settings, *, page_bound: bool, name: str) -> LimitExceeded:
    where = f"{name}: "
    if page_bound:
        return LimitExceeded(
            f"{where}a page's content stream holds more than {settings.max_pdf_page_tokens} "
            "tokens (max_pdf_page_tokens)",
            hint="a drawing, not text; raise max_pdf_page_tokens if the page is genuine")
    return LimitExceeded(
        f"{where}the PDF's content streams hold more than {settings.max_pdf_tokens} tokens "
        "(max_pdf_tokens)",
        hint="split the PDF, or raise max_pdf_tokens if it is genuine")


def _box(page: Any) -> tuple[float, float, float, float]:
    """The crop box (pypdf falls back to the media box), corners in either order."""
    try:
        box = page.cropbox
        xs, ys = (float(box.left), float(box.right)), (float(box.bottom), float(box.top))
    except Exception:  # noqa: BLE001 - a broken box keeps everything: nothing is "outside"
        return (-1e9, -1e9, 1e9, 1e9)
    return (min(xs), min(ys), max(xs), max(ys))


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
