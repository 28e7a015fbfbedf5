"""The HTML text rules: what of a page is text and how its lines break, in one place.

Both HTML paths read a page by these rules (``html``: the tree, for pages up to
``html_full_extract_max_bytes``; ``htmlstream``: the stream, for larger ones), and so
does raw HTML inside Markdown (``markdown``). What hides an element from a reader is
``visibility.hidden_element``, the one hiding rule of all three.

- ``SKIP_TEXT``: elements whose text is not page text (scripts, styles, the head).
- ``NAVIGATION``: menus, left out where no main-content pass drops them (the stream;
  ``role="navigation"`` too).
- ``BLOCK``: elements that start and end a line.
- ``HEADINGS``: ``h1``-``h6`` and their levels, marked ``## Heading`` in the text.
- ``KEEPS_LINES``: elements whose source line breaks are text (the stream keeps those
  of ``<pre>`` alone: the others are obsolete or form fields).
- ``FENCE`` and ``reads_as_prose``: a ``<pre>`` of code stands between fence lines,
  as Markdown fences code; one of wrapped prose does not (ADR 0056).

    >>> "div" in BLOCK, HEADINGS["h3"], reads_as_prose(["x = 1"])
    (True, 3, False)
"""

from __future__ import annotations

import re

__all__ = ["BLOCK", "FENCE", "HEADINGS", "KEEPS_LINES", "NAVIGATION", "SKIP_TEXT", "reads_as_prose"]

# Not page text, and not hidden text either (the never-rendered elements are
# ``visibility.NEVER_RENDERED``: their text is checked for the hidden-text flags).
SKIP_TEXT = frozenset(["script", "style", "head", "title", "svg", "math"])
NAVIGATION = frozenset(["nav"])
HEADINGS = {f"h{n}": n for n in range(1, 7)}
BLOCK = frozenset(
    ["address", "article", "aside", "blockquote", "br", "dd", "details", "dialog", "div", "dl",
     "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
     "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table",
     "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "caption"]
)
KEEPS_LINES = frozenset(["pre", "textarea", "plaintext", "xmp", "listing"])
# The line each ``<pre>`` of code stands between, as Markdown fences code: extracted
# text keeps no markup, and an example's "# comment" line otherwise reads as a heading.
FENCE = "```"
# A word of running prose: letters, with the quotes, brackets and punctuation around them.
_WORD = re.compile(r"[(\"'\[]*[^\W\d_]+(?:['’-][^\W\d_]+)*[)\]\"',;:.!?]*")
_SENTENCE_END = re.compile(r"[^\W\d_][.!?](?:\s|$)")


# A code comment's opening: "# the next line …" and "// part of …" read as words, but a
# line of prose in a preformatted manual never opens with one.
_COMMENT = re.compile(r"(?:#|//|/\*|;)")


def _prose_line(line: str) -> bool:
    """Six tokens or more, at least three in four of them words, not a code comment."""
    tokens = line.split()
    return (len(tokens) >= 6 and not _COMMENT.match(line)
            and sum(1 for t in tokens if _WORD.fullmatch(t)) >= 0.75 * len(tokens))


def reads_as_prose(lines: list[str]) -> bool:
    """Whether a ``<pre>``'s lines are wrapped prose (a manual kept as preformatted
    text), not code: most of its characters stand in lines that run as words (a
    paragraph's short last line counts with its paragraph), and a sentence ends."""
    filled = [line.strip() for line in lines if line.strip()]
    prose = sum(len(line) for line in filled if _prose_line(line))
    return prose >= 0.5 * sum(map(len, filled)) and any(_SENTENCE_END.search(line) for line in filled)
