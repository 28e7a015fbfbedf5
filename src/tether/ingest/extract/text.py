"""Plain text, kept verbatim (we cite the source text itself), and Markdown, rendered to
the text its reader sees (``markdown``, ADR 0046); both decoded strictly.

    >>> from tether.config import Settings
    >>> out = MARKDOWN_EXTRACTOR.extract(b"Intro\\n=====\\nBody <!-- note -->", settings=Settings(),
    ...                                  name="x", charset=None)
    >>> out.title, out.text
    ('Intro', '# Intro\\nBody')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ...config import Settings
from ...errors import UnsupportedInput
from .base import Extracted, cap_title
from .limits import check_chars
from .sniff import (
    MARKDOWN,
    TEXT,
    clean,
    decode,
    lookup,
    refuse_binary,
    split_bom,
    unix_newlines,
)

__all__ = ["MARKDOWN_EXTRACTOR", "TEXT_EXTRACTOR", "MarkdownExtractor", "TextExtractor",
           "first_line", "markdown_title", "text_title"]

_ATX = re.compile(r"[ ]{0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*")
_SETEXT = re.compile(r"[ ]{0,3}(?:=+|-+)[ \t]*")
# A line of one punctuation mark repeated: a rule, an over- or underline.
_RULE = re.compile(r"([=\-~*#^+_])\1{2,}")  # matched against a stripped line
_FENCE = re.compile(r"[ ]{0,3}(?:```|~~~)")
# ``title: Pump maintenance`` (YAML) or ``title = "Pump maintenance"`` (TOML).
_META_TITLE = re.compile(r"title[ \t]*[:=][ \t]*(.+?)[ \t]*")
# Bounded (as ingest/structure.py's): only tried on the first filled line, where a name or
# a title wider than a man page is no header; unbounded, it was quadratic on long runs.
_MAN_HEADER = re.compile(r"([^\s()]{1,64})\((\w{1,8})\)\s.{0,400}\S\s+\1\(\2\)")
# Python's names (codecs.lookup) of the decoders that refuse a lone surrogate.
_STRICT_UTF = frozenset({"utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le",
                         "utf-32-be"})


@dataclass(frozen=True, slots=True)
class TextExtractor:
    """Text read as-is, titled by ``title``."""

    media_type: str
    title: Callable[[str], str | None]

    def extract(
        self, data: bytes, *, settings: Settings, name: str, charset: str | None
    ) -> Extracted:
        text = decode_text(data, settings, name, charset)
        return Extracted(text=text, media_type=self.media_type, extractor="text", regions=(),
                         title=self.title(text))


def decode_text(data: bytes, settings: Settings, name: str, charset: str | None) -> str:
    """``data`` as text: BOM, else ``charset``, else UTF-8; binary-looking bytes refused."""
    bom_encoding, body = split_bom(data)
    encoding = bom_encoding or (lookup(charset, name) if charset else "utf-8")
    if not encoding.startswith("utf-16"):
        refuse_binary(body, name)
    text = decode(data, len(data) - len(body), encoding, name)
    if "\x00" in text:  # a UTF-16 file can still smuggle one in
        raise UnsupportedInput(f"{name}: looks binary, not text (NUL characters)")
    check_chars(len(text), settings, name)
    # A strict UTF decoder refuses lone surrogates and the text holds no NUL, so only
    # other codecs' text needs the rest of clean() (a scan of every character).
    return unix_newlines(text) if encoding in _STRICT_UTF else clean(text)


def first_line(text: str) -> str | None:
    """The first non-blank line (of the first 200), as a title."""
    for line in text.split("\n", 200)[:200]:
        if line.strip():
            return cap_title(line)
    return None


def _front_matter_title(lines: list[str]) -> tuple[str | None, int]:
    """The ``title`` of YAML (``---``) or TOML (``+++``) front matter, and how many
    lines the front matter takes (0 when there is none)."""
    if not lines or lines[0].rstrip() not in ("---", "+++"):
        return None, 0
    fence = lines[0].rstrip()
    title = None
    for i, line in enumerate(lines[1:200], 1):
        if line.rstrip() in (fence, "..."):
            return title, i + 1
        found = _META_TITLE.fullmatch(line)
        if found and title is None:
            title = cap_title(found[1].strip().strip("\"'"))
    return None, 0


def _man_title(lines: list[str]) -> str | None:
    """A rendered man page's NAME line (``grep, egrep - print lines that match patterns``)."""
    head = next((line for line in lines[:8] if line.strip()), "")
    if not _MAN_HEADER.fullmatch(head.strip()):
        return None
    for i, line in enumerate(lines[:60]):
        if line.strip() == "NAME":
            body = next((n for n in lines[i + 1 : i + 4] if n.strip()), "")
            return cap_title(body) if body.startswith((" ", "\t")) else None
    return None


def text_title(text: str) -> str | None:
    """A plain-text title: a man page's NAME line, front matter's ``title``, an
    underlined first heading, or a short first line that is no sentence; else ``None``
    (ingest then uses the file's name), never a sentence of the body."""
    lines = text.split("\n", 200)[:200]
    title = _man_title(lines)
    if title:
        return title
    title, skip = _front_matter_title(lines)
    if title or skip:
        return title
    # A reStructuredText title's overline ("=====" above the title) is no title itself.
    filled = [i for i, line in enumerate(lines[:40]) if line.strip() and not _RULE.fullmatch(line.strip())]
    if not filled:
        return None
    i = filled[0]
    line = lines[i].strip()
    after = lines[i + 1] if i + 1 < len(lines) else ""
    if _SETEXT.fullmatch(after) and after.strip():
        return cap_title(line)
    if len(line) <= 80 and not line.endswith((".", "!", "?", ":", ";", ",")):
        return cap_title(line)
    return None


def markdown_title(text: str) -> str | None:
    """Front matter's ``title``, else the first ATX (``# Title``) or setext (``Title``
    over ``===``) heading, else the first line after any front matter."""
    lines = text.split("\n", 2000)[:2000]
    title, skip = _front_matter_title(lines)
    if title:
        return title
    in_fence = False
    for i in range(skip, len(lines)):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        atx = _ATX.fullmatch(line)
        if atx:
            return cap_title(atx.group(1))
        if line.strip() and i + 1 < len(lines) and _SETEXT.fullmatch(lines[i + 1]):
            return cap_title(line)
    return first_line("\n".join(lines[skip:]))


class MarkdownExtractor:
    """Markdown rendered to text (``markdown.render_markdown``): front matter, comments,
    reference definitions, titles, hidden raw HTML and markup left out; what was left
    out is checked for instruction-like text (the ``hidden-html`` flags, as HTML's)."""

    def extract(
        self, data: bytes, *, settings: Settings, name: str, charset: str | None
    ) -> Extracted:
        # Imported here: a plain-text ingest (and the writer, ADR 0028) never needs them.
        import markdown_it

        from .markdown import render_markdown
        from .visibility import hidden_text_flags

        source = decode_text(data, settings, name, charset)
        lines = source.split("\n", 200)[:200]
        title, front_matter = _front_matter_title(lines)
        rendered = render_markdown(source, front_matter=front_matter)
        return Extracted(text=rendered.text, media_type=MARKDOWN,
                         extractor=f"markdown-it-py {markdown_it.__version__}", regions=(),
                         title=title or markdown_title(rendered.text),
                         hidden_flags=hidden_text_flags(rendered.hidden))


TEXT_EXTRACTOR = TextExtractor(TEXT, text_title)
MARKDOWN_EXTRACTOR = MarkdownExtractor()
