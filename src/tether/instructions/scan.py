"""One pass over a text for many regex rules: an RE2 set of their loosened forms.

Python's ``re`` runs each instruction rule (``instructions.rules``) as its own scan, and
a combined alternation is slower still (it backtracks through every branch at every
position). RE2 compiles many patterns into one automaton that reads a text once and
reports which patterns occur. RE2 has no lookaround and no Unicode ``\\b``, and counted
repeats make its automaton large, so each rule enters the set *loosened*: lookarounds
dropped, ``{m,n}`` widened to ``*``/``+``, character classes widened where Unicode makes
them uncertain, ``\\b`` kept only for ASCII text. A loosened pattern matches wherever
its rule does (and sometimes where it does not), so the set names a superset of the
rules that can match: callers run only those, exactly as before, and get identical
results (``tests/instructions/test_scan.py`` compares them over a corpus).

The text passed to ``candidates`` must be NFKC-normalised, without zero-width
characters and with one apostrophe (``instructions.detect._unmasked``), or ASCII text as it
is; its horizontal space may be folded to " " (``instructions._normalise``) or not: in
both sets, whatever matches a folded " " also matches the run of horizontal space it
came from, so a text with no candidates needs no folding at all.
Without the ``google-re2`` wheel, ``RuleScan.build`` returns ``None`` and callers keep
their per-rule scan.

    >>> import re
    >>> scan = RuleScan.build([re.compile(r"\\bignore\\s{1,4}all", re.I), re.compile(r"\\bdan\\b", re.I)])
    >>> scan is None or scan.candidates("Please IGNORE  all of it.") == [0]
    True
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

try:  # the constants of Python's own regex parser (3.11+: re._constants)
    from re import _constants as C
    from re import _parser as parser
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as parser  # type: ignore[no-redef]

try:
    import re2
except ModuleNotFoundError:  # pragma: no cover - depends on the environment
    re2 = None

__all__ = ["RuleScan", "loosened"]

# A "^" of loosened RE2 syntax that anchors (not the one that opens a negated class).
_START = re.compile(r"(?<!\[)\^")
_NON_ASCII = r"\x{80}-\x{10FFFF}"
# Horizontal space: every character str.isspace() takes but "\n" (what ``\s`` matches
# in Python, ``instructions._normalise`` folds each run of it to one " ").
_HORIZONTAL_SPACE = ("\t\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680"
                     + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000")
_SPACE_MEMBERS = "".join(f"\\x{{{ord(c):X}}}" for c in _HORIZONTAL_SPACE)
# What one " " of folded text was in the text before folding: a run of horizontal space.
_RAW_SPACE = f"[{_SPACE_MEMBERS}]+"
_CATEGORY = {
    C.CATEGORY_SPACE: r"\s", C.CATEGORY_NOT_SPACE: r"\S",
    C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W",
    C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D",
}


def _char(code: int) -> str:
    return re2_escape(chr(code))


def re2_escape(ch: str) -> str:
    return ch if ch.isascii() and ch.isalnum() else f"\\x{{{ord(ch):X}}}"


def _klass(items: list[tuple[object, object]], flags: int) -> str:
    """A character class: exact on ASCII (tested against Python's own class), and for
    other characters its explicit members, or all of them where a category or a
    negation makes membership uncertain."""
    return _klass_of(tuple(items), flags)


@functools.cache
def _klass_of(items: tuple[tuple[object, object], ...], flags: int) -> str:
    # Cached: the rules share most of their classes, and testing 128 characters
    # against each was most of building the scan (every worker process builds it).
    source, explicit, uncertain = [], [], False
    for op, av in items:
        if op is C.NEGATE:
            source.append("^")
            uncertain = True
        elif op is C.LITERAL:
            source.append(re.escape(chr(av)))  # type: ignore[arg-type]
            if av >= 128:  # type: ignore[operator]
                explicit.append(_char(av))  # type: ignore[arg-type]
        elif op is C.RANGE:
            lo, hi = av  # type: ignore[misc]
            source.append(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}")
            if hi >= 128:
                uncertain = True
        elif op is C.CATEGORY:
            source.append(_CATEGORY[av])  # type: ignore[index]
            uncertain = True
        else:
            raise ValueError(f"unsupported class item {op}")
    test = re.compile("[" + "".join(source) + "]", flags)
    members = [_char(c) for c in range(128) if test.fullmatch(chr(c))]
    members += [_NON_ASCII] if uncertain else explicit
    if not members:
        return r"[^\x{0}-\x{10FFFF}]"
    # A class that takes the one space of folded text takes the run of horizontal
    # space it stands for in the text before folding.
    if test.fullmatch(" "):
        return "[" + "".join(members) + _SPACE_MEMBERS + "]+"
    return "[" + "".join(members) + "]"


def _emit(pattern: parser.SubPattern, flags: int, *, ascii_text: bool) -> str:
    out = []
    for op, av in pattern.data:
        out.append(_node(op, av, flags, ascii_text=ascii_text))
    return "".join(out)


def _node(op: object, av: object, flags: int, *, ascii_text: bool) -> str:
    if op is C.LITERAL:
        if av == 32:
            return _RAW_SPACE
        return _char(av)  # type: ignore[arg-type]
    if op is C.NOT_LITERAL:
        return _klass([(C.NEGATE, None), (C.LITERAL, av)], flags)
    if op is C.IN:
        return _klass(list(av), flags)  # type: ignore[call-overload]
    if op is C.ANY:
        return ".+"  # the folded " " it may take stands for a run
    if op is C.AT:
        if av is C.AT_BOUNDARY:
            return r"\b" if ascii_text else ""
        if av is C.AT_NON_BOUNDARY:
            return r"\B" if ascii_text else ""
        if av in (C.AT_BEGINNING, C.AT_BEGINNING_STRING):
            return "^"
        if av is C.AT_END:
            return r"(?:\n|$)"  # Python's $ also matches before a final newline
        return ""
    if op is C.BRANCH:
        return "(?:" + "|".join(_emit(b, flags, ascii_text=ascii_text) for b in av[1]) + ")"  # type: ignore[index]
    if op is C.SUBPATTERN:
        return "(?:" + _emit(av[-1], flags, ascii_text=ascii_text) + ")"  # type: ignore[index]
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        lo, _hi, sub = av  # type: ignore[misc]
        return "(?:" + _emit(sub, flags, ascii_text=ascii_text) + (")*" if lo == 0 else ")+")
    if op in (C.ASSERT, C.ASSERT_NOT):
        return ""  # a lookaround only narrows a match: dropped, the pattern is looser
    if op is C.ATOMIC_GROUP:
        return "(?:" + _emit(av, flags, ascii_text=ascii_text) + ")"  # type: ignore[arg-type]
    raise ValueError(f"unsupported regex construct {op}")


def loosened(pattern: re.Pattern[str], *, ascii_text: bool) -> str:
    """RE2 syntax for a pattern that matches wherever ``pattern`` does."""
    if not pattern.flags & re.IGNORECASE:
        raise ValueError("loosened patterns are matched ignoring case")
    return _emit(_parsed(pattern.pattern, pattern.flags), pattern.flags, ascii_text=ascii_text)


@functools.lru_cache(maxsize=512)
def _parsed(pattern: str, flags: int) -> parser.SubPattern:
    """Parsed once for both sets (the parse is only read)."""
    return parser.parse(pattern, flags)


class RuleScan:
    """Two RE2 sets over the same rules: one for ASCII text (with ``\\b``), one for any."""

    def __init__(self, ascii_set: object, any_set: object, *, anchored: bool) -> None:
        self._ascii = ascii_set
        self._any = any_set
        # Whether a pattern holds "^" (the start of the text): only then can a pattern
        # match a text and miss the same text inside a longer one (``\b`` and the
        # loosened "$" hold at a newline as at a text's edge).
        self.anchored = anchored

    @classmethod
    def build(cls, patterns: Sequence[re.Pattern[str]]) -> RuleScan | None:
        if re2 is None:
            return None
        sets, anchored = [], False
        for ascii_text in (True, False):
            options = re2.Options()
            options.case_sensitive = False
            options.max_mem = 64 << 20
            scan = re2.Set.SearchSet(options)
            for pattern in patterns:
                loose = loosened(pattern, ascii_text=ascii_text)
                # Every other "^" is escaped (\x{5E}) or negates the empty class.
                anchored = anchored or _START.search(loose) is not None
                scan.Add(loose)
            scan.Compile()
            sets.append(scan)
        return cls(*sets, anchored=anchored)

    def candidates(self, text: str) -> list[int] | None:
        """Indices (ascending) of the patterns that may match ``text`` (a pattern left
        out cannot match it); ``None`` for a text RE2 cannot read (lone surrogates)."""
        # Python's ignore-case also folds dotted and dotless I to "i" (RE2's simple case
        # folding does not); NFKC has already made the other such letters (long s,
        # Kelvin sign) ASCII.
        if text.isascii():
            found = self._ascii.Match(text)  # type: ignore[attr-defined]
        else:
            if "\u0130" in text or "\u0131" in text:
                text = text.replace("\u0130", "i").replace("\u0131", "i")
            try:
                found = self._any.Match(text)  # type: ignore[attr-defined]
            except UnicodeEncodeError:
                return None
        return sorted(found) if found else []
