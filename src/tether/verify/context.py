"""What the rest of a sentence does to a verbatim piece of it (ADR 0030).

A piece cut out of a passage sentence is a copy of its words, not of what it says when
the sentence around it restricts it ("The drug is safe *only for adults*"), makes it a
condition's consequence ("*If the valve is open,* the gas escapes") or reports it as
someone's claim ("*Critics claim* the drug is safe"). Negation and hedges around the
piece are read by the polarity checks; these three are read here.

    >>> dropped_frame("The drug is safe only for adults.", (0, 16))
    "restricted: 'only' follows it in the passage"
    >>> dropped_frame("Critics claim that the drug is safe.", (19, 35))
    "reported: the passage gives it as 'claim that'"
    >>> dropped_frame("If the valve is open, the gas escapes.", (22, 37))
    "conditional: the passage says it under 'if'"
    >>> dropped_frame("Water boils at 100 °C, and ice melts at 0 °C.", (0, 21)) is None
    True
"""

from __future__ import annotations

import re

__all__ = ["dropped_frame"]

# A word right after the piece that narrows what it says to a case.
_RESTRICTORS = frozenset((
    "only", "solely", "exclusively", "except", "unless", "if", "when", "whenever",
    "provided", "until",
))
# A sentence that opens with a condition makes everything after its comma conditional.
_CONDITION = re.compile(
    r"(if|when|whenever|unless|provided|once|assuming|where|in case)\b", re.IGNORECASE
)
# Words of claiming, believing, doubting or denying right before the piece: it is what
# someone holds, not what the passage states. Plain report ("Engineers said the bridge
# is not safe") is how documents give their evidence, and stays support.
_REPORTED = re.compile(
    r"\b((?:claim|believe|think|suggest|allege|argue|assume|hope|fear|doubt|deny|"
    r"insist|speculate|rumou?r|hypothesi[sz]e|predict|expect|imagine|pretend)"
    r"(?:s|es|ed|d|ing)?|thought|denied|denies|whether|false|untrue|myth|"
    r"misconception|wrongly|mistakenly)\s*(that\s*)?$",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
_OPENING = " \t\n\"'“‘([-—"  # what may stand before a sentence's first word


def dropped_frame(sentence: str, span: tuple[int, int]) -> str | None:
    """Why ``sentence[span]`` — a proper piece of the passage sentence ``sentence`` —
    does not say on its own what it says there; ``None`` when nothing frames it."""
    before, after = sentence[: span[0]], sentence[span[1] :]
    # Patterns anchored by hand (match at one place), so no input makes them quadratic.
    first = _WORD.match(after, len(after) - len(after.lstrip(" \t\n,;:—-")))
    if first and first.group(0).lower() in _RESTRICTORS:
        return f"restricted: '{first.group(0).lower()}' follows it in the passage"
    said = _REPORTED.search(before.rstrip(" ,:"))
    if said:
        return f"reported: the passage gives it as '{' '.join(said.group(0).lower().split())}'"
    condition = _CONDITION.match(before, len(before) - len(before.lstrip(_OPENING)))
    if condition and "," in before[condition.end() :]:
        return f"conditional: the passage says it under '{condition.group(1).lower()}'"
    return None
