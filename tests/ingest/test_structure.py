"""Passages follow the document's structure and carry their heading path (issue 18, item 1)."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tether.ingest.segment import passage_spans
from tether.ingest.structure import is_usage, man_name, outline
from tether.text.sentences import split_sentences

# Shaped as ``MANWIDTH=80 man -P cat grep`` renders it (abridged, same indents).
GREP = """\
GREP(1)                          User Commands                         GREP(1)

NAME
       grep, egrep, fgrep, rgrep - print lines that match patterns

SYNOPSIS
       grep [OPTION...] PATTERNS [FILE...]
       grep [OPTION...] -e PATTERNS ... [FILE...]

DESCRIPTION
       grep  searches  for  PATTERNS  in  each  FILE.  PATTERNS is one or more
       patterns separated by newline characters, and  grep  prints  each  line
       that  matches a pattern.

OPTIONS
   Generic Program Information
       --help Output a usage message and exit.

   Matching Control
       -i     Ignore case distinctions in patterns and input data, so that
              characters that differ only in case match each other.

       -v, --invert-match
              Invert the sense of matching, to select non-matching lines.  The
              default is plain com\u2010
              pression of nothing.

       -w, --word-regexp
              Select only those lines containing matches that form whole words.

GNU grep 3.11                     2023-04-25                           GREP(1)"""


def _passages(text: str, max_chars: int = 400, **kw) -> list[tuple[str, tuple[str, ...], str]]:
    return [(text[c.start:c.end], c.heading, c.kind)
            for c in passage_spans(text, max_chars=max_chars, **kw)]


def _by_heading(text: str) -> dict[tuple[str, ...], str]:
    return {heading: piece for piece, heading, _ in _passages(text)}


def test_a_man_page_option_and_its_description_are_one_passage_under_its_path():
    assert man_name(GREP) == "grep(1)"
    found = _by_heading(GREP)
    invert = found[("grep(1)", "OPTIONS", "Matching Control", "-v, --invert-match")]
    assert invert.startswith("-v, --invert-match\n") and invert.endswith("pression of nothing.")
    # A hanging tag: the option is the part before the gap, its text runs on below.
    assert found[("grep(1)", "OPTIONS", "Matching Control", "-i")].endswith("match each other.")
    # Two options never share a passage, and the subsection heading leads its first one.
    assert found[("grep(1)", "OPTIONS", "Generic Program Information", "--help")].startswith(
        "OPTIONS\n   Generic Program Information\n       --help")
    assert "-w" not in invert


def test_synopsis_lines_are_marked_and_kept_apart_from_statements():
    kinds = {heading: kind for _, heading, kind in _passages(GREP)}
    assert kinds[("grep(1)", "SYNOPSIS")] == "synopsis"
    assert is_usage(("grep(1)", "SYNOPSIS")) and not is_usage(("grep(1)", "OPTIONS", "-v"))
    synopsis = _by_heading(GREP)[("grep(1)", "SYNOPSIS")]
    assert "searches" not in synopsis and synopsis.endswith("[FILE...]")
    # Header and footer lines stand under the page's name alone.
    assert kinds[("grep(1)",)] == "furniture"


def test_hard_wraps_and_hyphenation_do_not_cut_sentences():
    invert = _by_heading(GREP)[("grep(1)", "OPTIONS", "Matching Control", "-v, --invert-match")]
    assert split_sentences(invert) == [
        "-v, --invert-match",
        "Invert the sense of matching, to select non-matching lines.",
        "The\n              default is plain com\u2010\n              pression of nothing.",
    ]
    hanging = _by_heading(GREP)[("grep(1)", "OPTIONS", "Matching Control", "-i")]
    assert split_sentences(hanging)[1:] == [hanging[hanging.index("-i"):]]
    # Wrapped prose of the description joins too; the stored text is untouched.
    description = _by_heading(GREP)[("grep(1)", "DESCRIPTION")]
    assert split_sentences(description)[2].startswith("PATTERNS is one or more\n")


MARKDOWN = """\
---
hide-toc: true
title: Streams
---
# Streams

There are four rules:

- Each value has an owner.
- There can only be one owner at a time.

## new stream.Duplex(options)#

- options <Object> Passed to both constructors.
  - allowHalfOpen <boolean> If set to false, the stream ends.
Default: true.
  - highWaterMark <number> Buffer level.
Default: 16384.

```js
const d = new Duplex();

// a blank line inside the fence
```

| Option | Default |
|--------|---------|
| level  | 6       |
| quiet  | off     |
"""


def test_markdown_headings_lists_code_and_tables():
    found = _passages(MARKDOWN)
    by = {heading: piece for piece, heading, _ in found}
    kinds = {heading: kind for _, heading, kind in found}
    assert kinds[()] == "meta"  # front matter is never a statement
    # The announcing sentence and its list stay together under the section.
    assert by[("Streams",)].endswith("one owner at a time.")
    section = ("Streams", "new stream.Duplex(options)")
    assert by[(*section, "allowHalfOpen")].endswith("Default: true.")
    assert by[(*section, "highWaterMark")].endswith("Default: 16384.")
    code = next(piece for piece, _, kind in found if kind == "code")
    assert code.startswith("```js") and code.endswith("```") and "blank line" in code
    assert by[(*section, "Option | Default")].splitlines()[-2:] == ["| level  | 6       |",
                                                                    "| quiet  | off     |"]


def test_html_text_with_marked_headings_reads_as_markdown():
    text = "# Stream\nIntro.\n## Buffering#\nThe highWaterMark option is a threshold."
    assert _passages(text)[-1][:2] == ("## Buffering#\nThe highWaterMark option is a threshold.",
                                       ("Stream", "Buffering"))


def test_a_block_longer_than_a_passage_is_cut_at_sentences_under_its_heading():
    text = "# Long\n" + " ".join(f"Sentence number {n} is here." for n in range(40))
    found = _passages(text, max_chars=120)
    assert len(found) > 5 and {heading for _, heading, _ in found} == {("Long",)}
    assert all(len(piece) <= 120 for piece, _, _ in found)


def test_outline_blocks_are_whole_lines_in_order():
    blocks = outline(GREP, markdown=False, root="grep(1)")
    assert all(a.end <= b.start for a, b in itertools.pairwise(blocks))
    for b in blocks:
        assert GREP[b.start:b.end] == GREP[b.start:b.end].strip()


_lines = st.lists(
    st.sampled_from(["NAME", "OPTIONS", "   Sub", "       -v, --x", "              Desc line.",
                     "# H", "## H2", "- item", "  - nested <number> x", "```", "| a | b |",
                     "|---|---|", "---", "+++", "title: T", "", "   ", "plain text.", "\t-x  y",
                     "Under", "=====", "word " * 15, "GREP(1)  x  GREP(1)"]),
    max_size=60,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(_lines, st.integers(min_value=1, max_value=200), st.lists(st.integers(0, 600), max_size=3))
def test_structured_passages_are_exact_ordered_and_cover_the_text(text, max_chars, breaks):
    passages = passage_spans(text, max_chars=max_chars, breaks=breaks)
    for p in passages:
        assert 0 <= p.start < p.end <= len(text)
        piece = text[p.start:p.end]
        assert piece == piece.strip()
    assert all(a.end <= b.start for a, b in itertools.pairwise(passages))
    covered = "".join(text[p.start:p.end] for p in passages)
    assert sum(not c.isspace() for c in covered) == sum(not c.isspace() for c in text)
    for b in breaks:
        assert not any(p.start < b < p.end for p in passages)


def test_pathological_structure_stays_linear():
    # Blank runs inside a list item and a fence never closed: one pass each.
    text = "- item\n" + "\n" * 200_000 + "  more\n```\n" + "x\n" * 100_000
    passages = passage_spans(text, max_chars=500)
    assert passages[0].heading == () and text[passages[-1].start:passages[-1].end].endswith("x")


def test_option_lines_of_extracted_definition_lists_are_terms():
    # What extraction makes of a DocBook <dl> of options under a marked heading.
    text = ("## 2.7.2. Basic Options\n-q, --quiet\nRun silently, and only print error messages.\n"
            "--trace-children=<yes|no> [default: no]\n\nWhen enabled, Valgrind will trace into\n"
            "      sub-processes.\n\nNote that it does trace into the child of a fork.")
    found = {heading: (piece, kind) for piece, heading, kind in _passages(text)}
    section = ("2.7.2. Basic Options",)
    assert found[(*section, "-q, --quiet")] == (
        "## 2.7.2. Basic Options\n-q, --quiet\nRun silently, and only print error messages.", "term")
    trace = found[(*section, "--trace-children=<yes|no> [default: no]")][0]
    assert trace.endswith("sub-processes.") and "Note that" in found[section][0]


def test_a_bare_signature_item_stays_with_its_siblings():
    text = ("## fs.read(fd, buffer, offset)#\n- fd <integer>\n- buffer <Buffer> | <TypedArray>\n"
            "- offset <integer> The position in buffer to write the data to. Default: 0.")
    found = {heading: piece for piece, heading, _ in _passages(text)}
    section = ("fs.read(fd, buffer, offset)",)
    assert found[section].endswith("| <TypedArray>") and "- fd <integer>" in found[section]
    assert found[(*section, "offset")].endswith("Default: 0.")
