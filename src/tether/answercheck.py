"""Answer check: do the verified sentences answer *this* question?

The citation guard proves each sentence is stated by a passage; it cannot see
that a true sentence answers a neighbouring question — the OASB limit for toluene
offered for xylene, the 1060s offered for a question about Hervé. After the guard,
an answer is refused (layer ``guard``) unless some surviving sentence

* supplies an answer of the kind asked for — a figure for "how much", a date for
  "when", a name for "who", a place for "where" — that the question does not
  already contain ("in 2026" does not answer "what changed in 2026?"), and
* mentions the question's anchors: its names and figures (capitalised words past
  the first, and words with digits). The sentence may lean on the sentence before
  it in its passage and on its document's title ("He appointed…", a fact sheet
  titled "Toluene").

Anchors are names and figures only: questions paraphrase their verbs and common
nouns freely ("located" for "a region in"), but a different name or year is a
different question. ``check_answer`` returns the refusal reason, or None.

    >>> check_answer("When did Hervé fight the Turks?",
    ...              [("In the 1060s, Robert Crispin led the Normans against the Turks.", "")])
    "no supported sentence mentions 'Hervé'"
    >>> check_answer("When did Crispin fight the Turks?",
    ...              [("In the 1060s, Robert Crispin led the Normans against the Turks.", "")])
"""

from __future__ import annotations

from collections.abc import Sequence

from .answertype import answer_type, supplies
from .terms import Term, content_terms, stems

__all__ = ["anchors", "check_answer", "sentence_answers"]


def anchors(question: str) -> list[Term]:
    """The question's names and figures: what a different question would change."""
    terms = content_terms(question)
    first = terms[0].start if terms else -1
    lead = question.lstrip()
    starts_question = len(question) - len(lead)
    out = []
    for term in terms:
        # The question's first word is capitalised by grammar, not because it is a name.
        opening = term.start == starts_question and term.start == first
        if term.numeric or (term.capitalised and not opening):
            out.append(term)
    return out


def sentence_answers(question: str, sentence: str, context: str = "") -> str | None:
    """None when ``sentence`` answers ``question``, else what it lacks."""
    kind = answer_type(question)
    if not supplies(sentence, kind, question):
        return f"gives no {kind}"
    present = stems(sentence) | stems(context)
    missing = [t.word for t in anchors(question) if t.stem not in present]
    if missing:
        return "does not mention " + ", ".join(repr(w) for w in dict.fromkeys(missing))
    return None


def check_answer(question: str, sentences: Sequence[tuple[str, str]]) -> str | None:
    """Refusal reason when none of ``(sentence, context)`` answers ``question``."""
    if not sentences:
        return None
    lacks = [sentence_answers(question, text, context) for text, context in sentences]
    if any(why is None for why in lacks):
        return None
    kind = answer_type(question)
    if kind and all(str(why).startswith("gives no") for why in lacks):
        return f"the question asks for a {kind} and no supported sentence gives one"
    first = next(str(why) for why in lacks if not str(why).startswith("gives no"))
    return "no supported sentence " + first.replace("does not mention", "mentions")
