"""What is not an answer, whatever it states (ADR 0022).

The citation guard proves a sentence is stated; the answer check asks whether it
answers. Three kinds of stated text never do:

* a **usage line** — ``grep [OPTION...] PATTERNS [FILE...]``, any line of a
  SYNOPSIS: how to call a command, not what it does;
* a **fragment** — a running header, a heading, a bare term line, a link, code, a
  line cut off mid-clause;
* a sentence about **another subject** — the question's focus (an option, an
  identifier, a named subject: ``tether.text.focus``) bound to it by nothing: not
  by the sentence, nor by its frame (its unit's term line, the headings over it),
  nor, for a subject, by its document's title. "Default: false." under
  ``allowHalfOpen`` does not answer a ``highWaterMark`` question.

This reads questions and frames with the same toolkit as the extractive generator
(so the same text is read the same way), but decides on its own, after the guard,
for every generator.

    >>> not_an_answer("What does grep -v do?", "grep [OPTION...] PATTERNS [FILE...]", (), "GREP(1)")
    'is a usage line, not a statement'
    >>> not_an_answer("What does the -v option of grep do?", "Invert the sense of matching.",
    ...               ("-v, --invert-match",), "GIT-GREP(1)")
    "is not about 'grep'"
"""

from __future__ import annotations

from collections.abc import Sequence

from ..text.focus import is_fragment, is_usage, read_focus

__all__ = ["not_an_answer"]


def not_an_answer(question: str, sentence: str, framing: Sequence[str], title: str) -> str | None:
    """Why ``sentence`` (framed by ``framing``, in a document titled ``title``) cannot
    answer ``question`` whatever it states, or None."""
    if is_usage(sentence, framing):
        return "is a usage line, not a statement"
    if is_fragment(sentence):
        return "is a fragment, not a sentence"
    unbound = read_focus(question).unbound(sentence, framing, title)
    if unbound:
        return f"is not about {unbound[0]!r}"
    return None
