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

Supported: plain text and Markdown (kept verbatim: we cite the source text itself),
HTML (main content via trafilatura, plain-text fallback via lxml), PDF (pypdf text
layer, one ``Region`` per page). Injection detection is *not* done here: extraction
stays pure and ``tether.injection`` flags what it finds later.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import io
import logging
import re
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...config import Settings
from ...errors import (
    ExtractionError,
    InputError,
    LimitExceeded,
    TetherError,
    UnsupportedInput,
)
from ...records import Region

__all__ = [
    "HTML",
    "MARKDOWN",
    "PDF",
    "SUPPORTED_EXTENSIONS",
    "SUPPORTED_SUFFIXES",
    "TEXT",
    "Extracted",
    "extract_bytes",
    "extract_file",
    "media_type_for",
]

log = logging.getLogger(__name__)

TEXT = "text/plain"
MARKDOWN = "text/markdown"
HTML = "text/html"
PDF = "application/pdf"

SUPPORTED_EXTENSIONS: dict[str, str] = {
    ".txt": TEXT,
    ".text": TEXT,
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".html": HTML,
    ".htm": HTML,
    ".pdf": PDF,
}
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(SUPPORTED_EXTENSIONS)
_MEDIA_ALIASES: dict[str, str] = {
    TEXT: TEXT,
    MARKDOWN: MARKDOWN,
    "text/x-markdown": MARKDOWN,
    HTML: HTML,
    "application/xhtml+xml": HTML,
    PDF: PDF,
    "application/x-pdf": PDF,
}
_TITLE_CHARS = 300


@dataclass(frozen=True, slots=True)
class Extracted:
    """What extraction hands to ingest: the text to store and cite, and how it was made."""

    text: str
    media_type: str
    # Tool and version, recorded on the Version: a parser upgrade changes the text,
    # and a stored citation must be able to say which parser its range belongs to.
    extractor: str
    # One Region per PDF page ("page 3"); empty for formats without pages.
    regions: tuple[Region, ...]
    title: str | None


# ---------------------------------------------------------------------------- entry points


def media_type_for(path: Path) -> str:
    """The media type Tether reads ``path`` as, from its extension.

    Raises ``UnsupportedInput`` (listing the supported extensions) for anything else.
    """
    media_type = SUPPORTED_EXTENSIONS.get(path.suffix.lower())
    if media_type is None:
        supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
        raise UnsupportedInput(
            f"{path}: unsupported file type {path.suffix or '(no extension)'!r}",
            hint=f"supported extensions: {supported}",
        )
    return media_type


def extract_file(path: Path, *, settings: Settings, media_type: str | None = None) -> Extracted:
    """Extract the text of the file at ``path``.

    The size is checked with ``stat`` before anything is read, and the read itself is
    bounded, so a file that grows in between is still refused.

        >>> extract_file(Path("manual.pdf"), settings=Settings())  # doctest: +SKIP
    """
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError as exc:
        raise InputError(f"{path}: no such file") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: not a regular file")
    kind = _canonical_media_type(media_type, str(path)) if media_type else media_type_for(path)
    _check_size(info.st_size, settings, str(path))
    try:
        with path.open("rb") as handle:
            data = handle.read(settings.max_file_bytes + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return extract_bytes(data, media_type=media_type or kind, settings=settings, name=str(path))


def extract_bytes(
    data: bytes, *, media_type: str, settings: Settings, name: str = "<bytes>"
) -> Extracted:
    """Extract the text of ``data`` read as ``media_type``.

    ``media_type`` may carry a ``charset`` parameter (``text/html; charset=latin1``), as an
    HTTP upload does; it is then used instead of the document's own declaration.

        >>> extract_bytes(b"<p>Hi</p>", media_type="text/html", settings=Settings()).text
        'Hi'
    """
    kind = _canonical_media_type(media_type, name)
    charset = _charset_param(media_type)
    _check_size(len(data), settings, name)
    if kind == PDF:
        text, regions, extractor, title = _extract_pdf(data, settings, name)
    elif kind == HTML:
        text, extractor, title = _extract_html(data, settings, name, charset)
        regions = ()
    else:
        text = _decode_text(data, settings, name, charset)
        extractor = "text"
        title = _markdown_title(text) if kind == MARKDOWN else _first_line(text)
        regions = ()
    return _finish(text, kind, extractor, regions, title, settings, name)


# ---------------------------------------------------------------------------- shared checks


def _canonical_media_type(media_type: str, name: str) -> str:
    base = media_type.split(";", 1)[0].strip().lower()
    kind = _MEDIA_ALIASES.get(base)
    if kind is None:
        raise UnsupportedInput(
            f"{name}: unsupported media type {base!r}",
            hint="supported: " + ", ".join(sorted(set(_MEDIA_ALIASES.values()))),
        )
    return kind


def _charset_param(media_type: str) -> str | None:
    for param in media_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def _check_size(size: int, settings: Settings, name: str) -> None:
    if size > settings.max_file_bytes:
        raise LimitExceeded(
            f"{name}: {size} bytes is over the max_file_bytes limit of {settings.max_file_bytes}",
            hint="raise max_file_bytes in tether.toml or TETHER_MAX_FILE_BYTES if this file is "
            "meant to be ingested",
        )


def _check_chars(count: int, settings: Settings, name: str) -> None:
    if count > settings.max_text_chars:
        raise LimitExceeded(
            f"{name}: extracted text is over the max_text_chars limit of "
            f"{settings.max_text_chars} characters",
            hint="raise max_text_chars in tether.toml or TETHER_MAX_TEXT_CHARS, or split the "
            "document",
        )


_SURROGATES = re.compile("[\ud800-\udfff]")


def _clean(text: str) -> str:
    """Newlines to ``\\n``; no NUL; no lone surrogates (they cannot be stored as UTF-8)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return _SURROGATES.sub("\ufffd", text)


def _finish(
    text: str,
    kind: str,
    extractor: str,
    regions: tuple[Region, ...],
    title: str | None,
    settings: Settings,
    name: str,
) -> Extracted:
    text = text.rstrip()
    _check_chars(len(text), settings, name)
    if not text:
        raise ExtractionError(f"{name}: no text", hint="the file is empty or holds only markup")
    # Trailing whitespace was cut: keep every region inside the text.
    regions = tuple(
        dataclasses.replace(r, end=min(r.end, len(text))) for r in regions if r.start < len(text)
    )
    return Extracted(text=text, media_type=kind, extractor=extractor, regions=regions, title=title)


def _decode(data: bytes, skip: int, encoding: str, name: str) -> str:
    """Decode ``data[skip:]`` strictly; an error names the byte offset in the whole file."""
    try:
        return data[skip:].decode(encoding)
    except UnicodeDecodeError as exc:
        start = exc.start + skip
        line = data.count(b"\n", 0, start) + 1
        raise InputError(
            f"{name}: not valid {encoding}: byte 0x{data[start]:02x} at byte offset {start} "
            f"(line {line})",
            hint="convert it to UTF-8, e.g. with iconv -f latin1 -t utf-8 (use the file's real "
            "encoding), or declare its charset",
        ) from exc


def _lookup(label: str, name: str) -> str:
    try:
        return codecs.lookup(label).name
    except LookupError as exc:
        raise InputError(
            f"{name}: unknown character encoding {label!r}",
            hint="convert it to UTF-8, e.g. with iconv -t utf-8",
        ) from exc


# ---------------------------------------------------------------------------- text & Markdown

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))
# C0 controls that never occur in text (tab, LF, VT, FF, CR and ESC are allowed).
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0E, *range(0x0F, 0x1B), *range(0x1C, 0x20), 0x7F])
_SNIFF_BYTES = 65536
_MAX_CONTROL_SHARE = 0.05


def _split_bom(data: bytes) -> tuple[str | None, bytes]:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, data[len(bom):]
    return None, data


def _decode_text(data: bytes, settings: Settings, name: str, charset: str | None) -> str:
    bom_encoding, body = _split_bom(data)
    encoding = bom_encoding or (_lookup(charset, name) if charset else "utf-8")
    if not encoding.startswith("utf-16"):
        sample = body[:_SNIFF_BYTES]
        controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
        if b"\x00" in body or (sample and controls / len(sample) > _MAX_CONTROL_SHARE):
            raise UnsupportedInput(
                f"{name}: looks binary, not text (NUL or control bytes)",
                hint="only UTF-8 text, Markdown, HTML and PDF files can be ingested",
            )
    text = _decode(data, len(data) - len(body), encoding, name)
    if "\x00" in text:  # a UTF-16 file can still smuggle one in
        raise UnsupportedInput(f"{name}: looks binary, not text (NUL characters)")
    _check_chars(len(text), settings, name)
    return _clean(text)


_ATX = re.compile(r"[ ]{0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*")
_SETEXT = re.compile(r"[ ]{0,3}(?:=+|-+)[ \t]*")
_FENCE = re.compile(r"[ ]{0,3}(?:```|~~~)")


def _cap(title: str) -> str | None:
    title = " ".join(title.split())
    return title[:_TITLE_CHARS] or None


def _first_line(text: str) -> str | None:
    for line in text.split("\n", 200)[:200]:
        if line.strip():
            return _cap(line)
    return None


def _markdown_title(text: str) -> str | None:
    """First ATX (``# Title``) or setext (``Title`` over ``===``) heading, else the first line."""
    lines = text.split("\n", 2000)[:2000]
    in_fence = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        atx = _ATX.fullmatch(line)
        if atx:
            return _cap(atx.group(1))
        if line.strip() and i + 1 < len(lines) and _SETEXT.fullmatch(lines[i + 1]):
            return _cap(line)
    return _first_line(text)


# ---------------------------------------------------------------------------- HTML

_VOID = frozenset(
    "area base br col embed hr img input keygen link meta param source track wbr "
    "basefont bgsound frame isindex spacer".split()
)
_RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes plaintext".split())
# Elements whose end tag HTML lets authors omit: reopening one closes the previous.
_SELF_SIBLING = frozenset("p li dt dd option optgroup tr td th thead tbody tfoot rb rt rp".split())
_CLOSES_P = frozenset(
    "address article aside blockquote details div dl fieldset figcaption figure footer form "
    "h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre section table ul".split()
)
# Possessive quantifiers: the name and attribute runs never backtrack, and the
# attribute run stops at the next "<", so the whole scan is linear in the input.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*+)([^<>]*+)>")


def _check_html_depth(html: str, limit: int, name: str) -> None:
    """Refuse HTML nested deeper than ``limit`` before any tree is built.

    A cheap, forgiving scan: comments and raw-text elements are skipped, void and
    self-closed elements don't nest, and omitted end tags (``<p>``, ``<li>``…) are
    implied the way browsers imply them, so ordinary sloppy HTML is not refused.
    """
    stack: list[str] = []
    open_count: dict[str, int] = {}
    pos = 0
    lower = html.lower()
    while True:
        pos = html.find("<", pos)
        if pos < 0:
            return
        if html.startswith("<!--", pos):
            end = html.find("-->", pos + 4)
            if end < 0:
                return
            pos = end + 3
            continue
        match = _TAG.match(html, pos)
        if match is None:
            pos += 1
            continue
        pos = match.end()
        closing, tag, rest = match.group(1), match.group(2).lower(), match.group(3)
        if closing:
            if open_count.get(tag):
                while stack:
                    top = stack.pop()
                    open_count[top] -= 1
                    if top == tag:
                        break
            continue
        if tag in _RAW_TEXT:
            end = lower.find(f"</{tag}", pos)
            pos = len(html) if end < 0 else end
            continue
        if tag in _VOID or rest.rstrip().endswith("/"):
            continue
        while stack and (
            (tag in _SELF_SIBLING and stack[-1] == tag)
            or (tag in _CLOSES_P and stack[-1] == "p")
            or (tag in {"td", "th"} and stack[-1] in {"td", "th"})
            or (tag == "tr" and stack[-1] in {"td", "th", "tr"})
        ):
            open_count[stack.pop()] -= 1
        stack.append(tag)
        open_count[tag] = open_count.get(tag, 0) + 1
        if len(stack) > limit:
            raise LimitExceeded(
                f"{name}: HTML is nested more than max_html_depth ({limit}) elements deep",
                hint="raise max_html_depth in tether.toml or TETHER_MAX_HTML_DEPTH if the page "
                "is genuine",
            )


# Inflating to this much is never refused for its ratio: a 5 KiB page may be 200 KiB.
_INFLATE_FLOOR = 1024 * 1024


def _inflate_cap(size: int, settings: Settings) -> int:
    """Most bytes ``size`` compressed bytes may inflate to (``max_decompression_ratio``)."""
    return max(_INFLATE_FLOOR, settings.max_decompression_ratio * size)


def _gunzip(data: bytes, settings: Settings, name: str) -> bytes:
    """Inflate gzip with a hard cap: ``max_decompression_ratio`` times the compressed
    size, and never more than ``max_file_bytes``.

    The cap is checked while inflating, in bounded steps, so a bomb costs at most the
    cap in memory before it is refused.
    """
    by_ratio = _inflate_cap(len(data), settings)
    cap = min(settings.max_file_bytes, by_ratio)
    out = bytearray()
    pending = data
    try:
        while pending:
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            chunk = pending
            while chunk:
                out += inflater.decompress(chunk, cap + 1 - len(out))
                if len(out) > cap:
                    setting = "max_file_bytes" if cap == settings.max_file_bytes else (
                        "max_decompression_ratio")
                    raise LimitExceeded(
                        f"{name}: gzip content inflates past {cap} bytes, over the {setting} "
                        f"limit (a decompression bomb?)",
                        hint=f"raise {setting} in tether.toml or TETHER_{setting.upper()} if "
                        "the page is genuine",
                    )
                chunk = inflater.unconsumed_tail
                if inflater.eof:
                    break
            if not inflater.eof:
                raise ExtractionError(f"{name}: gzip data is truncated")
            pending = inflater.unused_data  # another gzip member may follow
    except zlib.error as exc:
        raise ExtractionError(f"{name}: corrupt gzip data: {exc}") from exc
    return bytes(out)


_META_CHARSET = re.compile(
    rb"<meta[^<>]{0,512}?charset\s{0,8}=\s{0,8}[\"']?\s{0,8}([A-Za-z0-9_:.+-]{1,40})", re.IGNORECASE
)
_XML_ENCODING = re.compile(
    rb"<\?xml[^<>]{0,200}?encoding\s{0,8}=\s{0,8}[\"']([A-Za-z0-9_:.+-]{1,40})"
)
# The web's names for encodings that really mean another one (WHATWG Encoding standard).
_WEB_ALIASES = {"iso8859-1": "cp1252", "latin-1": "cp1252", "ascii": "cp1252",
                "iso8859-9": "cp1254", "utf-16-le": "utf-8", "utf-16-be": "utf-8",
                "utf-16": "utf-8"}


def _decode_html(data: bytes, name: str, charset: str | None) -> str:
    encoding, body = _split_bom(data)
    if encoding is None:
        declared = charset
        if declared is None:
            head = data[:4096]
            found = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
            declared = found.group(1).decode("ascii") if found else None
        encoding = _lookup(declared, name) if declared else "utf-8"
        encoding = _WEB_ALIASES.get(encoding, encoding)
    return _decode(data, len(data) - len(body), encoding, name)


def _extract_html(
    data: bytes, settings: Settings, name: str, charset: str | None
) -> tuple[str, str, str | None]:
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, settings, name)
    html = _decode_html(data, name, charset)
    _check_html_depth(html, settings.max_html_depth, name)
    # Imports are local: lxml and trafilatura cost ~0.5 s to import, and a text-only
    # ingest never needs them.
    from lxml import etree  # type: ignore[import-untyped, unused-ignore]
    from lxml import html as lxml_html  # type: ignore[import-untyped, unused-ignore]

    parser = lxml_html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    try:
        root = lxml_html.document_fromstring(html.encode("utf-8", "surrogatepass"), parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise ExtractionError(f"{name}: no text ({exc})") from exc
    title = _html_title(root)
    text = _trafilatura_text(html, name)
    if text:
        import trafilatura

        extractor = f"trafilatura {trafilatura.__version__}"
    else:
        text = _plain_text(root)
        extractor = f"lxml {etree.__version__}"
    lines = (line.rstrip() for line in _clean(text).split("\n"))
    return "\n".join(lines), extractor, title


def _trafilatura_text(html: str, name: str) -> str | None:
    import trafilatura

    try:
        text = trafilatura.extract(
            html,
            favor_precision=True,
            include_tables=True,
            include_comments=False,
            include_images=False,
            include_links=False,
            output_format="txt",
            deduplicate=False,
        )
    except Exception as exc:  # noqa: BLE001 - heuristics on hostile markup; fall back, don't crash
        log.warning("%s: trafilatura failed (%s: %s); using plain-text extraction",
                    name, type(exc).__name__, exc)
        return None
    return text if text and text.strip() else None


def _html_title(root: Any) -> str | None:
    for xpath in ("//meta[@property='og:title']/@content", "//meta[@name='og:title']/@content",
                  "//title//text()", "//h1//text()"):
        found = root.xpath(xpath)
        if found:
            title = _cap(" ".join(str(part) for part in found))
            if title:
                return title
    return None


_SKIP_TEXT = frozenset("script style noscript template head title svg math".split())
_BLOCK = frozenset(
    "address article aside blockquote br dd details dialog div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody "
    "td tfoot th thead tr ul caption".split()
)


_WHITESPACE = re.compile(r"\s+")


def _collapse(text: str) -> str:
    """HTML source whitespace, newlines included, is one space; only blocks break lines."""
    return _WHITESPACE.sub(" ", text)


def _plain_text(root: Any) -> str:
    """All visible text, one line per block element; iterative, so depth cannot overflow."""
    from lxml import etree  # type: ignore[import-untyped, unused-ignore]

    parts: list[str] = []
    skipping = 0
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if event == "start":
            if tag in _SKIP_TEXT:
                skipping += 1
            elif not skipping:
                if tag in _BLOCK:
                    parts.append("\n")
                if element.text:
                    parts.append(_collapse(element.text))
        else:
            if tag in _SKIP_TEXT:
                skipping -= 1
            elif not skipping and tag in _BLOCK:
                parts.append("\n")
            if not skipping and element.tail:
                parts.append(_collapse(element.tail))
    lines = (" ".join(line.split()) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


# ---------------------------------------------------------------------------- PDF

_PDF_STREAM_FLOOR = 16 * 1024 * 1024


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
    cap = min(max(_PDF_STREAM_FLOOR, 4 * settings.max_text_chars), _inflate_cap(size, settings))
    names = ("zlib_maximum_output_length", "lzw_maximum_output_length",
             "run_length_maximum_output_length", "array_based_stream_maximum_output_length",
             "brotli_maximum_output_length", "maximum_declared_stream_length")
    overrides = {n: min(cap, getattr(current, n)) for n in names if hasattr(current, n)}
    with apply(**overrides):
        yield


def _extract_pdf(
    data: bytes, settings: Settings, name: str
) -> tuple[str, tuple[Region, ...], str, str | None]:
    # The spec allows junk before the header; readers accept it within the first KiB.
    if b"%PDF-" not in data[:1024]:
        raise ExtractionError(
            f"{name}: not a PDF (no %PDF- header)",
            hint="check the file; if it is text or HTML, give it the matching extension",
        )
    import pypdf
    from pypdf.errors import FileNotDecryptedError, LimitReachedError

    pieces: list[str] = []
    regions: list[Region] = []
    pos = 0
    try:
        with _pypdf_limits(settings, len(data)):
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
            for number, page in enumerate(reader.pages, start=1):
                text = _clean(page.extract_text()).strip()
                if not text:
                    continue
                if pieces:
                    pos += 2  # the "\n\n" that joins pages
                regions.append(Region(pos, pos + len(text), f"page {number}"))
                pieces.append(text)
                pos += len(text)
                _check_chars(pos, settings, name)
            title = _pdf_title(reader)
    except TetherError:
        raise
    except LimitReachedError as exc:
        raise LimitExceeded(
            f"{name}: the PDF hits a safety limit of the PDF parser ({exc})",
            hint="the file is malformed or a decompression bomb; if it is genuine, raise "
            "max_decompression_ratio (a stream may inflate to that many times the file's size)",
        ) from exc
    except FileNotDecryptedError as exc:
        raise _encrypted(name) from exc
    except Exception as exc:  # noqa: BLE001
        # pypdf signals broken files with many exception types (its own, but also
        # ValueError, KeyError, struct/zlib errors...); a hostile PDF must never
        # escape as anything but a clear ExtractionError.
        raise ExtractionError(
            f"{name}: corrupt or unreadable PDF ({type(exc).__name__}: {exc})",
            hint="re-export or repair it, e.g. with qpdf or by printing it to PDF again",
        ) from exc
    if not pieces:
        raise ExtractionError(
            f"{name}: the PDF has no text layer (a scan or images only) and needs OCR",
            hint="run OCR on it; an OCR transcript can be ingested with --kind transcribed",
        )
    return "\n\n".join(pieces), tuple(regions), f"pypdf {pypdf.__version__}", title


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
    return _cap(str(title)) if title else None
