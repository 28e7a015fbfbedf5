"""An HTML page before its text is read: its bytes decoded, its nesting bounded.

Both HTML paths (``html``: the tree; ``htmlstream``: the stream for large pages) take
a page through here first: ``read_page`` decodes it by the web's charset rules (a BOM,
the declared charset, else UTF-8, else windows-1252 with a ``CharsetWarning``, ADR
0038), ``check_html_depth`` refuses one nested deeper than ``max_html_depth`` before
any parser builds anything, and ``refuse_cut_parse`` refuses one libxml2 itself cut
short (its hard limit, 2,048 elements), rather than drop the deeper text unsaid.

    >>> decode_html(b"<p>caf\\xe9</p>", "page.html", "latin-1")
    '<p>café</p>'
"""

from __future__ import annotations

import codecs
import encodings.cp1252
import re
import warnings
from typing import Any

from ...errors import LimitExceeded
from .sniff import decode, lookup, split_bom

__all__ = ["CharsetWarning", "check_html_depth", "decode_html", "read_page", "refuse_cut_parse"]

_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source", "track", "wbr", "basefont", "bgsound", "frame", "isindex", "spacer"]
)
_RAW_TEXT = frozenset(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext"])
_RAW_TEXT_END = {tag: re.compile(f"</{tag}", re.IGNORECASE) for tag in _RAW_TEXT}
# Elements whose end tag HTML lets authors omit: reopening one closes the previous.
_SELF_SIBLING = frozenset(["p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "rb", "rt", "rp"])
_CLOSES_P = frozenset(
    ["address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "main", "menu", "nav", "ol", "p", "pre", "section", "table", "ul"]
)
# Possessive quantifiers: the name and attribute runs never backtrack, and the
# attribute run stops at the next "<", so the whole scan is linear in the input.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*+)([^<>]*+)>")

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

# The WHATWG Encoding standard's windows-1252: Python's cp1252, with the five bytes it
# leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) read as the C1 controls of the same
# number, as every browser reads them. Every byte decodes.
_WINDOWS_1252 = "".join(chr(byte) if char == "\ufffe" else char
                        for byte, char in enumerate(encodings.cp1252.decoding_table))

# A multi-byte UTF-8 sequence: in a page that also holds bytes UTF-8 refuses, the page
# is UTF-8 with a stray byte (or cannot be told from it), and read as windows-1252
# every other non-ASCII character of it would come out garbled ("é" as "Ã©"). Genuine
# windows-1252 text rarely has one (a letter such as "Ã" before a symbol such as "©").
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}"
)


class CharsetWarning(UserWarning):
    """A page declared no charset and was not valid UTF-8: it was read as windows-1252."""


def refuse_cut_parse(parser: Any, name: str, *, limit: int | None = None) -> None:
    """Refuse a page the parser cut short (even huge_tree stops at libxml2's hard depth
    limit, 2,048), rather than drop its deeper text without a word; ``limit``: the
    ``max_html_depth`` the page passed, named in the message when given."""
    if any("ERR_RESOURCE_LIMIT" in str(entry) or "Excessive depth" in str(entry)
           for entry in parser.error_log):
        setting = "" if limit is None else f"; max_html_depth is {limit}"
        raise LimitExceeded(
            f"{name}: HTML is nested deeper than the HTML parser reads (at most 2,048 "
            f"elements{setting})",
            hint="no setting makes it readable: set max_html_depth to 2048 or less to "
            "refuse such pages before they are parsed",
        )


def decode_html(data: bytes, name: str, charset: str | None) -> str:
    """Decode by BOM, else ``charset``, else ``<meta charset>``/XML declaration, else
    UTF-8, else (nothing declared and not valid UTF-8) WHATWG windows-1252."""
    return read_page(data, name, charset)[0]


def _declared_encoding(data: bytes, name: str, charset: str | None) -> tuple[str | None, int]:
    """The codec ``data`` declares (``None``: nothing declared), and its BOM's length."""
    encoding, rest = split_bom(data[:4])
    skip = min(4, len(data)) - len(rest)
    if encoding is None:
        declared = charset
        if declared is None:
            head = data[:4096]
            found = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
            declared = found.group(1).decode("ascii") if found else None
        if not declared:
            return None, skip
        encoding = lookup(declared, name)
        encoding = _WEB_ALIASES.get(encoding, encoding)
    return encoding, skip


def read_page(data: bytes, name: str, charset: str | None) -> tuple[str, str, int]:
    """The page as text, the codec it was read with and its BOM's length.

    A declared encoding is the author's word: bytes it does not decode are refused
    (windows-1252, and latin-1 which the web reads as it, decodes every byte). A
    page that declares nothing is UTF-8 when it is valid UTF-8 (read exactly as it
    always was); otherwise it is read the way the WHATWG HTML standard has browsers read
    it, as windows-1252 (the default for English, ADR 0038), with a ``CharsetWarning``
    naming the first byte that is not UTF-8."""
    encoding, skip = _declared_encoding(data, name, charset)
    if encoding == "cp1252":  # windows-1252 or latin-1 declared: the web's, every byte read
        return _windows_1252(data[skip:] if skip else data), encoding, skip
    if encoding is not None:
        return decode(data, skip, encoding, name), encoding, skip
    try:
        return data.decode("utf-8"), "utf-8", skip
    except UnicodeDecodeError as exc:
        if _UTF8_SEQUENCE.search(data):  # UTF-8 with a broken byte, or no telling which
            return decode(data, skip, "utf-8", name), "utf-8", skip  # refused, as it was
        line = data.count(b"\n", 0, exc.start) + 1
        # The message names no file: whoever shows it (ingest --verbose) names it once.
        warnings.warn(
            f"no charset declared and not valid UTF-8 (byte 0x{data[exc.start]:02x} at byte "
            f"offset {exc.start}, line {line}): read as windows-1252, as browsers read it",
            CharsetWarning, stacklevel=3,
        )
    return _windows_1252(data), "cp1252", skip


def _windows_1252(data: bytes) -> str:
    """``data`` read as WHATWG windows-1252 (every byte is a character)."""
    return codecs.charmap_decode(data, "strict", _WINDOWS_1252)[0]


def check_html_depth(html: str, limit: int, name: str) -> None:
    """Refuse HTML nested deeper than ``limit`` before any tree is built.

    A cheap, forgiving scan: comments and raw-text elements are skipped, void and
    self-closed elements don't nest, and omitted end tags (``<p>``, ``<li>``…) are
    implied the way browsers imply them, so ordinary sloppy HTML is not refused.
    """
    stack: list[str] = []
    open_count: dict[str, int] = {}
    pos = 0
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
                _close(stack, open_count, tag)
            continue
        if tag in _RAW_TEXT:
            # Searched case-blind in place: a lowered copy of the page would cost its
            # size again (4 bytes a character once one emoji is in it).
            found = _RAW_TEXT_END[tag].search(html, pos)
            pos = len(html) if found is None else found.start()
            continue
        if tag in _VOID or rest.rstrip().endswith("/"):
            continue
        _open(stack, open_count, tag)
        if len(stack) > limit:
            raise LimitExceeded(
                f"{name}: HTML is nested more than max_html_depth ({limit}) elements deep",
                hint="raise max_html_depth in tether.toml or TETHER_MAX_HTML_DEPTH if the page "
                "is genuine",
            )


def _close(stack: list[str], open_count: dict[str, int], tag: str) -> None:
    """An end tag closes everything opened since its element (which is open)."""
    while stack:
        top = stack.pop()
        open_count[top] -= 1
        if top == tag:
            break


def _open(stack: list[str], open_count: dict[str, int], tag: str) -> None:
    """A start tag, after the end tags HTML implies before it (``<p>`` closes a ``<p>``)."""
    while stack and (
        (tag in _SELF_SIBLING and stack[-1] == tag)
        or (tag in _CLOSES_P and stack[-1] == "p")
        or (tag in {"td", "th"} and stack[-1] in {"td", "th"})
        or (tag == "tr" and stack[-1] in {"td", "th", "tr"})
    ):
        open_count[stack.pop()] -= 1
    stack.append(tag)
    open_count[tag] = open_count.get(tag, 0) + 1
