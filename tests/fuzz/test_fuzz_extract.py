"""Fuzz extraction with hostile bytes: random bytes under every media type, HTML token
soups (plain and gzip-encoded), and mutated PDFs. The outcome is an ``Extracted``
whose text and regions keep every invariant the store relies on, or a
``TetherError`` (an ``InputError``: refused input), within a time bound."""

from __future__ import annotations

import gzip
import zlib

from fpdf import FPDF
from hypothesis import given
from hypothesis import strategies as st
from ingest.test_extract import pdf_with_stream

from tether.config import Settings
from tether.errors import InputError
from tether.ingest.extract import Extracted, extract_bytes

from .fuzzhelp import bounded, fuzz_settings
from .strategies import TOKENS, hostile_text

SETTINGS = Settings(max_text_chars=200_000, max_html_depth=64)
MEDIA = ["text/plain", "text/markdown", "text/html", "application/pdf",
         "text/html; charset=latin1", "text/plain; charset=utf-16", "text/html; charset=bogus"]
HTML_TOKENS = [
    "<html>", "<head>", "<title>", "</title>", "<body>", "</body>", "<div>", "</div>", "<p>",
    "</p>", "<li>", "<table>", "<tr>", "<td>", "<br>", "<br/>", "<img src=x>", "<script>",
    "</script>", "<style>", "</style>", "<!--", "-->", "<!DOCTYPE html>", "<![CDATA[", "]]>",
    "<?xml version='1.0' encoding='utf-16'?>", "<meta charset='utf-8'>", "<meta charset=x>",
    "<meta property='og:title' content='T'>", "<h1>", "</h1>", "<pre>", "</pre>", "<svg>",
    "<math>", "<template>", "<textarea>", "<plaintext>", "<a href='javascript:x'>", "</a>",
    "&amp;", "&lt;", "&#0;", "&#x110000;", "&#xD800;", "&nbsp;", "&bogus;", "<", ">", "</",
    "<div style='display:none'>", "<span hidden>", "<noscript>", "<p", "=\"", "'",
]
html_soup = st.lists(st.sampled_from(HTML_TOKENS) | st.sampled_from(TOKENS) | hostile_text,
                     max_size=50).map("".join)


def _pdf() -> bytes:
    pdf = FPDF()
    pdf.set_title("Pump")
    pdf.set_font("helvetica", size=11)
    for text in ("The flange bolts are torqued to 45 Nm.", "Replace the gasket every 500 h."):
        pdf.add_page()
        pdf.multi_cell(0, 8, text)
    return bytes(pdf.output())


PDF = _pdf()


def _assert_sound(out: Extracted) -> None:
    text = out.text
    assert text and text == text.rstrip()
    assert "\x00" not in text and "\r" not in text
    assert not any("\ud800" <= c <= "\udfff" for c in text)
    text.encode("utf-8")  # storable
    assert len(text) <= SETTINGS.max_text_chars
    last = 0
    for region in out.regions:
        assert last <= region.start <= region.end <= len(text)
        last = region.end
    assert out.title is None or (0 < len(out.title) <= 300)
    assert out.media_type in {"text/plain", "text/markdown", "text/html", "application/pdf"}


def _extract(data: bytes, media_type: str, target: str) -> None:
    try:
        out = bounded(target, 10, extract_bytes, data, media_type=media_type, settings=SETTINGS)
    except InputError:
        return
    _assert_sound(out)


@fuzz_settings(200)
@given(st.binary(max_size=600), st.sampled_from(MEDIA))
def test_random_bytes(data: bytes, media_type: str) -> None:
    _extract(data, media_type, "extract.bytes")


@fuzz_settings(200)
@given(hostile_text, st.sampled_from(["utf-8", "utf-16", "latin-1", "utf-8-sig"]),
       st.sampled_from(["text/plain", "text/markdown"]))
def test_text_and_markdown(text: str, encoding: str, media_type: str) -> None:
    errors = "surrogatepass" if encoding.startswith("utf") else "replace"
    _extract(text.encode(encoding, errors), media_type, "extract.text")


@fuzz_settings(150)
@given(html_soup, st.booleans())
def test_html_soup(html: str, gzipped: bool) -> None:
    data = html.encode("utf-8", "surrogatepass")
    _extract(gzip.compress(data) if gzipped else data, "text/html", "extract.html")


@fuzz_settings(150)
@given(st.lists(st.tuples(st.integers(0, len(PDF)), st.integers(0, 8), st.binary(max_size=8)),
                min_size=1, max_size=6),
       st.integers(0, len(PDF)))
def test_mutated_pdf(edits: list[tuple[int, int, bytes]], cut: int) -> None:
    data = bytearray(PDF)
    for at, drop, insert in edits:
        data[at : at + drop] = insert
    _extract(bytes(data[: max(cut, len(data) // 2)]), "application/pdf", "extract.pdf")


@fuzz_settings(100)
@given(st.binary(max_size=300), st.sampled_from([b"/FlateDecode", b"/LZWDecode", b"/ASCIIHexDecode",
                                                 b"/RunLengthDecode", b"[/FlateDecode /FlateDecode]"]))
def test_pdf_with_a_hostile_stream(content: bytes, filters: bytes) -> None:
    data = pdf_with_stream(content).replace(b"/FlateDecode", filters, 1)
    if filters == b"[/FlateDecode /FlateDecode]":  # a double-deflated bomb-like stream
        inner = zlib.compress(zlib.compress(content + b" " * 200_000))
        data = pdf_with_stream(b"").replace(b"/FlateDecode", filters, 1)
        head, _, tail = data.partition(b"stream\n")
        data = head.replace(b"/Length 8", b"/Length %d" % len(inner)) + b"stream\n" + inner + tail[8:]
    _extract(data, "application/pdf", "extract.pdf-stream")
