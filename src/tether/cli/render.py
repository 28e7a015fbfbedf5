"""Render stage: answers as a person reads them in a terminal, and as JSON.

Derived text (transcribed, generated) is never shown as a quotation: it is
attributed to the artifact and the process that produced it, pointing at the
original region.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from ..records import Answer, AnswerSentence, Citation, to_json
from ..text.focus import as_read

__all__ = ["HEADING_JOIN", "TextStream", "answer_json", "answer_text", "citation_line",
           "flowed", "heading_text", "json_block", "json_line", "printable"]


# What a terminal or a line reader obeys when it sits in a value (a title, a source, a
# file name, a passage): C0 and C1 controls and DEL (ESC opens OSC and CSI sequences,
# CR rewrites a line, LF forges one), the Unicode line and paragraph separators, the
# bidi controls that reorder what is shown, and lone surrogates (bytes of a file name
# or an option that are not UTF-8, which no terminal encoding can write).
_BIDI_CHARS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_UNSAFE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI_CHARS}\ud800-\udfff]")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# ``os.fsdecode`` keeps a byte that is not UTF-8 as U+DC80..U+DCFF: shown as that byte.
_SURROGATE_BYTES = range(0xDC80, 0xDD00)


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if code in _SURROGATE_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: object) -> str:
    """``value`` as text safe to show a person: every control character, line break,
    bidi control and undecodable byte written as a visible escape (``\\x1b``,
    ``\\n``, ``\\xff``), so a value can neither command the terminal nor forge a line.
    All human output of the CLI passes values through here (JSON output escapes them
    itself)."""
    return _UNSAFE.sub(_escaped, str(value))


# Characters json.dumps leaves raw that line readers (str.splitlines, JavaScript)
# take for line breaks, the C1 controls a terminal obeys (U+009B opens a CSI sequence
# as ESC [ does) and the bidi controls: escaped, so one record is one inert line.
_LINE_BREAKS = str.maketrans({
    char: f"\\u{ord(char):04x}"
    for char in [*map(chr, range(0x80, 0xA0)), "\u2028", "\u2029", *_BIDI_CHARS]
})


def json_line(value: Any) -> str:
    """``value`` as exactly one line of JSON (UTF-8 text kept readable)."""
    return json.dumps(value, ensure_ascii=False).translate(_LINE_BREAKS)


def json_block(value: Any) -> str:
    """``value`` as indented JSON for a person, escaped as ``json_line`` is."""
    return json.dumps(value, ensure_ascii=False, indent=2).translate(_LINE_BREAKS)


def answer_json(answer: Answer, **extra: Any) -> str:
    """One line of JSON; ``extra`` keys (an ``id``) come first."""
    return json_line({**extra, **to_json(answer)})


HEADING_JOIN = " › "


def heading_text(heading: tuple[str, ...] | list[str]) -> str:
    """A heading path as shown: outermost first, joined with ``›``."""
    return HEADING_JOIN.join(heading)


def flowed(text: str) -> str:
    """Quoted or answered text on one line: its line breaks and other runs of white
    space as one space (a passage's own line break must not start a line of ours),
    then ``printable``. The JSON output keeps the exact text."""
    return printable(" ".join(text.split()))


def shown(text: str) -> str:
    """An answer sentence as shown: ``flowed``, as a person reads it (``as_read``: a
    table row as its cells, "Default: KeepAliveTimeout 5"; a heading without its
    mark); its citation keeps the exact quote."""
    return flowed(as_read(text))


def citation_line(number: int, citation: Citation) -> list[str]:
    where = f" · {printable(citation.region)}" if citation.region else ""
    lines = [f"[{number}] {printable(citation.title)} — {printable(citation.source)}{where}"]
    if citation.heading:
        lines.append(f"    in {printable(heading_text(citation.heading))}")
    meta = f"license {printable(citation.license)} · fetched {printable(citation.fetched_at)}"
    if citation.kind == "original":
        lines.append(f"    {meta}")
        lines.append(f"    “{flowed(citation.quote)}”")
    else:
        # Not a quotation: the words come from a process, not from the source.
        process = printable(citation.process or "an unrecorded process")
        lines.append(f"    {meta} · {citation.kind} text, produced by {process}")
        lines.append(f"    {citation.kind} text (not a quotation of the source): {flowed(citation.quote)}")
    return lines


def answer_text(answer: Answer) -> str:
    if answer.refused:
        layer = f" [{answer.refusal_layer}]" if answer.refusal_layer else ""
        lines = [f"No answer{layer}: {printable(answer.refusal_reason)}."]
    else:
        numbers: dict[tuple[str, str, int, int], int] = {}
        cited: list[Citation] = []
        parts = []
        for sentence in answer.sentences:
            marks = []
            for citation in sentence.citations:
                key = (citation.doc_id, citation.version, citation.start, citation.end)
                if key not in numbers:
                    numbers[key] = len(numbers) + 1
                    cited.append(citation)
                marks.append(f"[{numbers[key]}]")
            parts.append(f"{shown(sentence.text)} {''.join(marks)}")
        lines = [" ".join(parts), "", "Sources"]
        for n, citation in enumerate(cited, 1):
            lines.extend(citation_line(n, citation))
    lines.extend(_tail_lines(answer))
    return "\n".join(lines)


def _tail_lines(answer: Answer) -> list[str]:
    """What follows the sources: sentences not shown, and why an answer stops short."""
    lines = []
    if answer.dropped:
        # A sentence withheld by a policy is counted apart: its verdict may be "supported".
        counts = Counter("withheld" if d.reason else d.verdict.outcome for d in answer.dropped)
        summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        lines.append(f"({len(answer.dropped)} proposed sentence(s) not shown: {summary}; --json lists them)")
    failure = answer.trace.get("generator_failure")
    if failure and not answer.refused:
        lines.append(f"(answer incomplete, the generator failed: {printable(failure)})")
    return lines


class TextStream:
    """``answer_text`` in pieces, for a terminal that shows sentences as they are verified.

    ``sentence`` gives the text to print for each ``sentence`` event (no newline);
    ``done`` gives the rest. Joined, the pieces equal ``answer_text(answer)``.
    """

    def __init__(self) -> None:
        self._numbers: dict[tuple[str, str, int, int], int] = {}
        self._cited: list[Citation] = []
        self._count = 0

    def sentence(self, sentence: AnswerSentence) -> str:
        marks = []
        for citation in sentence.citations:
            key = (citation.doc_id, citation.version, citation.start, citation.end)
            if key not in self._numbers:
                self._numbers[key] = len(self._numbers) + 1
                self._cited.append(citation)
            marks.append(f"[{self._numbers[key]}]")
        self._count += 1
        return f"{' ' if self._count > 1 else ''}{shown(sentence.text)} {''.join(marks)}"

    def done(self, answer: Answer) -> str:
        if not self._count:
            return answer_text(answer)
        return "\n".join(self._sources() + _tail_lines(answer))

    def cut_short(self) -> str:
        """The sources of the sentences already shown, for an answer that failed after
        them (the store could not record it): no sentence is left without its source."""
        if not self._count:
            return ""
        return "\n".join([*self._sources(), "(answer not recorded: it failed after these "
                           "sentences were shown; see the error)"])

    def _sources(self) -> list[str]:
        lines = ["", "", "Sources"]
        for n, citation in enumerate(self._cited, 1):
            lines.extend(citation_line(n, citation))
        return lines
