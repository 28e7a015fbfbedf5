"""The structure of a version's text: blocks of whole lines, each with its heading path.

One pass over the lines, in linear time, reading the structure the text itself shows
(the stored text is never changed, so citations stay ranges of it):

- a man page rendered to text (``GREP(1)  User Commands  GREP(1)``): its name is the
  root of every path, ALL-CAPS lines at the margin are sections, short lines indented
  a little are subsections, and an option line (``-v, --invert-match``) with the lines
  indented under it is one ``term`` block whose path ends with the option. Lines of
  the SYNOPSIS section are ``synopsis`` blocks: usage, not statements.
- Markdown (and HTML, whose extraction marks headings the Markdown way): ATX and
  setext headings, fenced code (one ``code`` block), list items with their
  continuation lines (``item``), table rows under their header row (``row``, the
  header ending the path), front matter (``meta``).
- plain text: ALL-CAPS and underlined headings, and the same indented term blocks.

    >>> [(b.kind, b.heading) for b in outline("# Gloves\\nWear nitrile.\\n- one\\n- two",
    ...                                       markdown=True)]
    [('heading', ('Gloves',)), ('prose', ('Gloves',)), ('item', ('Gloves',)), ('item', ('Gloves',))]
"""

from __future__ import annotations

import itertools
import operator
import re
from typing import NamedTuple

from ..text.english import USAGE_HEADINGS

__all__ = ["Block", "is_usage", "man_name", "outline"]

# Kinds of blocks: what segmentation and the answer stages may make of them.
# "synopsis" and "meta" are never statements; "heading" lines open a path.
Kind = str


class Block(NamedTuple):
    """Whole lines ``text[start:end]`` (no trailing newline) of one unit (a named tuple:
    an outline makes one per block, at half the cost of a frozen dataclass)."""

    start: int
    end: int
    kind: Kind  # heading | prose | term | item | row | code | synopsis | meta | furniture
    heading: tuple[str, ...]


# A header line ("GREP(1)  General Commands Manual  GREP(1)"): a name, its section, the
# title, the name again. Bounded: it is only tried on the first filled line, and a name
# or a title longer than a man page's width is no header (unbounded, the name and the
# backreference made a scan quadratic on a long run of digits).
_MAN_HEADER = re.compile(r"([^\s()]{1,64})\((\w{1,8})\)\s.{0,400}\S\s+\1\(\2\)\s*")
_CAPS = re.compile(r"[A-Z][A-Z0-9 _,/&().'+-]{0,58}")
# Every pattern is matched at a line start and runs in time linear in the line. A leading
# run of blanks is taken only where no blank precedes it (always true at a line start):
# tried at every blank of a long run, it made a scan quadratic.
_ATX = re.compile(r"[ ]{0,3}(#{1,6})[ \t]+")
_SETEXT = re.compile(r"[ ]{0,3}(=+|-+)[ \t]*")
_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"(?<![ \t])[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+\S")
# An item that names what it is about, as API references write option lists:
# ``- highWaterMark <number> …`` (Node.js), ``- `name`: …``.
_ITEM_TERM = re.compile(
    r"(?<![ \t])[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+(?:([\w$][\w.$\[\]()-]{0,59})(?=[ \t]+<\w)"
    r"|`([^`\n]{1,60})`(?=:?[ \t]))"
)
# A line that is only an option or a few (``-v, --verbose``, ``--tool=<name>
# [default: memcheck]``): the term of what follows it.
# Tokens hold no space or comma and separators hold a space, so a line splits one way.
# It starts a line (nothing but a newline before it): tried at every "-" of a long run such
# as "1-1-1-" ending in "!", the token scan was retried from each and was quadratic.
_OPTION_LINE = re.compile(
    r"(?<![^\n])[ ]{0,3}--?[A-Za-z0-9][^\s,;]*(?:,?[ ]+[^\s,;]+){0,5},?(?<![.!?:])[ \t]*\Z")
# Two words outside a type signature: the item says something about its term.
_SAYS = re.compile(r"(?:^|[\s>])[A-Za-z][\w'-]*[ \t\n]+[A-Za-z(`\d]")
# A row starts a line (nothing but a newline before it): tried after each "|" of a long
# run of them, ".*\|" rescanned the rest of the line.
_ROW = re.compile(r"(?<![^\n])[ \t]*\|.*\|[ \t]*\Z")
_STRUCTURAL = re.compile("|".join(
    p.pattern for p in (_ATX, _FENCE, _ITEM, _ROW, _OPTION_LINE)))
# A Markdown table's rule line, matched on the stripped line. Spaces are taken only after
# a "|" or before one, never in two optional runs side by side (that backtracked
# quadratically on a long run of blanks).
_RULE = re.compile(r"(?:\|[ \t]*)?:?-{2,}:?(?:[ \t]*\|[ \t]*:?-{2,}:?)*(?:[ \t]*\|)?")
# A hanging tag: the term, then a run of two or more spaces, then its description. The
# gap is searched for after the term's first character (see _hanging_term); a lazy
# "term, then look ahead for the gap" pattern rescanned the line from every position.
_GAP = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")
_PATH_CHARS = 120


def is_usage(heading: tuple[str, ...] | list[str]) -> bool:
    """Whether a heading path lies in a usage section (a man page's SYNOPSIS)."""
    return any(part.upper() in USAGE_HEADINGS for part in heading)


def man_name(text: str) -> str | None:
    """``grep(1)`` for a man page rendered to text (its header line), else ``None``."""
    for line in text.split("\n", 8)[:8]:
        if line.strip():
            found = _MAN_HEADER.fullmatch(line.strip())
            return f"{found[1].lower()}({found[2]})" if found else None
    return None


def _hanging_term(raw: str, start: int) -> str | None:
    """The term of a hanging tag line (``-v      invert the match``): from ``start`` (a
    non-blank) to the first gap of two or more blanks that a non-blank follows."""
    if start >= len(raw) or raw[start].isspace():
        return None
    gap = _GAP.search(raw, start + 1)
    return raw[start : gap.start()] if gap else None


def _label(text: str) -> str:
    # A permalink's pilcrow ("KeepAliveTimeout Directive ¶") is no part of the name.
    label = " ".join(text.split()).strip("#").rstrip("¶ ").strip()
    return label[:_PATH_CHARS]


class _Lines:
    """The lines of ``text[lo:hi]`` as parallel lists (built by C-level passes, not an
    object per line: that was a third of the outline's time): each line's text, start
    and end offsets, indent (spaces and tabs) and whether it is blank."""

    __slots__ = ("blank", "end", "indent", "raw", "start")

    def __init__(self, text: str, lo: int, hi: int) -> None:
        self.raw = text[lo:hi].split("\n")
        lengths = list(map(len, self.raw))
        # str.lstrip mapped over the lines with its argument repeated: no Python step per line
        content = list(map(len, map(str.lstrip, self.raw, itertools.repeat(" \t"))))
        self.start = list(itertools.accumulate([n + 1 for n in lengths[:-1]], initial=lo))
        self.end = list(map(operator.add, self.start, lengths))
        self.indent = list(map(operator.sub, lengths, content))
        self.blank = list(map(operator.not_, content))

    def __len__(self) -> int:
        return len(self.raw)


class _Outliner:
    """The state of one pass: the path stack, the current block, what is open."""

    def __init__(self, text: str, lines: _Lines, *, markdown: bool, root: str | None):
        self.text, self.lines, self.markdown = text, lines, markdown
        self.n = len(lines)
        self.starts, self.ends, self.indents, self.blanks = lines.start, lines.end, lines.indent, lines.blank
        self.line = lines.raw.__getitem__  # the text of line i
        self.root = (root,) if root else ()
        self.man = root is not None
        self.path: list[tuple[int, str]] = []  # (level, label)
        self.usage = False  # whether the path lies in a usage section (set by ``open``)
        self._heading: tuple[str, ...] = self.root  # the path as a tuple (blocks share it)
        self.blocks: list[Block] = []
        self.first = self.next_filled(0)
        last = self.n - 1
        while last >= 0 and self.blanks[last]:
            last -= 1
        self.last = last

    def heading(self) -> tuple[str, ...]:
        return self._heading

    def open(self, level: int, label: str) -> None:
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        if label:
            self.path.append((level, label))
        self._heading = self.root + tuple(label for _, label in self.path)
        self.usage = bool(self.path) and self.path[0][1].upper() in USAGE_HEADINGS

    def add(self, first: int, last: int, kind: Kind, heading: tuple[str, ...] | None = None) -> None:
        start = self.starts[first] + self.indents[first]
        end = self.ends[last]
        while end > start and self.text[end - 1].isspace():
            end -= 1
        self.blocks.append(Block(start, end, kind, self._heading if heading is None else heading))

    def next_filled(self, i: int) -> int | None:
        n, blanks = self.n, self.blanks
        while i < n and blanks[i]:
            i += 1
        return i if i < n else None

    def step(self, i: int) -> int:
        """Classify the line at ``i`` and consume its block; the index after it."""
        raw = self.line(i)
        if self.man and i in (self.first, self.last):
            self.add(i, i, "furniture", self.root)  # the page's header and footer lines
            return i + 1
        if self.markdown:
            done = self.markdown_step(i, raw)
            return self.paragraph(i) if done is None else done
        indent = self.indents[i]
        # _CAPS opens on a capital (a letter: the heading has one) and _ITEM on a marker
        # or a digit after the indent: most lines are neither, and skip both patterns.
        if indent == 0 and "A" <= raw[0] <= "Z" and _CAPS.fullmatch(raw.rstrip()):
            self.open(1, _label(raw))
            self.add(i, i, "heading")
            return i + 1
        if self._underlined(i):
            self.open(1 if self.line(i + 1).lstrip()[0] == "=" else 2, _label(raw))
            self.add(i, i + 1, "heading")
            return i + 2
        mark = raw[indent]
        if (mark in "-*+•" or mark.isdecimal()) and _ITEM.match(raw) and not self.usage:
            return self.item(i)
        done = self.indented_step(i, raw)
        return self.paragraph(i) if done is None else done

    def _underlined(self, i: int) -> bool:
        if i + 1 >= self.n or self.indents[i] > 3 or self.blanks[i + 1]:
            return False
        under = self.line(i + 1)
        if under[self.indents[i + 1]] not in "=-":  # what _SETEXT opens on after its indent
            return False
        return bool(_SETEXT.fullmatch(under)) and len(under.strip()) >= 3

    # -- plain text and man pages ------------------------------------------------------

    def indented_step(self, i: int, raw: str) -> int | None:
        """A subsection line, or a term with the lines indented under it."""
        if self.usage:
            return self.paragraph(i, kind="synopsis")
        indent = self.indents[i]
        nxt = self.next_filled(i + 1)
        deeper = nxt is not None and self.indents[nxt] > indent
        body = raw.strip()
        if (self.man and 0 < indent < 5 and deeper and len(body) < 60
                and not body.endswith((".", ":", ";", ","))):
            self.open(2, _label(body))
            self.add(i, i, "heading")
            return i + 1
        option = body[:1] in ("-", "+") and len(body) > 1 and not body[1].isspace()
        if not (option or (deeper and nxt == i + 1 and len(body) < 50
                           and not body.endswith((".", ",", ";")))):
            return None
        last = i
        j = i + 1
        n, blanks, indents = self.n, self.blanks, self.indents
        while j < n and (blanks[j] or indents[j] > indent):
            if not blanks[j]:
                last = j
            j += 1
        if last == i and not option:
            return None
        gap = _hanging_term(raw, indent)
        term = gap if gap else body
        if option and last == i and not gap:
            term = body.split()[0]
        self.add(i, last, "term", self.heading() + (_label(term),))
        return last + 1

    def paragraph(self, i: int, kind: Kind = "prose") -> int:
        """Lines up to a blank line, an outdent, or (Markdown) a structural line."""
        if self.usage:
            kind = "synopsis"
        indent = self.indents[i]
        n, blanks, indents, markdown = self.n, self.blanks, self.indents, self.markdown
        j = i + 1
        while j < n:
            if blanks[j] or indents[j] < indent:
                break
            if markdown and _STRUCTURAL.match(self.line(j)) is not None:
                break
            if not markdown and kind == "prose" and indents[j] > indent:
                break
            j += 1
        self.add(i, j - 1, kind)
        return j

    # -- Markdown ----------------------------------------------------------------------

    def structural(self, raw: str) -> bool:
        return _STRUCTURAL.match(raw) is not None

    def markdown_step(self, i: int, raw: str) -> int | None:
        atx = _ATX.match(raw)
        if atx:
            self.open(len(atx[1]), _label(raw[atx.end():]))
            self.add(i, i, "heading")
            return i + 1
        if self._underlined(i) and not _ITEM.match(raw):
            self.open(1 if self.line(i + 1).lstrip()[0] == "=" else 2, _label(raw))
            self.add(i, i + 1, "heading")
            return i + 2
        fence = _FENCE.match(raw)
        if fence:
            return self.code(i, fence[1])
        if _ITEM.match(raw):
            return self.item(i)
        if _ROW.match(raw):
            return self.table(i)
        if _OPTION_LINE.match(raw):
            return self.option(i)
        return None

    def option(self, i: int) -> int:
        """An option line standing alone (a definition list's term, as extracted HTML
        gives ``--trace-children=<yes|no> [default: no]``) and the paragraph after it."""
        nxt = self.next_filled(i + 1)
        if nxt is None or nxt > i + 2 or self.structural(self.line(nxt)):
            self.add(i, i, "term", self.heading() + (_label(self.line(i)),))
            return i + 1
        j = nxt
        while (j + 1 < self.n and not self.blanks[j + 1]
               and not self.structural(self.line(j + 1))):
            j += 1
        self.add(i, j, "term", self.heading() + (_label(self.line(i)),))
        return j + 1

    def code(self, i: int, marker: str) -> int:
        j = i + 1
        while j < self.n and not self.line(j).lstrip().startswith(marker):
            j += 1
        last = min(j, self.n - 1)
        self.add(i, last, "code")
        return last + 1

    def item(self, i: int) -> int:
        """A list item and its continuation lines (deeper, or lazy prose lines)."""
        indent = self.indents[i]
        j, last = i + 1, i
        while j < self.n:
            if self.blanks[j]:
                nxt = self.next_filled(j)
                if nxt is None or self.indents[nxt] <= indent:
                    break
                j = nxt
                continue
            raw = self.line(j)
            if self.indents[j] <= indent and self.structural(raw):
                break
            if self.indents[j] > indent and _ITEM.match(raw):
                break  # a nested item is an item of its own
            last = j
            j += 1
        term = _ITEM_TERM.match(self.line(i))
        if term and not _SAYS.search(self.text, self.starts[i] + term.end(), self.ends[last]):
            term = None  # a bare signature (``- fd <integer>``) stays with its siblings
        self.add(i, last, "item", self.heading() + (term[1] or term[2],) if term else None)
        return last + 1

    def table(self, i: int) -> int:
        """Rows of a table; the header row (above a ``|---|`` rule) ends each row's path."""
        header: tuple[str, ...] = ()
        j = i
        if i + 1 < self.n and _RULE.fullmatch(self.line(i + 1).strip()):
            header = (_label(" | ".join(c.strip() for c in self.line(i).strip().strip("|").split("|"))),)
            self.add(i, i + 1, "heading")
            j = i + 2
        while j < self.n and _ROW.match(self.line(j)):
            self.add(j, j, "row", self.heading() + header)
            j += 1
        return j


def _front_matter(lines: _Lines) -> int:
    """How many lines of YAML (``---``) or TOML (``+++``) front matter open the text."""
    if not len(lines) or lines.raw[0].rstrip() not in ("---", "+++"):
        return 0
    fence = lines.raw[0].rstrip()
    for k in range(1, min(len(lines), 200)):
        if lines.raw[k].rstrip() in (fence, "..."):
            return k + 1
    return 0


def outline(
    text: str, lo: int = 0, hi: int | None = None, *, markdown: bool, root: str | None = None
) -> list[Block]:
    """The blocks of ``text[lo:hi]`` in order; blank lines belong to none.

    ``markdown`` reads Markdown structure (also right for extracted HTML); otherwise
    plain-text and man-page structure, with ``root`` (a man page's ``grep(1)``)
    opening every heading path.
    """
    hi = len(text) if hi is None else hi
    lines = _Lines(text, lo, hi)
    outliner = _Outliner(text, lines, markdown=markdown, root=root)
    skip = _front_matter(lines) if lo == 0 else 0
    if skip:
        outliner.add(0, skip - 1, "meta")
    i, n, blanks, step = skip, len(lines), lines.blank, outliner.step
    while i < n:
        if blanks[i]:
            i += 1
            continue
        i = step(i)
    return outliner.blocks
