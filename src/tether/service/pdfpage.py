"""One PDF page as the reader sees it: a PNG, and where a stretch of its text is drawn.

pypdfium2 (PDFium, the renderer of Chromium) draws the page and reports each glyph's
box. The stored text comes from a different extractor (pypdf), so the two disagree on
whitespace and line breaks; a range of the stored page text is mapped onto PDFium's
characters by aligning the non-space characters of both, folded by ``text.fold``
(quotes, dashes, case). Boxes are returned as fractions of the rendered page, top
left origin, so they scale with the image wherever it is shown.

PDFium is not thread-safe, so every call into it holds ``PDFIUM_LOCK``.
"""

from __future__ import annotations

import math
import struct
import threading
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from ..errors import ExtractionError, MissingExtra, NotFound
from ..text.fold import fold, translate

__all__ = ["PDFIUM_LOCK", "Box", "PageGeometry", "geometry", "open_pdf", "render_png"]

PDFIUM_LOCK = threading.Lock()
# Share of a cited stretch's characters that must be found on the page before its
# boxes are shown: below this the alignment is a guess, and a wrong highlight is worse
# than none (the page is still shown, without boxes).
_MIN_ALIGNED = 0.8
# Boxes are computed on a virtual canvas of this many units per PDF point, so the
# integer device coordinates PDFium returns are precise to 1/100 pt.
_PRECISION = 100


@dataclass(frozen=True, slots=True)
class Box:
    """A highlight rectangle as fractions of the page's width and height (top left origin)."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class PageGeometry:
    pages: int
    width_pt: float
    height_pt: float
    boxes: tuple[Box, ...]
    aligned: bool


def _pdfium() -> Any:
    try:
        import pypdfium2  # type: ignore[import-untyped]
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise MissingExtra("rendering PDF pages", "serve") from exc
    return pypdfium2


@contextmanager
def open_pdf(data: bytes, page: int) -> Iterator[tuple[Any, Any, int]]:
    """(pdfium document, page ``page`` (1-based), page count), under ``PDFIUM_LOCK``."""
    pdfium = _pdfium()
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise ExtractionError(f"the PDF renderer cannot open this file ({exc})") from exc
        try:
            count = len(doc)
            if page > count:
                raise NotFound(f"no page {page}: the document has {count} pages")
            handle = doc[page - 1]
            try:
                yield doc, handle, count
            finally:
                handle.close()
        finally:
            doc.close()


def effective_scale(width_pt: float, height_pt: float, *, scale: float, max_pixels: int) -> float:
    """``scale``, lowered so the bitmap holds at most ``max_pixels`` pixels."""
    area = max(width_pt * height_pt, 1.0)
    fit = min(scale, math.sqrt(max_pixels / area))
    # The renderer rounds each side up; shave the scale until the rounded bitmap fits.
    for _ in range(64):
        if math.ceil(width_pt * fit) * math.ceil(height_pt * fit) <= max_pixels:
            break
        fit *= 0.99
    return fit


def render_png(data: bytes, page: int, *, scale: float, max_pixels: int) -> tuple[bytes, int, int]:
    """Page ``page`` of ``data`` as a PNG, with its pixel width and height."""
    with open_pdf(data, page) as (_, handle, _count):
        width, height = handle.get_size()
        bitmap = handle.render(scale=effective_scale(width, height, scale=scale,
                                                     max_pixels=max_pixels),
                               rev_byteorder=True, prefer_bgrx=False, draw_annots=True)
        try:
            raw = bytes(bitmap.buffer)
            png = _encode_png(raw, bitmap.width, bitmap.height, bitmap.stride, bitmap.n_channels)
            return png, bitmap.width, bitmap.height
        finally:
            bitmap.close()


def _encode_png(raw: bytes, width: int, height: int, stride: int, channels: int) -> bytes:
    """A minimal PNG (8-bit RGB, grey or RGBA): no image library needed on the server."""
    color = {1: 0, 3: 2, 4: 6}[channels]
    row = width * channels
    lines = b"".join(b"\x00" + raw[y * stride : y * stride + row] for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(lines, 6)) + chunk(b"IEND", b""))


def geometry(data: bytes, page: int, *, page_text: str, span: tuple[int, int] | None) -> PageGeometry:
    """The page's size and the boxes of ``page_text[span[0]:span[1]]`` on it.

    ``page_text`` is the stored (pypdf) text of the page; ``span`` a range in it.
    """
    with open_pdf(data, page) as (_, handle, count):
        width, height = handle.get_size()
        if span is None or span[0] >= span[1]:
            return PageGeometry(count, width, height, (), False)
        textpage = handle.get_textpage()
        try:
            chars = _page_chars(textpage)
            found = align(page_text, span, chars)
            boxes = _boxes(handle, textpage, chars, found, width, height) if found else ()
        finally:
            textpage.close()
    return PageGeometry(count, width, height, boxes, bool(boxes))


def _page_chars(textpage: Any) -> str:
    """PDFium's characters one per index (``get_text_range`` may merge or split some)."""
    import pypdfium2.raw as raw  # type: ignore[import-untyped]

    out = []
    for index in range(textpage.count_chars()):
        code = raw.FPDFText_GetUnicode(textpage, index)
        out.append(chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else " ")
    return "".join(out)


def _solid(text: str) -> tuple[str, list[int]]:
    """The folded non-space characters of ``text`` and each one's offset in it."""
    folded = fold(translate(text))
    keep = [i for i, c in enumerate(folded) if not c.isspace() and c not in "\ufffe\u00ad\x02"]
    return "".join(folded[i] for i in keep), keep


def align(page_text: str, span: tuple[int, int], chars: str) -> list[int]:
    """PDFium character indices that draw ``page_text[span[0]:span[1]]`` (empty: not found).

    The stretch is looked for as a whole first (nearest to where it sits in the page
    text, when it occurs more than once), then line by line (PDFium orders the lines
    of a rotated page or of columns differently), then character by character through
    the blocks the two texts share, if enough of it is found.
    """
    ours, our_pos = _solid(page_text)
    theirs, their_pos = _solid(chars)
    lo, hi = _solid_range(our_pos, span)
    if hi <= lo:
        return []
    expected = lo * len(theirs) / max(len(ours), 1)
    found = _find_near(theirs, ours[lo:hi], expected)
    if found is not None:
        return [their_pos[k] for k in range(found, found + hi - lo)]
    by_line = _align_lines(page_text, span, ours, our_pos, theirs, expected)
    if by_line:
        return [their_pos[k] for k in by_line]
    matcher = SequenceMatcher(None, ours, theirs, autojunk=False)
    mapped = [
        their_pos[b + (k - a)]
        for a, b, size in matcher.get_matching_blocks()
        for k in range(max(a, lo), min(a + size, hi))
    ]
    return mapped if len(mapped) >= _MIN_ALIGNED * (hi - lo) else []


def _solid_range(positions: list[int], span: tuple[int, int]) -> tuple[int, int]:
    lo = next((k for k, p in enumerate(positions) if p >= span[0]), len(positions))
    hi = next((k for k, p in enumerate(positions) if p >= span[1]), len(positions))
    return lo, hi


def _find_near(haystack: str, needle: str, expected: float) -> int | None:
    hits = _occurrences(haystack, needle) if needle else []
    return min(hits, key=lambda h: abs(h - expected)) if hits else None


def _align_lines(page_text: str, span: tuple[int, int], ours: str, our_pos: list[int],
                 theirs: str, expected: float) -> list[int]:
    """Each stored line of the span found on its own, each near the one before it."""
    out: list[int] = []
    start = span[0]
    for line in page_text[span[0]:span[1]].split("\n"):
        lo, hi = _solid_range(our_pos, (start, start + len(line)))
        start += len(line) + 1
        if hi <= lo:
            continue
        found = _find_near(theirs, ours[lo:hi], expected)
        if found is None:
            return []
        out.extend(range(found, found + hi - lo))
        expected = found + hi - lo
    return out


def _occurrences(haystack: str, needle: str) -> list[int]:
    hits: list[int] = []
    at = haystack.find(needle)
    while at >= 0 and len(hits) < 64:
        hits.append(at)
        at = haystack.find(needle, at + 1)
    return hits


def _boxes(handle: Any, textpage: Any, chars: str, indices: Sequence[int], width: float,
           height: float) -> tuple[Box, ...]:
    """One box per line of the glyphs at ``indices``, in page fractions (rotation applied).

    A line ends where PDFium's text has a line break between two glyphs, so lines are
    told apart the same way on a rotated page as on an upright one.
    """
    pdfium = _pdfium()
    size_x, size_y = math.ceil(width * _PRECISION), math.ceil(height * _PRECISION)
    conv = pdfium.PdfPosConv(handle, (0, 0, size_x, size_y, 0))
    rects: list[list[float]] = []  # [x0, y0, x1, y1] in device units, one per line
    previous = -1
    for index in sorted(set(indices)):
        left, bottom, right, top = textpage.get_charbox(index, loose=True)
        corners = [conv.to_bitmap(x, y) for x in (left, right) for y in (bottom, top)]
        x0, x1 = min(c[0] for c in corners), max(c[0] for c in corners)
        y0, y1 = min(c[1] for c in corners), max(c[1] for c in corners)
        if x1 <= x0 or y1 <= y0:
            continue  # a generated space or line break: no glyph
        broken = previous < 0 or any(c in "\r\n" for c in chars[previous + 1 : index])
        previous = index
        last = rects[-1] if rects else None
        if last is not None and not broken:
            last[0], last[1] = min(last[0], x0), min(last[1], y0)
            last[2], last[3] = max(last[2], x1), max(last[3], y1)
        else:
            rects.append([x0, y0, x1, y1])
    return tuple(
        Box(round(r[0] / size_x, 5), round(r[1] / size_y, 5),
            round((r[2] - r[0]) / size_x, 5), round((r[3] - r[1]) / size_y, 5))
        for r in rects
    )

