"""Render stage: answers as a person reads them in a terminal, and as JSON.

Derived text (transcribed, generated) is never shown as a quotation: it is
attributed to the artifact and the process that produced it, pointing at the
original region.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from ..records import Answer, AnswerSentence, Citation, to_json

__all__ = ["HEADING_JOIN", "TextStream", "answer_json", "answer_text", "citation_line",
           "heading_text"]


# Characters json.dumps leaves raw that line readers (str.splitlines, JavaScript)
# take for line breaks: escaped, so one record is always one line.
_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def json_line(value: Any) -> str:
    """``value`` as exactly one line of JSON (UTF-8 text kept readable)."""
    return json.dumps(value, ensure_ascii=False).translate(_LINE_BREAKS)


def answer_json(answer: Answer, **extra: Any) -> str:
    """One line of JSON; ``extra`` keys (an ``id``) come first."""
    return json_line({**extra, **to_json(answer)})


HEADING_JOIN = " › "


def heading_text(heading: tuple[str, ...] | list[str]) -> str:
    """A heading path as shown: outermost first, joined with ``›``."""
    return HEADING_JOIN.join(heading)


def citation_line(number: int, citation: Citation) -> list[str]:
    where = f" · {citation.region}" if citation.region else ""
    lines = [f"[{number}] {citation.title} — {citation.source}{where}"]
    if citation.heading:
        lines.append(f"    in {heading_text(citation.heading)}")
    meta = f"license {citation.license} · fetched {citation.fetched_at}"
    if citation.kind == "original":
        lines.append(f"    {meta}")
        lines.append(f"    “{citation.quote}”")
    else:
        # Not a quotation: the words come from a process, not from the source.
        process = citation.process or "an unrecorded process"
        lines.append(f"    {meta} · {citation.kind} text, produced by {process}")
        lines.append(f"    {citation.kind} text (not a quotation of the source): {citation.quote}")
    return lines


def answer_text(answer: Answer) -> str:
    if answer.refused:
        layer = f" [{answer.refusal_layer}]" if answer.refusal_layer else ""
        lines = [f"No answer{layer}: {answer.refusal_reason}."]
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
            parts.append(f"{sentence.text} {''.join(marks)}")
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
        lines.append(f"(answer incomplete, the generator failed: {failure})")
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
        return f"{' ' if self._count > 1 else ''}{sentence.text} {''.join(marks)}"

    def done(self, answer: Answer) -> str:
        if not self._count:
            return answer_text(answer)
        lines = ["", "", "Sources"]
        for n, citation in enumerate(self._cited, 1):
            lines.extend(citation_line(n, citation))
        return "\n".join(lines + _tail_lines(answer))
