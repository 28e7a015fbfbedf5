"""``GET /v1/documents/{doc_id}/versions/{version}/pages/{page}``: the original PDF page.

A citation of a PDF names a version and a range of its text; the reader shows the
page it came from, rendered, with the cited words boxed (``pdfpage``). The JSON
route gives the page's size and the boxes of a range; the ``.png`` route the image.

Where the PDF comes from (ADR 0018): the store keeps extracted text, not files, so
the page is rendered from the document's own ``source`` when that is a ``file://``
URI, never from a path in the request. The file is used only while it still
extracts to the version asked for (the same extractor, the same settings, the same
``sha256:`` of the text), only inside ``page_roots`` when that is set, and only for a
document the caller can read; a document the caller cannot read answers 404 like
one that does not exist, exactly as ``GET .../versions/{version}``.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, unquote_to_bytes, urlsplit
from urllib.request import url2pathname

import anyio
from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from .. import ids
from ..config import Settings
from ..errors import InputError, NotFound, TetherError
from ..ingest.extract import extract_bytes
from ..records import Document, Region, Version, to_json
from .answers import state_of
from .auth import principals_of
from .documents import readable
from .pdfpage import effective_scale, geometry, render_png
from .problems import Conflict, RequestTimeout
from .schemas import problem_responses

__all__ = ["PageView", "router"]

router = APIRouter()
_PDF = "application/pdf"
_T = TypeVar("_T")
# Files already re-extracted, by (path, device, inode, size, mtime, settings) -> the
# version their text hashes to: a page view re-reads the file but extracts it once.
_VERIFIED: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_VERIFIED_MAX = 64
_VERIFIED_LOCK = threading.Lock()
_UNAVAILABLE = ("the original file of this document is not available on the server "
                "(missing, unreadable, or outside page_roots)")
_PAGE = PathParam(ge=1, description="Page number, 1-based.")


class BoxView(BaseModel):
    x: float = Field(description="Left edge, as a fraction of the page's width.")
    y: float = Field(description="Top edge, as a fraction of the page's height.")
    width: float
    height: float


class PageImage(BaseModel):
    url: str = Field(description="The page as PNG (the same key is needed).")
    scale: float = Field(description="Pixels per PDF point of that image.")


class PageView(BaseModel):
    """One page of a PDF document, and where a range of the version's text is drawn."""

    doc_id: str
    version: str
    page: int
    pages: int = Field(description="Pages in the document.")
    kind: str = Field(description="original, transcribed or generated: derived text points "
                      "at the region it came from, it does not quote it.")
    process: str | None
    width_pt: float
    height_pt: float
    image: PageImage
    region: dict[str, Any] | None = Field(description="The page's stretch of the version text "
                                          "(null for a page without text).")
    range: dict[str, int] | None = Field(description="The range asked for, clipped to the page.")
    aligned: bool = Field(description="Whether the range was located on the page.")
    boxes: list[BoxView] = Field(description="One box per line of the range's glyphs.")


@dataclass(frozen=True, slots=True)
class _Original:
    document: Document
    version: Version
    data: bytes


def _source_path(document: Document, settings: Settings) -> Path:
    """The local file a document names as its source, or ``Conflict``."""
    parts = urlsplit(document.source)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        raise Conflict("the original of this document is not kept: its source is not a "
                       "local file", hint="pages are rendered from file:// sources only "
                       "(documents ingested from a file with `tether ingest`)")
    # A name that is not UTF-8 is kept as percent-encoded bytes in its URI (ADR 0049).
    path = Path(os.fsdecode(unquote_to_bytes(parts.path)) if os.name == "posix"
                else url2pathname(parts.path))
    try:
        real = path.resolve(strict=True) if path.is_absolute() else None
    except (OSError, RuntimeError):
        real = None
    roots = [Path(r).resolve() for r in settings.page_roots.split(os.pathsep) if r.strip()]
    if real is None or (roots and not any(real.is_relative_to(r) for r in roots)):
        raise Conflict(_UNAVAILABLE)
    return real


def _read(path: Path, settings: Settings) -> tuple[bytes, tuple[Any, ...]]:
    """The file's bytes (bounded by ``max_file_bytes``) and its identity for the cache.

    Opened as ``tether ingest`` opens a file (``ingest.extract.read_file``): without
    blocking, and the opened descriptor is checked, so a source that is (or was swapped
    for) a FIFO or a device is refused at once instead of holding a server thread in
    ``open()`` until a writer appears."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Conflict(_UNAVAILABLE) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Conflict(_UNAVAILABLE)
        if info.st_size > settings.max_file_bytes:
            raise Conflict("the original file is now larger than max_file_bytes")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(settings.max_file_bytes + 1)
    except OSError as exc:
        raise Conflict(_UNAVAILABLE) from exc
    finally:
        os.close(fd)
    return data, (str(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, settings)


def _extracts_to(data: bytes, key: tuple[Any, ...], settings: Settings) -> str:
    with _VERIFIED_LOCK:
        known = _VERIFIED.get(key)
    if known is None:
        try:
            known = ids.version_of(extract_bytes(data, media_type=_PDF, settings=settings,
                                                 name="original").text)
        except TetherError:
            known = ""  # no longer a readable PDF: it matches no version
        with _VERIFIED_LOCK:
            _VERIFIED[key] = known
            while len(_VERIFIED) > _VERIFIED_MAX:
                _VERIFIED.popitem(last=False)
    return known


def _original(request: Request, doc_id: str, version: str, page: int) -> _Original:
    """The readable document, its version and its verified original PDF bytes."""
    service = state_of(request)
    if page > service.settings.max_pdf_pages:
        # No stored PDF has more pages (ingest refuses them): answer before any file work.
        raise NotFound(f"no page {page}: PDFs have at most max_pdf_pages = "
                       f"{service.settings.max_pdf_pages} pages")
    store = service.tether.store
    document = store.document(doc_id)
    if document is None or not readable(document, principals_of(request.scope)):
        raise NotFound("no such document")
    found = store.version(doc_id, version)
    if found is None:
        raise NotFound("no such version of this document",
                       hint="citations name versions as sha256:…")
    if not document.media_type.startswith(_PDF):
        raise NotFound(f"this document is {document.media_type}, not a PDF: it has no pages",
                       hint="the text view is GET /v1/documents/{doc_id}/versions/{version}")
    data, key = _read(_source_path(document, service.settings), service.settings)
    if _extracts_to(data, key, service.settings) != found.version:
        raise Conflict("the original file has changed since this version was extracted",
                       hint="re-ingest it to cite the new version; this version's text "
                       "stays readable")
    return _Original(document, found, data)


async def _in_thread(request: Request, work: Callable[[], _T]) -> _T:
    settings = state_of(request).settings
    try:
        with anyio.fail_after(settings.request_timeout_s):
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except TimeoutError:
        raise RequestTimeout(
            f"the page took longer than {settings.request_timeout_s:g} s to render",
            hint="lower page_scale or raise request_timeout_s") from None


def _page_region(version: Version, page: int) -> Region | None:
    label = f"page {page}"
    return next((r for r in version.regions if r.label == label), None)


def _span(version: Version, region: Region | None, page: int,
          start: int | None, end: int | None) -> tuple[int, int] | None:
    """The asked range clipped to the page, in version offsets (None: no range asked)."""
    if start is None and end is None:
        return None
    if start is None or end is None or not 0 <= start < end <= len(version.text):
        raise InputError(f"start and end must both be given, 0 <= start < end <= "
                         f"{len(version.text)}")
    if region is None or end <= region.start or start >= region.end:
        raise InputError(f"the range {start}-{end} is not on page {page}",
                         hint="the version's regions say which page holds a range")
    return max(start, region.start), min(end, region.end)


@router.get(
    "/v1/documents/{doc_id}/versions/{version}/pages/{page}.png",
    summary="One page of a PDF document's original, rendered as PNG",
    description="Rendered from the document's own file:// source while it still extracts "
    "to this version (`page_scale`, at most `max_page_pixels`). 404 for a document the "
    "caller cannot read, a non-PDF document or a page it does not have; 409 when the "
    "original file is gone or changed.",
    response_class=Response,
    responses={200: {"description": "The page", "content": {"image/png": {
        "schema": {"type": "string", "format": "binary"}}}},
        **problem_responses(401, 404, 409, 504)},
)
async def get_page_png(request: Request, doc_id: str, version: str,
                       page: int = _PAGE) -> Response:
    settings = state_of(request).settings

    def render() -> bytes:
        original = _original(request, doc_id, version, page)
        return render_png(original.data, page, scale=settings.page_scale,
                          max_pixels=settings.max_page_pixels)[0]

    png = await _in_thread(request, render)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, no-cache"})


@router.get(
    "/v1/documents/{doc_id}/versions/{version}/pages/{page}",
    summary="One page of a PDF document: its size, image and the boxes of a cited range",
    description="`start`/`end` (a range of the version's text, e.g. a citation's) give "
    "`boxes`: where those characters are drawn on the page, one box per line, as "
    "fractions of the page (top left origin). `aligned` is false when the characters "
    "could not be located on the page (derived text that differs from the page); the "
    "page is still shown. Errors as for the `.png` route, and 400 for a range not on "
    "the page.",
    response_model=PageView,
    responses={200: {"description": "The page"}, **problem_responses(400, 401, 404, 409, 504)},
)
async def get_page(
    request: Request, doc_id: str, version: str, page: int = _PAGE,
    start: int | None = Query(None, ge=0, description="Start of the range to box."),
    end: int | None = Query(None, ge=0, description="End of the range (exclusive)."),
) -> JSONResponse:
    settings = state_of(request).settings

    def read() -> dict[str, Any]:
        original = _original(request, doc_id, version, page)
        found = original.version
        region = _page_region(found, page)
        span = _span(found, region, page, start, end)
        page_text = found.text[region.start:region.end] if region else ""
        local = (span[0] - region.start, span[1] - region.start) if span and region else None
        shape = geometry(original.data, page, page_text=page_text, span=local)
        scale = effective_scale(shape.width_pt, shape.height_pt, scale=settings.page_scale,
                                max_pixels=settings.max_page_pixels)
        base = f"/v1/documents/{quote(doc_id, safe='')}/versions/{quote(version, safe=':')}/pages/{page}"
        return {
            "doc_id": doc_id, "version": found.version, "page": page, "pages": shape.pages,
            "kind": original.document.kind, "process": original.document.process,
            "width_pt": round(shape.width_pt, 3), "height_pt": round(shape.height_pt, 3),
            "image": {"url": base + ".png", "scale": round(scale, 4)},
            "region": to_json(region) if region else None,
            "range": {"start": span[0], "end": span[1]} if span else None,
            "aligned": shape.aligned,
            "boxes": [to_json(b) for b in shape.boxes],
        }

    return JSONResponse(await _in_thread(request, read))
