"""What a source is and how its bytes decode: media types, charsets, BOMs, binary sniffing.

Tether never guesses an encoding: a BOM, the caller's ``charset`` or the document's
own declaration decides, else UTF-8, and a decode error names the byte offset. The one
default beside UTF-8 is the web's: an HTML page that declares nothing and is not UTF-8
(nor holds a UTF-8 sequence) is windows-1252, as browsers read it (``html``, ADR 0038).
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from ...errors import InputError, UnsupportedInput

__all__ = [
    "HTML",
    "MARKDOWN",
    "PDF",
    "SUPPORTED_EXTENSIONS",
    "SUPPORTED_SUFFIXES",
    "TEXT",
    "canonical_media_type",
    "charset_param",
    "clean",
    "decode",
    "lookup",
    "media_type_for",
    "refuse_binary",
    "split_bom",
]

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

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))
# C0 controls that never occur in text (tab, LF, VT, FF, CR and ESC are allowed).
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0E, *range(0x0F, 0x1B), *range(0x1C, 0x20), 0x7F])
_SNIFF_BYTES = 65536
_MAX_CONTROL_SHARE = 0.05
_SURROGATES = re.compile("[\ud800-\udfff]")


def media_type_for(path: Path) -> str:
    """The media type Tether reads ``path`` as, from its extension.

    Raises ``UnsupportedInput`` (listing the supported extensions) for anything else.

        >>> media_type_for(Path("notes.MD"))
        'text/markdown'
    """
    media_type = SUPPORTED_EXTENSIONS.get(path.suffix.lower())
    if media_type is None:
        supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
        raise UnsupportedInput(
            f"{path}: unsupported file type {path.suffix or '(no extension)'!r}",
            hint=f"supported extensions: {supported}",
        )
    return media_type


def canonical_media_type(media_type: str, name: str) -> str:
    """The supported media type ``media_type`` names (parameters and aliases resolved)."""
    base = media_type.split(";", 1)[0].strip().lower()
    kind = _MEDIA_ALIASES.get(base)
    if kind is None:
        raise UnsupportedInput(
            f"{name}: unsupported media type {base!r}",
            hint="supported: " + ", ".join(sorted(set(_MEDIA_ALIASES.values()))),
        )
    return kind


def charset_param(media_type: str) -> str | None:
    """The ``charset`` parameter of a media type, if it has one."""
    for param in media_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def clean(text: str) -> str:
    """Newlines to ``\\n``; no NUL; no lone surrogates (they cannot be stored as UTF-8)."""
    return _SURROGATES.sub("\ufffd", unix_newlines(text).replace("\x00", ""))


def unix_newlines(text: str) -> str:
    """``\\r\\n`` and ``\\r`` to ``\\n`` (one scan of a text that has no ``\\r``)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def decode(data: bytes, skip: int, encoding: str, name: str) -> str:
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


def lookup(label: str, name: str) -> str:
    """Python's name for the encoding ``label``; an unknown label is refused."""
    try:
        return codecs.lookup(label).name
    except LookupError as exc:
        raise InputError(
            f"{name}: unknown character encoding {label!r}",
            hint="convert it to UTF-8, e.g. with iconv -t utf-8",
        ) from exc


def split_bom(data: bytes) -> tuple[str | None, bytes]:
    """The encoding a byte-order mark declares, and the bytes after it."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, data[len(bom):]
    return None, data


def refuse_binary(body: bytes, name: str) -> None:
    """Refuse bytes that hold a NUL or too many control bytes to be text."""
    sample = body[:_SNIFF_BYTES]
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    if b"\x00" in body or (sample and controls / len(sample) > _MAX_CONTROL_SHARE):
        raise UnsupportedInput(
            f"{name}: looks binary, not text (NUL or control bytes)",
            hint="only UTF-8 text, Markdown, HTML and PDF files can be ingested",
        )
