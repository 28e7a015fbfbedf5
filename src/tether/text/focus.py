"""What a question is about, and what binds a sentence to it (ADR 0022).

A question about documentation names its focus exactly: an option (``-v``,
``--xz``, ``--num-callers``), an identifier (``highWaterMark``, ``path.join``,
``child_process.exec``) and the subject they belong to (``grep``, ``bzip2``,
``Valgrind``). A sentence answers only when that focus is bound to it — by the
sentence itself, by the *frame* it stands in (the term line of its option block or
list item, the heading lines over it in its passage, its passage's heading path),
or, for a subject, by its document's title. "Default: false." under
``allowHalfOpen`` is not about ``highWaterMark``; zip's "The default compression
level is -6." is not about bzip2.

Both the extractive generator (to choose) and the answer check (to refuse) read
questions and frames with this module, as they cut sentences with ``sentences``:
the same text is always read the same way; what each stage decides from it is its own.

    >>> f = read_focus("What does the -v option of grep do?")
    >>> f.options, f.subjects
    (('-v',), ('grep',))
    >>> frame("       -v, --invert-match\\n              Invert the sense of matching.", 40)
    ('-v, --invert-match',)
    >>> f.unbound("Invert the sense of matching.", ("-v, --invert-match",), "GREP(1)")
    []
    >>> f.unbound("Invert the sense of matching.", ("-v, --invert-match",), "GIT-GREP(1)")
    ['grep']
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

from .english import THING_DETERMINERS, USAGE_HEADINGS
from .sentences import sentence_spans
from .terms import QUERY_STOPWORDS, STOPWORDS, stem

__all__ = [
    "GENERIC", "Focus", "as_read", "column_heads", "defined", "defines", "frame", "heading_like", "is_field", "is_fragment", "is_usage", "mentions", "read_focus", "states_value",
    "term_like", "term_of", "unit_default", "unit_term",
]

# An option as a command line writes it: one or two dashes, then a letter ("-0" is a
# number, "non-matching" a word: the dash must not follow a word character).
_OPTION = re.compile(r"(?<![\w.-])(--?[A-Za-z][\w-]*)")
# An identifier: camelCase, snake_case or dotted (path.join, child_process.exec),
# with an optional call's parentheses, which are left out.
_IDENT = re.compile(
    r"(?<![\w.-])((?:[A-Za-z_$][\w$]*\.)*[a-z_$][\w$]*[A-Z][\w$]*"
    r"|[A-Za-z][\w$]*(?:[._][A-Za-z][\w$]*)+)(?:\(\))?"
)
_WORD = re.compile(r"[A-Za-z][\w+.-]*[\w+]|[A-Za-z]")
# Words that name the thing asked about in general, never a subject of its own.
GENERIC = frozenset((
    "option", "options", "flag", "flags", "command", "commands", "program", "tool",
    "default", "value", "values", "setting", "settings", "argument", "arguments",
    "parameter", "parameters", "mode", "method", "function", "module", "class", "type",
    "version", "file", "files", "level", "size", "rules", "rule", "way", "name",
))
_NOT_SUBJECT = QUERY_STOPWORDS | GENERIC | frozenset(("does", "do", "did", "is", "are"))
_TITLE_WORD = re.compile(r"[A-Z][a-z]+")
_PRODUCT = re.compile(r"[A-Z][\w]*\.[a-z]{1,4}")
_POSSESSIVE = re.compile(r"\b([A-Za-z][\w.+-]*[\w+])['’]s\b")


@dataclass(frozen=True, slots=True)
class Focus:
    """The exact things a question asks about, as it writes them."""

    options: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    # Names the question is asked within ("in Rust", "in Norvale warehouses"): bound
    # like a subject, but never a page of their own to look the answer up in.
    scopes: tuple[str, ...] = ()
    # The lower-case subjects that complete a noun and end their phrase ("the limit for
    # *xylene*?"; not "out of the *box*", "for *outgoing* SMTP connections"): what the
    # question is about when no name says so (ADR 0079).
    complements: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.options or self.identifiers or self.subjects or self.scopes)

    @property
    def exact(self) -> tuple[str, ...]:
        """Options and identifiers: what a unit's term names."""
        return self.options + self.identifiers

    def names(self, sentence: str, framing: Sequence[str] = ()) -> bool:
        """Whether the sentence or its frame names every option and identifier asked
        about (and there is at least one)."""
        near = [sentence, *framing]
        return bool(self.exact) and all(any(mentions(t, i) for t in near) for i in self.exact)

    @property
    def named(self) -> tuple[str, ...]:
        """What the question names as it writes it: its options and identifiers, and
        the subjects and scopes spelt with a capital ("Kestrel's", "in Norvale"). A
        lower-case word after "of"/"for" is as often a common noun ("a line of text",
        "for new orders") as a name (ADR 0070)."""
        return self.exact + tuple(
            s for s in (*self.subjects, *self.scopes) if any(c.isupper() for c in s))

    def unnamed(self, sentence: str, framing: Sequence[str] = (), title: str = "") -> list[str]:
        """The ``named`` items bound to ``sentence`` by nothing: not by the sentence,
        its frame, nor its document's title (a module's page binds its directives)."""
        near = (sentence, *framing, title)
        return [item for item in self.named if not any(mentions(t, item) for t in near)]

    def unbound(self, sentence: str, framing: Sequence[str] = (), title: str = "") -> list[str]:
        """The focus items nothing binds to ``sentence``: neither the sentence, nor
        its frame (term line, headings), nor — for a subject — its document's title."""
        near = [sentence, *framing]
        missing = [item for item in self.exact if not any(mentions(t, item) for t in near)]
        missing += [s for s in (*self.subjects, *self.scopes)
                    if not any(mentions(t, s) for t in (*near, title))]
        return missing


@lru_cache(maxsize=1024)
def read_focus(question: str) -> Focus:
    """The options, identifiers and named subjects of ``question``.

    A subject is the word a property or option belongs to: after "of"/"for"/"in"
    ("the -v option *of grep*", "rules *in Rust*"), before an option ("*tar* -z"),
    or a possessive ("*Valgrind's* --trace-children").
    """
    options = tuple(dict.fromkeys(m.group(1) for m in _OPTION.finditer(question)))
    found = [m.group(1) for m in _IDENT.finditer(question) if not _OPTION.fullmatch(m.group(1))]
    # "Node.js" is a product's name, not an API's: a subject (a title may bind it).
    names = [i for i in found if _PRODUCT.fullmatch(i)]
    # Of two identifiers, the one a property belongs to ("the default maxBuffer *of
    # child_process.exec*") is its subject: it may stand in a heading or the title.
    owned = {i for i in found if len(found) > 1 and re.search(
        r"\b(?:of|for|in)\s+(?:the\s+|an?\s+)?" + re.escape(i), question)}
    idents = tuple(dict.fromkeys(i for i in found if i not in names and i not in owned))
    owners, scopes, complements = _subjects(question, options, idents)
    subjects = tuple(dict.fromkeys([*names, *(i for i in found if i in owned), *owners]))
    return Focus(options, idents, subjects, tuple(s for s in scopes if s not in subjects),
                 complements)


def _subjects(
    question: str, options: tuple[str, ...], idents: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(subjects, scopes, complements) of ``question``."""
    words = [(m.group(0), m.start()) for m in _WORD.finditer(question)]
    found: list[str] = []
    scopes: list[str] = []
    complements: list[str] = []
    taken = set(options) | set(idents)

    def add(word: str, into: list[str] = found) -> None:
        if word.lower() not in _NOT_SUBJECT and word not in taken and len(word) > 1:
            into.append(word)

    for i, (word, start) in enumerate(words):
        if question[start - 1 : start] == "-":  # a part of an option ("--num-callers")
            continue
        j = i - 1
        if j >= 0 and words[j][0].lower() in THING_DETERMINERS:
            j -= 1
        owner = words[j][0].lower() if j >= 0 else ""
        # "in" qualifies as often as it owns ("in the final report"): only a name after it.
        if owner in ("of", "for"):
            add(_name_from(question, words, i))
            if _completes_noun(question, words, i, j):
                add(word, complements)
        elif owner == "in" and word[0].isupper():
            add(word, scopes)
    for option in options:
        at = question.find(option)
        before = [w for w, start in words if start + len(w) <= at]
        if before and question[at - 1 : at] == " ":
            add(before[-1])
    for m in _POSSESSIVE.finditer(question):
        add(m.group(1))
    return tuple(dict.fromkeys(found)), tuple(dict.fromkeys(scopes)), tuple(dict.fromkeys(complements))


def _completes_noun(question: str, words: list[tuple[str, int]], i: int, owner: int) -> bool:
    """Whether the lower-case word at ``i``, after the preposition at ``owner``, completes
    a noun and ends its phrase: a content word stands just before the preposition ("the
    limit *for* xylene", not "out *of* the box") and no content word follows it ("for
    outgoing SMTP connections" goes on to its noun)."""
    word, start = words[i]
    if owner < 1 or not (word.isalpha() and word.islower()):
        return False
    governor, at = words[owner - 1]
    between = question[at + len(governor):start]
    if governor.lower() in STOPWORDS or between.split() != [w for w, _ in words[owner:i]] \
            or not between[:1].isspace() or not between[-1:].isspace():
        return False
    following = _FOLLOWING.match(question, start + len(word))
    return following is not None and following.group(1).lower() in STOPWORDS | {""}


# The word after a subject, past any punctuation ("xylene? What …", "xylene, and …").
_FOLLOWING = re.compile(r"\b\W*([\w'’-]{0,40})")


def _name_from(question: str, words: list[tuple[str, int]], i: int) -> str:
    """The word at ``i``, or the whole name it opens: capitalised words joined by single
    spaces ("the budget of *Project Kestrel*" is not about any project). Acronyms and
    product names are names of their own ("a Node.js HTTP server" is Node.js's)."""
    word, start = words[i]
    end = start + len(word)
    if not _TITLE_WORD.fullmatch(word):
        return word
    for nxt, at in words[i + 1 :]:
        if at != end + 1 or question[end] != " " or not _TITLE_WORD.fullmatch(nxt):
            break
        end = at + len(nxt)
    return question[start:end]


def mentions(text: str, item: str) -> bool:
    """Whether ``text`` names ``item`` as a whole token: ``-v`` in "-v, --invert-match"
    but not in "-vv"; ``grep`` in "GREP(1)" but not in "GIT-GREP(1)" or "grep.patternType";
    an identifier case-sensitively, anything else case-insensitively."""
    if not item:
        return False
    exact = bool(_OPTION.fullmatch(item) or _IDENT.fullmatch(item))
    if _token_pattern(item, exact).search(text) is not None:
        return True
    # A name is named in any of its forms ("Normans" for "Norman's", "words" for "word").
    return not exact and item.isalpha() and stem(item) in _stems_of(text)


@lru_cache(maxsize=4096)
def _stems_of(text: str) -> frozenset[str]:
    # Whole tokens: "GIT-GREP" or "grep.patternType" is no form of "grep".
    return frozenset(stem(w) for w in re.findall(r"[\w.-]*[^\W_]", text) if w.isalpha())


@lru_cache(maxsize=1024)
def _token_pattern(item: str, exact: bool) -> re.Pattern[str]:
    # An API member stands after its object ("server.keepAliveTimeout"); a program's
    # name never stands after a dot or a dash ("git-grep" is not grep).
    if exact:
        return re.compile(r"(?<![\w-])" + re.escape(item) + r"(?![\w-]|\.\w)")
    return re.compile(r"(?<![\w.-])" + re.escape(item) + r"(?![\w-]|\.\w)", re.IGNORECASE)


# -- frames: what a sentence stands under inside its passage -------------------

_TERM_LINE = re.compile(r"--?[A-Za-z]|[-*+•]\s|\d{1,3}[.)]\s")
_CLOSING = (".", "!", "?", ":", ";", ",")
_SHORT = 72


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def heading_like(line: str) -> bool:
    """A line that names what follows it: a Markdown heading, a Node-style
    permalinked heading (``server.keepAliveTimeout#``), or a short line without a
    sentence's closing punctuation."""
    s = line.strip()
    if not s:
        return False
    if s.startswith("#") or s.endswith("#"):
        return True
    return len(s) <= _SHORT and not s.endswith(_CLOSING) and not s[0].islower()


# An option line: options with their arguments ("-T threads, --threads=threads",
# "-k --keep", "--num-callers=<number> [default: 12]"), or a hanging tag (the option,
# two spaces, its description). "--trace-children=yes, but confusion is still" is
# a wrapped line of prose that happens to start with an option.
_ARG = r"(?:[= ](?:<[^>]*>|\[[^\]]*\]|[A-Za-z_][\w.-]*|\S+))?"
_TAG = re.compile(
    r"--?[A-Za-z][\w-]*" + _ARG + r"(?:,?\s+--?[A-Za-z][\w-]*" + _ARG + r")*"
    r"(?:\s+\[[^\]]*\])?(?:\s*$|\s{2,}\S)"
)


_LEVELS = re.compile(r"-\d+(?:\s*(?:\.\.\.?|…|to|,)\s*-\d+)?(?:\s|$)")  # "-0 ... -9"


def term_like(line: str) -> bool:
    """A line that opens a unit: an option line or a list item's first line."""
    s = line.strip()
    if _OPTION.match(s):
        tagged = bool(_TAG.match(s)) and (not s.endswith(".") or "  " in s)
        return len(s) <= _SHORT * 2 and tagged
    return bool(_TERM_LINE.match(s) or _LEVELS.match(s))


def frame(text: str, at: int) -> tuple[str, ...]:
    """The lines over position ``at`` of ``text``, outermost first: the term line of the
    option block or list item it belongs to, and the lines it is indented under or
    headed by. A blank line ends a run of lines at one indent (a new paragraph), not
    the climb to a line indented less (man pages put blank lines inside sections).
    """
    # The splitter may start a row's sentence at the bar closing the row before.
    head = text[at:at + 200]
    at += len(head) - len(head.lstrip("| \t\n"))
    lines_start = text.rfind("\n", 0, at) + 1
    own = text[lines_start : text.find("\n", at) if text.find("\n", at) >= 0 else len(text)]
    row = _row_term(text, lines_start)
    if row is not None:
        own = ""  # a row is its own unit: what frames it is over its table
    out: list[str] = [row] if row else []
    # A list item's siblings stand at its own indent: only what is indented less
    # frames it. A description set flush under its term (HTML <dt>/<dd> flattened)
    # is framed by the nearest term line above it, in the same paragraph.
    same = not term_like(own)
    if not same:
        out.append(term_of(own))
    level, blank = _indent(own), False
    # A passage opens at its first character, not its first line's margin: the
    # indent of its first line is unknown. A term line there is taken at the indent
    # of the term lines below it (its siblings), never as their parent.
    sibling = level if term_like(own) else None
    end = lines_start - 1
    while end >= 0:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        end = start - 1
        if not line.strip():
            blank = True
            continue
        indent = _indent(line)
        if term_like(line):
            if start == 0 and sibling is not None:
                indent = sibling
            sibling = indent if sibling is None else min(sibling, indent)
        elif start == 0 and not heading_like(line):
            break  # the passage opens mid-unit ("Example:"): nothing over it is known
        # At one indent only a marked heading ("## …", "server.timeout#") frames: a
        # short plain line there is more often a wrapped line of the same paragraph.
        # A marked heading frames list items too, and ends the climb at the margin.
        marked = line.strip().startswith("#") or line.rstrip().endswith("#")
        if marked and indent <= level:
            out.append(line.strip().strip("#").strip())
            if indent == 0:
                break
            level = indent
        elif indent < level or (same and indent == level and not blank and term_like(line)):
            out.append(term_of(line) if term_like(line) else line.strip())
            level, same = min(level, indent), False
            if level == 0 and heading_like(line) and not term_like(line):
                break
    return tuple(reversed(out))


def _row_term(text: str, line_start: int) -> str | None:
    """The term a table row describes, when the line at ``line_start`` is a row: its
    first cell ("| --port port | The current default of 1194 … |"), or the first cell
    of the nearest row above when its own is empty (a description set in the row
    under its term's; ADR 0073). None when the line is no row; "" when its first cell names a
    field ("| Default: | 5 |"), not a term, or nothing above it names one."""
    rows = _rows_upward(text, line_start)
    own = next(rows, None)
    if own is None:
        return None
    for line in chain((own,), rows):  # read lazily: the own row most often decides
        first = _CELL_BAR.split(line[1:-1], 1)[0].strip()
        if first:  # a field's label, or the rule under a table's head ("|---|"), is no term
            return "" if first.endswith(":") or len(first) > _SHORT or not first.strip("-: ") else first
    return ""


def _rows_upward(text: str, line_start: int) -> Iterator[str]:
    """The table rows from the line at ``line_start`` upward, stripped, until a line
    that is no row (none when that line is no row)."""
    while True:
        end = text.find("\n", line_start)
        line = text[line_start : end if end >= 0 else len(text)].strip()
        if not _ROW.fullmatch(line):
            return
        yield line
        if line_start == 0:
            return
        line_start = text.rfind("\n", 0, line_start - 1) + 1


def column_heads(text: str, at: int) -> str:
    """The head row of the table whose body row holds position ``at``, read as its cells
    ("Key Function Description"); "" when ``at`` is in no table body."""
    rows = _rows_upward(text, text.rfind("\n", 0, at) + 1)
    next(rows, None)  # ``at``'s own row: a head is the row just over a rule ("|---|") above it
    after_rule = False
    for line in rows:
        if after_rule:
            return as_read(line)
        after_rule = not line.strip("|-: \t")
    return ""


# A heading that is a term's own line: its name, maybe its value in brackets
# ("### kiln_vent (default: closed)"), not a section's title.
_TERM_HEADING = re.compile(r"#{1,6}[ \t]+[\w$.'-]+(?:[ \t]+\([^)\n]*\))?[ \t]*#*")


def unit_term(text: str, at: int) -> tuple[int, int] | None:
    """The span of the term line directly over a unit's first line, when the sentence
    at ``at`` opens that line: an option line, a list item, a term's heading. A
    description shown without it ("Whether the vent opens during firing.") does not
    say what it describes."""
    line_start = text.rfind("\n", 0, at) + 1
    if text[line_start:at].strip() or line_start == 0:
        return None
    end = line_start - 1
    start = text.rfind("\n", 0, end) + 1
    line = text[start:end]
    s = line.strip()
    if not s or len(s) > _SHORT * 2 or not (
        (term_like(line) and _indent(line) < _indent(text[line_start:at + 1]))
        or _TERM_HEADING.fullmatch(s)
    ):
        return None
    lead = start + _indent(line)
    return lead, lead + len(s)


# A sentence stating a default ("The default is 100.", "Defaults to 1800 seconds.",
# "Default: 128").
_STATES_DEFAULT = re.compile(r"\bdefault(?:s|ed)?\b", re.IGNORECASE)
# How far after a description its unit's default is looked for, in sentences.
_DEFAULT_REACH = 6


def unit_default(text: str, at: int, end: int) -> tuple[int, int] | None:
    """The span of the sentence that states the default of the unit the sentence at
    ``at``–``end`` describes, when that sentence does not: one of the next few in the
    same unit (under the same term line and headings, ``frame``; a table row naming
    another term starts another). A description shown without its default ("Number
    of seconds the kiln vents for.") leaves out what a reader of a setting looks for
    next ("The default is 30.")."""
    if _STATES_DEFAULT.search(text, at, end):
        return None
    unit = frame(text, at)
    later = [s for s in sentence_spans(text) if s.start >= end][:_DEFAULT_REACH]
    for span in later:
        sentence = text[span.start:span.end]
        if not any(c.isalnum() for c in sentence):
            continue  # a row's closing bar cut off on its own
        # A row naming a term is the next unit ("| hosts_try | Default: * |"); a row
        # naming a field is one more of this unit's ("| Default: | Timeout 5 |"). (The
        # splitter may start a row's sentence at the bar closing the row before.)
        if frame(text, span.start) != unit or (
                sentence.startswith("|") and not is_field(sentence.lstrip("|\n \t"))):
            return None
        if _STATES_DEFAULT.search(sentence):
            return span.start, span.end
    return None


def term_of(line: str) -> str:
    """The term a unit's first line names: a man-page hanging tag before its gap
    ("-i     Ignore case" → "-i"), a list item's leading words up to its first
    sentence ("- highWaterMark <number> Buffer level …" → "highWaterMark <number>"),
    or the whole (short) line."""
    s = line.strip()
    s = re.sub(r"^(?:[-*+•]|\d{1,3}[.)])\s+", "", s) if not _OPTION.match(s) else s
    gap = re.search(r"\S(\s{2,})\S", s)
    if gap and _OPTION.match(s):
        return s[: gap.start(1)]
    typed = re.match(r"[\w$.'\"`-]+(?:\s+<[^>]+>(?:\s*\|\s*<[^>]+>)*)", s)
    if typed:
        return typed.group(0)
    named = re.match(r"([\w$.()\[\]-]+):\s", s)  # "keepAliveTimeout: The number of …"
    if named:
        return named.group(1)
    if len(s) > _SHORT:
        words = s.split()
        return " ".join(words[:3]) if _OPTION.match(s) or _IDENT.match(s) else ""
    return s


# -- what is not an answer -------------------------------------------------------

# A bracket holding a keyword before its "]" ([OPTION...], [FILE...]), or a brace holding a
# "|" before its "}" ({A|c|d}). Each is tried only from the start of a stretch that no
# closer or newline splits, and from that stretch's first opener (the widest choice), after
# checking that the closer comes: tried from every opener of a long unclosed run, the
# plain "[...keyword...]" rescanned the run from each and was quadratic.
_USAGE = re.compile(
    r"(?:^|(?<=[\]\n]))[^\[\]\n]*\[(?=[^\]\n]*\])[^\]\n]*(?:\.\.\.|…|OPTION|options?\b|FILE|ARG)"
    r"|(?:^|(?<=[}\n]))[^{}\n]*\{(?=[^}\n]*\})[^}\n]*\|"
    r"|\[-[A-Za-z]{2,}\]"  # [-abc]
)


def is_usage(sentence: str, framing: Sequence[str] = ()) -> bool:
    """A usage pattern (``grep [OPTION...] PATTERNS [FILE...]``) or a line of a
    SYNOPSIS/USAGE section: how to call a command, not a statement about it."""
    if any(f.strip().rstrip(":").upper() in USAGE_HEADINGS for f in framing):
        return True
    s = sentence.strip()
    ends = s.endswith((".", "!", "?")) and not s.endswith("...")
    return bool(_USAGE.search(s)) and not ends


_CODE = re.compile(r"^(?:const|let|var|import|fn|def|\$)\s|=>|;\s*$|[{}]\s*$")
_FIELD = re.compile(r"\b[A-Za-z][\w ]{0,30}:\s+[\w\d(\"'<-]")
_LINK = re.compile(r"\[[^\]]*\]\([^)]*\)")
# A URL (from the start of its word: tried inside a word it rescanned the word), an
# address (its local part at most 64 characters, as RFC 5321 allows; "\\S+@" rescanned a
# run of non-blanks from each of its characters), a link's target (up to its ")" or the
# next "](": "[^)]*" after each of many "](" with no ")" was quadratic), code, a slot.
_URL = re.compile(r"(?<!\w)\w+://\S+|(?:[^\s@]{1,64}|@)@\S+|\]\((?:[^)\]]|\](?!\())*\)|`[^`]*`|\{\w+\}")
# A command line as an example shows it: a program, then an option, no full stop.
_COMMAND = re.compile(r"^[a-z][\w.+-]*(?:\s+[a-z][\w.+-]*)?\s+--?[A-Za-z]")


# A table row as extraction writes it ("| Default: | KeepAliveTimeout 5 |"); its cells
# are split at unescaped bars. A heading's Markdown mark ("### ").
_ROW = re.compile(r"\|[^\n]*\|")
_CELL_BAR = re.compile(r"(?<!\\)\|")
_HEADING_MARK = re.compile(r"#{1,6}[ \t]+")
# A term that states its value in its heading ("mailbox_size_limit (default: 51200000)").
_TERM_VALUE = re.compile(r"\(\s*[A-Za-z][\w ]{0,30}:\s*[^)\s][^)]*\)")


def as_read(sentence: str) -> str:
    """A sentence as a person reads it: a heading without its mark, a table row as
    its cells ("Default: KeepAliveTimeout 5"); any other sentence as it is."""
    s = sentence.strip()
    mark = _HEADING_MARK.match(s)
    s = s[mark.end():] if mark else s
    if not _ROW.fullmatch(s):
        return s
    return " ".join(c.strip().replace("\\|", "|") for c in _CELL_BAR.split(s[1:-1]) if c.strip())


# A field and its value on a line of their own ("Default: 128" under an option's term).
_FIELD_LINE = re.compile(r"[A-Za-z][\w -]{0,30}:[ \t]+\S")


def is_field(sentence: str) -> bool:
    """Whether a sentence is a field stating its value ("Default: 128"): short, but a
    statement, not a fragment."""
    return bool(_FIELD_LINE.match(sentence.strip()))


def states_value(heading: str) -> bool:
    """Whether a heading line states a term's value ("### queue_run_delay (default:
    300 seconds)"): a definition's term with its default is an answer, not a title."""
    return bool(_TERM_VALUE.search(heading))


def is_fragment(sentence: str) -> bool:
    """A piece that is no sentence: code, a command line, a running header
    ("GREP(1) User Commands GREP(1)"), a heading, a bare term ("-v, --invert-match"),
    a bare link, or a line cut off mid-word or mid-clause. A term line that states
    its default ("--num-callers=<number> [default: 12]") is a statement, and so is a
    table row read as its cells ("| Default: | KeepAliveTimeout 5 |")."""
    s = as_read(sentence)
    if not s or _CODE.search(s):
        return True
    if s.endswith(("‐", "-", ",", "(", "[", "{", "|")):
        return True
    if _FIELD.search(s):  # "Default: 5000.", "Boiling point: 64.7 °C": a value stated
        return False
    closed = s.endswith((".", "!", "?", ":")) and not s.endswith("...")
    if _OPTION.match(s) and "\n" not in s and not closed:
        return "default" not in s.lower()
    if len(re.findall(r"[A-Za-z]{2,}", _URL.sub(" ", _LINK.sub(" ", s)))) < 2:
        return True  # a bare link: "[Main issue tracker](https://…)"
    words = re.findall(r"[A-Za-z]+", _URL.sub(" ", _OPTION.sub(" ", s)))
    if s.endswith(("‐", "-", ",", "(", "[", "{", "|")) or (
            _COMMAND.match(s) and not closed and len(words) <= 4):
        return True
    if len(words) < 3:  # "--error-exitcode option.", a bare link
        return True
    plain = not any(c.isdigit() or c == ":" for c in s)
    if plain and not closed and "\n" not in s and len(words) <= 6 and s[0].isupper():
        return True  # a heading ("Compression preset levels"), not a claim
    # Every word capitalised (or none lower-case): a header or a heading, not a claim.
    return not any(w[0].islower() and len(w) > 2 for w in words)


# -- definitions ------------------------------------------------------------------

# Matched whole (fullmatch); the leading blanks are taken where no blank precedes them
# (tried at every blank of a long run, they made a scan quadratic), and "mean" is looked
# for once before the "?" rather than retried from each "mean" on the way back.
_DEFINED = re.compile(
    r"(?<!\s)\s*what\s+(?:(?:is|are)\s+(?:an?\s+|the\s+)?([\w.+-]+)\s*\?\s*"
    r"|does\s+([\w.+-]+)\b(?=[^?]*\bmean\b)[^?]*+\?\s*)",
    re.IGNORECASE,
)


def defined(question: str) -> str | None:
    """X of "What is X?" (one word: a name to define) or the first word of "What does
    X … mean?" ("pinning" of "What does pinning a package version mean?"), else None."""
    asked = _DEFINED.fullmatch(question)
    return (asked.group(1) or asked.group(2)) if asked else None


def defines(question: str, sentence: str) -> bool:
    """Whether ``sentence`` defines what "What is X?" asks about: X, then "is a/an/the",
    or X in apposition ("Memcheck is a memory error detector", "This is GNU Libtasn1,
    a small ASN.1 library").

        >>> defines("What is Memcheck?", "Memcheck is a memory error detector.")
        True
    """
    thing = defined(question)
    if thing is None:
        return False
    pattern = (rf"\b{re.escape(thing)}\b(?:(?:[^.;:]{{0,80}}?\b(?:is|are)|,)\s+(?:an?|the)\b"
               r"|\s+(?:refers\s+to|means)\b)")
    return re.search(pattern, sentence, re.IGNORECASE) is not None
