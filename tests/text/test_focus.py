"""What a question is about and what frames a sentence (text/focus.py, ADR 0022)."""

from __future__ import annotations

import pytest

from tether.text.focus import (
    as_read,
    frame,
    is_field,
    is_fragment,
    is_usage,
    mentions,
    read_focus,
    states_value,
    term_like,
    term_of,
    unit_default,
    unit_term,
)


@pytest.mark.parametrize(
    ("question", "options", "identifiers", "subjects", "scopes"),
    [
        ("What does the -v option of grep do?", ("-v",), (), ("grep",), ()),
        ("What does tar -z do?", ("-z",), (), ("tar",), ()),
        ("What does Valgrind's --trace-children option do?", ("--trace-children",), (),
         ("Valgrind",), ()),
        ("What is the default value of --num-callers in Valgrind?", ("--num-callers",), (), (),
         ("Valgrind",)),
        ("What is the default highWaterMark of a Node.js writable stream?", (),
         ("highWaterMark",), ("Node.js",), ()),
        ("What is the default maxBuffer of child_process.exec?", (), ("maxBuffer",),
         ("child_process.exec",), ()),
        ("What is the default compression level of bzip2?", (), (), ("bzip2",), ()),
        ("What are the ownership rules in Rust?", (), (), (), ("Rust",)),
        # A name of several capitalised words is one subject, not its first word.
        ("What is the budget of Project Kestrel?", (), (), ("Project Kestrel",), ()),
        ("What colour is the yard gate of the Harlow Bend site painted?", (), (),
         ("Harlow Bend",), ()),
        ("What is the default keepAliveTimeout of a Node.js HTTP server?", (),
         ("keepAliveTimeout",), ("Node.js",), ()),
        ("How many non-matching lines are there?", (), (), (), ()),  # a word, not -matching
    ],
)
def test_read_focus(question, options, identifiers, subjects, scopes):
    focus = read_focus(question)
    assert (focus.options, focus.identifiers, focus.subjects, focus.scopes) == (
        options, identifiers, subjects, scopes)


@pytest.mark.parametrize(
    ("text", "item", "named"),
    [
        ("-v, --invert-match", "-v", True),
        ("-vv", "-v", False),
        ("--verbose", "-v", False),
        ("GREP(1)", "grep", True),
        ("GIT-GREP(1)", "grep", False),
        ("grep.patternType", "grep", False),
        ("server.keepAliveTimeout#", "keepAliveTimeout", True),
        ("keepalivetimeout", "keepAliveTimeout", False),  # identifiers are case-sensitive
        ("The Normans had", "Norman", True),  # a name in another form
        ("zip - package and compress (archive) files", "bzip2", False),
    ],
)
def test_mentions(text, item, named):
    assert mentions(text, item) is named


MAN = (
    "OPTIONS\n"
    "   Matching Control\n"
    "       -e PATTERNS, --regexp=PATTERNS\n"
    "              Use PATTERNS as the patterns.\n"
    "\n"
    "       -v, --invert-match\n"
    "              Invert the sense of matching, to select\n"
    "              non-matching lines.\n"
)
NODE = (
    "new stream.Writable([options])#\n"
    "- options <Object>\n"
    "  - highWaterMark <number> Buffer level. Default: 16384 (16 KiB).\n"
    "  - allowHalfOpen <boolean> Whether to end. Default: false.\n"
)
FLAT = "-v, --verbose\nBe more verbose.\n--trace-children=<yes|no> [default: no]\nWhen enabled, trace."
ROWS = (
    "## Kiln options\n"
    "| --vent secs | Seconds the kiln vents for. The current default is 30. |\n"
    "| --glaze name |  |\n"
    "|  | The glaze fired on. |\n"
    "| Default: | clear |\n"
)


@pytest.mark.parametrize(
    ("text", "at", "expected"),
    [
        (MAN, "Invert", ("OPTIONS", "Matching Control", "-v, --invert-match")),
        (MAN, "Use PATTERNS", ("OPTIONS", "Matching Control", "-e PATTERNS, --regexp=PATTERNS")),
        (NODE, "Default: 16384", ("new stream.Writable([options])", "options <Object>",
                                  "highWaterMark <number>")),
        (NODE, "Default: false", ("new stream.Writable([options])", "options <Object>",
                                  "allowHalfOpen <boolean>")),
        (FLAT, "When enabled", ("--trace-children=<yes|no> [default: no]",)),
        (FLAT, "Be more", ("-v, --verbose",)),
        # A table row is framed by its first cell: its term, or the term of the row
        # over a row whose first cell is empty; a field's label is no term.
        (ROWS, "The current default", ("Kiln options", "--vent secs")),
        (ROWS, "The glaze fired", ("Kiln options", "--glaze name")),
        (ROWS, "clear", ("Kiln options",)),
        ("| Option | Use |\n|---|---|\n|  | Vents the kiln. |", "Vents", ()),  # under the head's rule
        # The splitter may start a row's sentence at the bar closing the row before.
        (ROWS, "|\n| --glaze", ("Kiln options", "--glaze name")),
        # A passage that opens mid-unit knows nothing over its first line.
        ("Example:\n   curl -s x\n\n-s, --silent\n   Silent mode.", "Silent", ("-s, --silent",)),
        # A sibling option on the passage's first line is not the parent of the next.
        (("-v, --invert-match\n              Invert.\n\n       -w, --word-regexp\n"
          "              Whole words."), "Whole", ("-w, --word-regexp",)),
    ],
)
def test_frame(text, at, expected):
    assert frame(text, text.index(at)) == expected


@pytest.mark.parametrize(
    ("line", "term"),
    [
        ("       -v, --invert-match", True),
        ("-T threads, --threads=threads", True),
        ("--num-callers=<number> [default: 12]", True),
        ("-0 ... -9", True),
        ("--trace-children=yes, but confusion is still", False),  # prose, wrapped
        ("--silent does.", False),
        ("- highWaterMark <number> Buffer level", True),
        ("Invert the sense of matching", False),
    ],
)
def test_term_like(line, term):
    assert term_like(line) is term


def test_term_of_names_the_unit():
    assert term_of("-i     Ignore case") == "-i"
    assert term_of("  - highWaterMark <number> Buffer level when …") == "highWaterMark <number>"
    assert term_of("- keepAliveTimeout: The number of milliseconds of inactivity a server") == (
        "keepAliveTimeout")


@pytest.mark.parametrize(
    ("sentence", "framing", "usage"),
    [
        ("grep [OPTION...] PATTERNS [FILE...]", (), True),
        ("tar {A|c|d|r|t|u|x}[GnSkUWOmpsMBiajJzZhPlRvwo] [ARG...]", (), True),
        ("mkdir [OPTION]... DIRECTORY...", (), True),
        ("curl [options / URLs]", (), True),
        ("grep -E PATTERNS", ("grep(1)", "SYNOPSIS"), True),  # a line of the SYNOPSIS
        ("Invert the sense of matching [see -w].", (), False),
        ("The [default] value is 5.", (), False),
    ],
)
def test_is_usage(sentence, framing, usage):
    assert is_usage(sentence, framing) is usage


@pytest.mark.parametrize(
    ("sentence", "fragment"),
    [
        ("GREP(1) User Commands GREP(1)", True),
        ("-v, --invert-match", True),
        ("const grep = spawn('grep', ['ssh']);", True),
        ("curl --show-error --silent https://example.com", True),
        ("Compression preset levels", True),
        ("[Main issue tracker](https://gitlab.com/gnutls/libtasn1/issues)", True),
        ("--error-exitcode option.", True),
        ("When bzip2 compression is se‐", True),
        ("print the newline counts", False),
        ("--num-callers=<number> [default: 12]", False),
        ("Default: 16384 (16 KiB), or 16 for objectMode streams.", False),
        ("Boiling point: 64.7 °C", False),
        ("In 1066, William invaded England.", False),
    ],
)
def test_is_fragment(sentence, fragment):
    assert is_fragment(sentence) is fragment


@pytest.mark.parametrize(
    ("text", "sentence", "term"),
    [
        ("       -v, --invert-match\n              Invert the sense of matching.", "Invert", "-v, --invert-match"),
        ("Intro.\n### gc.auto\nWhen there are more loose objects, gc packs them.", "When", "### gc.auto"),
        ("Intro.\n### kiln_vent (default: closed)\nWhether the vent opens.", "Whether", "### kiln_vent (default: closed)"),
        ("Intro.\n## Installing the tools\nRun the installer.", "Run", None),  # a section, not a term
        ("### gc.auto\nWhen there are many. Then it packs.", "Then", None),  # not the unit's first line
        ("Opening line.", "Opening", None),
    ],
)
def test_unit_term_is_the_line_a_description_stands_under(text, sentence, term):
    span = unit_term(text, text.find(sentence))
    assert (text[span[0]:span[1]] if span else None) == term


_KILN = ("       -t, --vent-time SECONDS\n              Number of seconds the kiln vents for. It counts\n"
         "              from ignition. The default is 30.\n       -q, --quiet\n              Say nothing. "
         "The default is to report each firing.")


@pytest.mark.parametrize(
    ("text", "sentence", "default"),
    [
        (_KILN, "Number of seconds the kiln vents for.", "The default is 30."),  # two on, one unit
        (_KILN, "It counts\n              from ignition.", "The default is 30."),
        (_KILN, "Say nothing.", "The default is to report each firing."),
        ("- vent_time\n  Number of seconds it vents.\n- glaze\n  Defaults to clear.",
         "Number of seconds it vents.", None),  # the next unit's
        ("Number of seconds the kiln vents for (default 30).",
         "Number of seconds the kiln vents for (default 30).", None),  # it states its own
        ("### vent_time\nNumber of seconds it vents.\n### glaze\nDefaults to clear.",
         "Number of seconds it vents.", None),
        ("One. Two. Three. Four. Five. Six. Seven. Defaults to nine.", "One.", None),  # too far on
        ("Whether the vent opens.\n| glaze | Type: string | Default: clear |", "Whether the vent opens.",
         None),  # the next option's row
        ("| --vent | Seconds it vents. The default is 30. |\n| --glaze | Clear by default. |",
         "Seconds it vents.", "The default is 30."),  # in its own row, not the next one's
        ("| Syntax: | KilnVent on\\|off |\n| Default: | KilnVent off |", "| Syntax: | KilnVent on\\|off |",
         "| Default: | KilnVent off |"),  # a field row of the same table
        ("| Syntax: | KilnVent level ... |\n| Default: | KilnVent off |", "| Syntax: | KilnVent level ...",
         "| Default: | KilnVent off |"),  # the row's closing bar cut off on its own
    ],
)
def test_unit_default_is_the_default_a_description_leaves_to_a_later_sentence(text, sentence, default):
    at = text.find(sentence)
    span = unit_default(text, at, at + len(sentence))
    assert (text[span[0]:span[1]] if span else None) == default


def test_unbound_names_what_no_frame_or_title_binds():
    focus = read_focus("What is the default highWaterMark of a Node.js writable stream?")
    assert focus.unbound("Default: 16384.", ("highWaterMark <number>",), "Stream | Node.js") == []
    assert focus.unbound("Default: false.", ("allowHalfOpen <boolean>",), "Stream | Node.js") == [
        "highWaterMark"]
    assert focus.unbound("Default: 16384.", ("highWaterMark <number>",), "Python") == ["Node.js"]


@pytest.mark.parametrize(
    ("question", "named"),
    [
        # a lower-case word after "of"/"for" is as often a common noun as a name
        ("How hot does the kiln get, out of the box?", ()),
        ("How do I warm the kiln for outgoing orders?", ()),
        ("What's Kestrel's default limit on open files?", ("Kestrel",)),
        ("What's the default font size in Norvale?", ("Norvale",)),
        ("What's the kilnd daemon's default firing_timeout?", ("firing_timeout",)),
        ("What does the -v option of grep do?", ("-v",)),
    ],
)
def test_named_keeps_what_the_question_writes_as_a_name(question, named):
    assert read_focus(question).named == named


def test_unnamed_binds_identifiers_by_the_title_too():
    focus = read_focus("Which glazes does mod_kiln allow if GlazeList is unset?")
    assert focus.named == ("mod_kiln",)
    row = "| Default: | GlazeList celadon |"
    assert focus.unnamed(row, ("GlazeList Directive",), "mod_kiln - Studio Manual") == []
    assert focus.unnamed(row, ("GlazeList Directive",), "mod_wheel - Studio Manual") == ["mod_kiln"]
    # a subject spelt in lower case is not demanded ("box" in "out of the box")
    assert read_focus("How hot does the kiln get, out of the box?").unnamed("It reaches 1,300 °C.") == []


@pytest.mark.parametrize(
    ("question", "sentence", "defining"),
    [
        ("What is Memcheck?", "Memcheck is a memory error detector.", True),
        ("What is libtasn1?", "This is GNU Libtasn1, a small ASN.1 library.", True),
        ("What does pinning a package version mean in pip?",
         "Pinning refers to using the `==` operator.", True),
        ("What is Memcheck?", "Without the memcheck: prefix it is ignored.", False),
        ("What does tar -z do?", "tar is an archiver.", False),  # not a definition question
    ],
)
def test_defines(question, sentence, defining):
    from tether.text.focus import defines

    assert defines(question, sentence) is defining


@pytest.mark.parametrize("row, statement", [
    ("| Default: | KeepAliveTimeout 5 |", True),  # a field and its value
    ("| %D | The time taken to serve the request, in microseconds. |", True),
    ("|---|---|", False),  # the header rule
    ("| Status: |  |", False),  # a label without a value
])
def test_a_table_row_is_read_as_its_cells(row: str, statement: bool) -> None:
    assert is_fragment(row) is not statement
    assert not as_read(row).startswith("|") and not as_read(row).endswith("|")


@pytest.mark.parametrize("heading, value", [
    ("### mailbox_size_limit (default: 51200000)", True),
    ("### queue_run_delay (default: 300 seconds; before Postfix 2.4: 1000s)", True),
    ("### Example: greylist policy server", False),  # a title, not a value
    ("## Buffering", False),
])
def test_a_heading_states_its_terms_value(heading: str, value: bool) -> None:
    assert states_value(heading) is value
    assert not as_read(heading).startswith("#")


@pytest.mark.parametrize("line, field", [
    ("Default: 128", True),  # under an option's term: short, but a statement
    ("  Default: bind to all interfaces", True),
    ("See also", False),
    ("Why: ", False),
])
def test_a_field_stating_its_value_is_a_statement(line: str, field: bool) -> None:
    assert is_field(line) is field


TABLE = ("Intro.\n\n| Key | Function | Description |\n|---|---|---|\n"
         "| ^D | <delete-thread> | delete all messages in the thread |\n| T | toggle quoted text |\n\nAfter.")


@pytest.mark.parametrize("at, heads", [
    ("^D", "Key Function Description"),  # a body row: its table's head, as read
    ("T |", "Key Function Description"),
    ("| Key", ""),  # the head row itself
    ("|---", ""),  # the rule under it
    ("After", ""),  # prose after the table
    ("Intro", ""),
])
def test_a_body_row_reads_under_its_column_heads(at: str, heads: str) -> None:
    from tether.text.focus import column_heads

    assert column_heads(TABLE, TABLE.index(at)) == heads


def test_a_table_without_a_head_rule_has_no_column_heads() -> None:
    from tether.text.focus import column_heads

    text = "| Default: | 5 |\n| Context: | server |"
    assert column_heads(text, text.index("Context")) == ""
