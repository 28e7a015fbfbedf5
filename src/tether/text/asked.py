"""What a question asks for, in words a refusal can say.

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

__all__ = ["asked_for", "not_stated"]

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
