"""HTML code examples as code, prose kept as prose, and headings over tables
(ADR 0056): both extraction paths (the tree through trafilatura, the stream for large
pages) fence a ``<pre>`` of code, leave a ``<pre>`` of wrapped prose as text, and a
heading the tree path's extraction dropped is put back before its table."""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.ingest.extract import extract_bytes
from tether.ingest.extract.htmltext import FENCE, reads_as_prose
from tether.ingest.structure import outline

TREE = Settings()
STREAMED = Settings(html_full_extract_max_bytes=1024)

CONFIG = """# ensure that the include module is loaded
&lt;IfModule !include_module&gt;
  Error "the include module is required"
&lt;/IfModule&gt;"""

WRAPPED_PROSE = """Sets the number of buffers kept for use only during memory shortage
conditions resulting in failed memory allocations. The minimum value is 2 and
is also the default. There is no reason a user would want to change this
value, it is mostly aimed at the core developers."""


def _section(name: str, default: str) -> str:
    return (
        f'<div class="directive-section"><h2 id="{name.lower()}"><span id="{name}">{name}</span>'
        f' Directive <a title="Permanent link" href="#{name.lower()}" class="permalink">&para;</a></h2>'
        f'<table class="directive"><tr><th>Description:</th><td>What {name} sets for the'
        f" server</td></tr><tr><th>Syntax:</th><td><code>{name} value</code></td></tr>"
        f"<tr><th>Default:</th><td><code>{name} {default}</code></td></tr></table>"
        f"<p>The {name} directive sets how the server behaves when a client keeps its"
        f" connection open between two requests for a long time.</p></div>"
    )


def _page(*body: str) -> bytes:
    filler = "<p>" + "A paragraph of ordinary text that is long enough to count. " * 6 + "</p>"
    return ("<html><head><title>Manual</title></head><body><article>"
            + filler + "".join(body) + filler + "</article></body></html>").encode()


def _text(page: bytes, settings: Settings) -> str:
    return extract_bytes(page, media_type="text/html", settings=settings, name="manual.html").text


@pytest.mark.parametrize("settings", [TREE, STREAMED], ids=["tree", "streamed"])
def test_a_code_example_is_fenced_and_its_comment_opens_no_heading(settings: Settings) -> None:
    text = _text(_page("<h2>Examples</h2><p>Load the module first, as the example shows.</p>",
                       f'<pre class="prettyprint">{CONFIG}</pre>',
                       "<p>The server then refuses to start without it.</p>"), settings)
    lines = text.split("\n")
    opening = lines.index(FENCE)
    assert lines[opening + 1] == "# ensure that the include module is loaded"
    assert lines[opening + 5] == FENCE
    blocks = outline(text, markdown=True)
    assert not any("ensure" in " ".join(b.heading) for b in blocks)
    code = [b for b in blocks if b.kind == "code"]
    assert len(code) == 1 and "IfModule" in text[code[0].start:code[0].end]
    # the prose after the example is prose again, under the page's own heading
    after = next(b for b in blocks if "refuses to start" in text[b.start:b.end])
    assert after.kind == "prose" and after.heading[-1] == "Examples"


@pytest.mark.parametrize("settings", [TREE, STREAMED], ids=["tree", "streamed"])
def test_wrapped_prose_in_a_pre_stays_prose(settings: Settings) -> None:
    text = _text(_page(f'<pre class="text">{WRAPPED_PROSE}</pre>'), settings)
    assert FENCE not in text
    assert "The minimum value is 2" in text


def test_a_quoted_example_keeps_its_lines() -> None:
    # trafilatura runs a <blockquote>'s lines into one: the example's lines were lost
    text = _text(_page("<p>Add these lines to the configuration file of the server:</p>",
                       f"<blockquote><pre>{CONFIG}</pre></blockquote>"), TREE)
    assert "\n# ensure that the include module is loaded\n<IfModule !include_module>\n" in text


def test_a_heading_over_a_table_is_put_back() -> None:
    text = _text(_page(*(_section(name, str(5 + i)) for i, name in
                         enumerate(["KeepAliveTimeout", "MaxKeepAliveRequests", "TimeOut"]))), TREE)
    blocks = outline(text, markdown=True)
    row = next(b for b in blocks if "| Default: | KeepAliveTimeout 5 |" in text[b.start:b.end])
    assert row.kind == "row" and row.heading[0] == "KeepAliveTimeout Directive"  # no pilcrow
    assert "## TimeOut Directive" in text


def test_prose_and_code_are_told_apart() -> None:
    assert reads_as_prose(WRAPPED_PROSE.split("\n"))
    assert not reads_as_prose(CONFIG.replace("&lt;", "<").replace("&gt;", ">").split("\n"))
    assert not reads_as_prose(["backend monitoring", "    stats enable", "    stats uri /admin"])
    assert not reads_as_prose([])


COMMENTS = ("# The kiln log starts a comment here.  The next line\n"
            "# is a new comment, even though it reads as\n# part of the comment before it.")


@pytest.mark.parametrize("settings", [TREE, STREAMED], ids=["tree", "streamed"])
def test_a_pre_of_code_comments_is_code_and_opens_no_heading(settings: Settings) -> None:
    # Comment lines read as words, but "# part of …" is no heading of the page: it is
    # fenced, and what follows keeps the page's own headings.
    page = _page("<h2>Comments</h2><p>Comments start with a hash. For example:</p>",
                 f"<pre>{COMMENTS}</pre>", "<h2>Vents</h2><p>The vent opens at 400 degrees.</p>")
    text = _text(page, settings)
    assert f"{FENCE}\n{COMMENTS}\n{FENCE}" in text
    vent = next(b for b in outline(text, markdown=True) if "400 degrees" in text[b.start:b.end])
    assert "part of the comment before it." not in " ".join(vent.heading)
    assert not reads_as_prose(COMMENTS.split("\n"))
