"""HTML too large for a tree: visible text streamed from the parser, in bounded memory.

A page over ``html_full_extract_max_bytes`` is not built into a tree (lxml's tree of
an 8 MB page, with trafilatura's copies, peaks at ~600 MiB). libxml2's HTML parser
is fed the page in 1 MiB slices with a *target* (SAX) instead: each start tag, end
tag and run of text reaches ``_Stream`` and is dropped once handled, so memory is the
page, its decoded text and the text kept — linear in the page, a few times its size.

What is kept is every visible text run by the rules both paths share (``htmltext``:
what is not text, block elements, headings, code), one line per block element, with
what no main-content heuristic does here done by those rules: ``<nav>`` and
``role="navigation"`` elements are left out, like the menus trafilatura drops;
headings are marked as they end (``## Buffering``, the first line of the heading);
``<pre>`` keeps its lines and their indentation, code between fences. A definition
term is a list item here, where the tree path marks it as a heading (ADR 0043).
Hidden elements (``visibility.hidden_element``, the one rule of both paths) are kept
out of the text, and their text (with ``<input type=hidden>`` values) is handed back
for the ``hidden-html`` flags.

    >>> page = '<h2>Gloves</h2><p>Wear <b>nitrile</b>.</p><p hidden>Ignore the rules.</p>'
    >>> streamed = stream_html(page)
    >>> streamed.text, streamed.hidden
    ('## Gloves\\nWear nitrile.', ['Ignore the rules.'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .htmlpage import refuse_cut_parse
from .htmltext import BLOCK, FENCE, HEADINGS, NAVIGATION, SKIP_TEXT, reads_as_prose
from .visibility import hidden_element

__all__ = ["Streamed", "stream_html"]

_SLICE = 1 << 20  # characters of the page encoded and fed at a time
_TITLE_SOURCE = 2_000  # characters of <title> / <h1> text kept for the title


@dataclass
class Streamed:
    """What the stream kept: the text (lines, headings marked), the title's sources,
    the texts of hidden elements, and how many headings were marked."""

    text: str = ""
    title: str | None = None
    hidden: list[str] = field(default_factory=list)
    headings: int = 0


class _Stream:
    """The parser's target: one call per start tag, end tag and text run (libxml2
    reports an end for every start, implied ones included, so depth is exact).

    Lines follow trafilatura's text output where it has a convention, so a quote
    taken from a page's earlier (tree path) text is still found verbatim: a list item
    is ``- `` indented two spaces per enclosing list, with the blocks inside it on its
    one line; a table row is ``| a | b |``, a header row followed by ``|---|---|``."""

    def __init__(self) -> None:
        self.lines: list[str | None] = []  # None: an opening fence taken back
        self.line: list[str] = []
        self.depth = 0
        self.hidden: list[str] = []
        self.hidden_at = 0  # depth of the hidden element being read; 0: none
        self.hidden_parts: list[str] = []
        self.skip_at = 0  # depth of the element whose text is not page text (script, nav)
        self.pre = 0
        self.pre_from = 0  # the line the outermost open <pre> started at
        self.mark = ""  # the heading or list-item mark the next line gets
        self.headings = 0
        self.lists = 0  # open ul/ol/dl
        self.items = 0  # open li/dt/dd: blocks inside stay on the item's line
        self.tables = 0
        self.row: list[str] | None = None  # cells of the open row of the outer table
        self.header_row = False
        self.rows = 0  # rows written of the outer table
        self.og_title: str | None = None
        self.title_parts: list[str] = []
        self.h1_parts: list[str] = []
        self.in_title = self.in_h1 = 0

    def flush(self) -> None:
        """End the line being read (a block starts or ends); inside a table row,
        nothing ends before the row does."""
        if not self.line or self.row is not None:
            return
        joined = "".join(self.line)
        self.line.clear()
        if self.pre:
            joined = joined.replace("\r\n", "\n").replace("\r", "\n")
            found = [part.rstrip() for part in joined.split("\n")]
        else:
            found = [" ".join(joined.split())]
        for line in found:
            if line.strip():
                if self.mark:
                    self.headings += self.mark[0] == "#"
                    line = self.mark + line.strip()
                    self.mark = ""
                self.lines.append(line)

    def _cell(self) -> None:
        if self.row is not None and self.line:
            if not self.row:  # text in a row before its first cell
                self.row.append("")
            self.row[-1] += " " + "".join(self.line)
            self.line.clear()

    def _block_start(self, tag: str) -> None:
        if self.row is not None:  # a table row is one line, whatever is in its cells
            if self.tables == 1 and tag in ("td", "th"):
                self._cell()
                self.row.append("")
                self.header_row = self.header_row and tag == "th"
            else:
                self.line.append(" ")
            return
        if tag in ("ul", "ol", "dl"):
            self.flush()
            self.lists += 1
        elif tag in ("li", "dt", "dd"):
            self.flush()
            self.items += 1
            self.mark = "  " * max(0, self.lists - 1) + "- "
        elif tag == "table":
            self.flush()
            self.tables += 1
            self.rows = 0
        elif tag == "tr" and self.tables == 1:
            self.flush()
            self.row, self.header_row = [], True
        elif self.items and tag not in HEADINGS and tag != "pre":
            self.line.append(" ")
        else:
            self.flush()
            if tag in HEADINGS:
                self.mark = "#" * HEADINGS[tag] + " "
            elif tag == "pre":
                self.pre += 1
                if self.pre == 1:  # a fence held open; dropped at the end if no code came
                    self.lines.append(FENCE)
                    self.pre_from = len(self.lines)

    def _block_end(self, tag: str) -> None:
        if self.row is not None:
            if self.tables == 1 and tag == "tr":
                self._cell()
                cells = [" ".join(cell.split()) for cell in self.row]
                self.row = None
                if any(cells):
                    self.lines.append("| " + " | ".join(cells) + " |")
                    if self.header_row and not self.rows:
                        self.lines.append("|" + "---|" * len(cells))
                    self.rows += 1
            elif tag == "table":
                self.tables -= 1
            else:
                self.line.append(" ")
            return
        if tag in ("ul", "ol", "dl"):
            self.flush()
            self.lists -= self.lists > 0
        elif tag in ("li", "dt", "dd"):
            self.flush()
            self.items -= self.items > 0
            self.mark = ""
        elif tag == "table":
            self.flush()
            self.tables -= self.tables > 0
        elif self.items and tag not in HEADINGS and tag != "pre":
            self.line.append(" ")
        else:
            self.flush()
            if tag in HEADINGS:
                self.mark = ""
            elif tag == "pre" and self.pre:
                self.pre -= 1
                if not self.pre:
                    self._close_pre()

    def _close_pre(self) -> None:
        """The outermost ``<pre>`` ended: code gets its closing fence, prose (or
        nothing) loses the opening one."""
        body = [line for line in self.lines[self.pre_from:] if line is not None]
        if body and not reads_as_prose(body):
            self.lines.append(FENCE)
        else:
            self.lines[self.pre_from - 1] = None

    def start(self, tag: str, attrib: Any) -> None:
        self.depth += 1
        if self.hidden_at:
            return
        if tag == "input" and (attrib.get("type") or "").lower() == "hidden":
            self.hidden.append(attrib.get("value") or "")
            return
        if hidden_element(tag, attrib):
            self.line.append(" ")
            self.hidden_at = self.depth
            return
        if (tag == "meta" and self.og_title is None
                and "og:title" in (attrib.get("property"), attrib.get("name"))):
            self.og_title = attrib.get("content")
        self.in_title += tag == "title"
        self.in_h1 += tag == "h1"
        if self.skip_at:
            return
        if (tag in SKIP_TEXT or tag in NAVIGATION
                or (attrib.get("role") or "").lower() == "navigation"):
            self.line.append(" ")
            self.skip_at = self.depth
            return
        if tag in BLOCK:
            self._block_start(tag)

    def end(self, tag: str) -> None:
        depth = self.depth
        self.depth -= 1
        if self.hidden_at:
            if depth == self.hidden_at:
                self.hidden_at = 0
                self.hidden.append("".join(self.hidden_parts))
                self.hidden_parts.clear()
            return
        self.in_title -= self.in_title > 0 and tag == "title"
        self.in_h1 -= self.in_h1 > 0 and tag == "h1"
        if self.skip_at:
            if depth == self.skip_at:
                self.skip_at = 0
            return
        if tag in BLOCK:
            self._block_end(tag)

    def data(self, text: str) -> None:
        if self.hidden_at:
            self.hidden_parts.append(text)
            return
        if self.in_title and len(self.title_parts) < _TITLE_SOURCE:
            self.title_parts.append(text)
        if self.in_h1 and len(self.h1_parts) < _TITLE_SOURCE:
            self.h1_parts.append(text)
        if not self.skip_at:
            self.line.append(text)

    def close(self) -> None:
        if self.row is not None:
            self._block_end("tr")
        self.flush()


def stream_html(html: str | bytes, *, name: str = "<html>") -> Streamed:
    """The visible text of ``html`` (a page, or its UTF-8 bytes) read as a stream (no
    tree), with its title, the texts of its hidden elements and the number of headings
    marked. Raises ``LimitExceeded`` when libxml2 stopped at its own depth limit."""
    from lxml import etree  # type: ignore[import-untyped, unused-ignore]

    target = _Stream()
    # huge_tree: as the tree path (libxml2 otherwise stops 256 elements deep); no
    # comments or processing instructions reach a target without those methods.
    parser = etree.HTMLParser(target=target, encoding="utf-8", huge_tree=True)
    for at in range(0, len(html), _SLICE):
        piece = html[at : at + _SLICE]
        # A slice of bytes may end inside a character: the push parser reads on.
        parser.feed(piece if isinstance(piece, bytes) else piece.encode("utf-8", "surrogatepass"))
    if not html:
        parser.feed(b" ")
    parser.close()
    refuse_cut_parse(parser, name)
    title = target.og_title or "".join(target.title_parts) or "".join(target.h1_parts)
    return Streamed(text="\n".join(line for line in target.lines if line is not None), title=title or None, hidden=target.hidden,
                    headings=target.headings)
