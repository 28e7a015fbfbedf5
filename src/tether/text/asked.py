"""What a question asks for: the kind of answer, and words a refusal can say.

The kind of answer ("date", "figure", "name", "place") is read one way, by
``earliest_kind``: of a table of cues, the one that matches nearest the start of the
question wins, so "Who led them when the Franks came?" asks for a name. The
extractive generator and the guard each pass their own table (each decides what
counts as a figure question; the guard must not grade the generator with the
generator's own judgement), built from the shared cue words here and in
``text.english`` (ADR 0060).

    >>> cues = (("date", re.compile(WHEN_DATED, re.I)), ("name", re.compile(ASKS_WHO, re.I)))
    >>> earliest_kind("Who led them when the Franks came?", cues)
    'name'
    >>> earliest_kind("When may an operator silence it?", cues) is None
    True

A refusal names what was missing ("no passage states the capital of Australia"),
not the machinery that noticed it. A question of the shape "What/Which is X?"
asks for X, which reads as a noun phrase; any other question is quoted whole.

    >>> not_stated("What is the capital of Australia?")
    'no passage states the capital of Australia'
    >>> not_stated("When was Corvane made?")
    'no passage answers “When was Corvane made?”'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["ASKS_WHO", "WHEN_DATED", "asked_for", "earliest_kind", "either", "not_stated"]

# "When" asking for a date; "when may/should/can …" asks for a condition ("after
# logging it"), not a date.
WHEN_DATED = r"when(?!\s+(?:may|might|can|could|should|must|would|need|needs)\b)"
# The question words that ask for a person.
ASKS_WHO = r"(?:who|whom|whose)"


def either(words: Iterable[str]) -> str:
    """One regex group matching any of ``words`` (taken literally): ``(?:a|b)``."""
    return "(?:" + "|".join(re.escape(w) for w in words) + ")"


def earliest_kind(question: str, cues: Sequence[tuple[str, re.Pattern[str]]]) -> str | None:
    """The kind of the cue found nearest the start of ``question`` (on a tie, the
    earlier cue in ``cues``), or None when no cue is found."""
    found = [(m.start(), i) for i, (_, cue) in enumerate(cues) if (m := cue.search(question))]
    return cues[min(found)[1]][0] if found else None


# Applied with ``match`` at the start only, then the rest is sliced off: linear time.
_WHAT_BE = re.compile(r"(?:what|which)(?:\s+(?:is|are|was|were)\s+|['’]s\s+)", re.IGNORECASE)
_MAX_CHARS = 120  # a refusal quotes a long question only in part


def asked_for(question: str) -> str | None:
    """X of "What is X?" (without the question mark), or None for other shapes."""
    text = " ".join(question.split())
    found = _WHAT_BE.match(text)
    if found is None:
        return None
    rest = text[found.end():].rstrip("?!. ")
    return _shortened(rest) if rest else None


def not_stated(question: str) -> str:
    """``no passage states X`` for "What is X?", else ``no passage answers “Q”``."""
    thing = asked_for(question)
    if thing is not None:
        return f"no passage states {thing}"
    return f"no passage answers “{_shortened(' '.join(question.split()))}”"


def _shortened(text: str) -> str:
    return text if len(text) <= _MAX_CHARS else text[: _MAX_CHARS - 1].rstrip() + "…"
