"""Answer check: do the verified sentences answer *this* question?

The citation guard proves each sentence is stated by a passage; it cannot see
that a true sentence answers a neighbouring question — the OASB limit for toluene
offered for xylene, the 1060s offered for a question about Hervé. After the guard,
an answer is refused (layer ``guard``) unless some surviving sentence

* supplies an answer of the kind asked for — a figure for "how much", a date for
  "when", a name for "who", a place for "where" — that the question does not
  already contain ("in 2026" does not answer "what changed in 2026?"), and
* mentions the question's anchors: its names and figures (capitalised words past
  the first, and words with digits), and what the asked-for property belongs to
  (the word after "of"/"for": "the boiling point of *lead*"). The sentence may lean
  on the sentence before it in its passage and on its document's title ("He
  appointed…", a fact sheet titled "Toluene"), and
* states the property asked for, not a sibling: the qualifiers of "the *boiling*
  point" (not the melting point), the noun "how many" counts; these may also stand
  in the heading of the passage the sentence is cut from ("Exposure limits"), but
  not elsewhere in it ("a solution can boil" is no boiling point).

Other words are not anchors: questions paraphrase their verbs and common nouns
freely ("located" for "a region in"), but a different name, year or substance is a
different question. (Measured at 24/24 answer accuracy on the demo questions: the
of/for anchor raised abstain recall there from 6/16 to 9/16, the asked property to
15/16; ADR 0001 has the SQuAD figures.) ``check_answer`` returns the refusal reason,
or None.

    >>> check_answer("When did Hervé fight the Turks?",
    ...              [("In the 1060s, Robert Crispin led the Normans against the Turks.", "")])
    "no passage answers “When did Hervé fight the Turks?”: the sentences found never mention 'Hervé'"
    >>> check_answer("When did Crispin fight the Turks?",
    ...              [("In the 1060s, Robert Crispin led the Normans against the Turks.", "")])
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, cast

from ..judges.base import Judge, Judgement
from ..text.asked import not_stated
from ..text.english import OBJECT_DETERMINERS, OBJECT_PREPOSITIONS
from ..text.focus import frame
from ..text.terms import Term, content_terms, stem, stems
from .answertype import answer_type, supplies
from .focus import not_an_answer

__all__ = [
    "anchors", "check_answer", "heading", "judge_answers", "judged_refusal", "property_terms",
    "sentence_answers",
]


def anchors(question: str, passages: Sequence[str] = ()) -> list[Term]:
    """The question's names and figures: what a different question would change.

    With ``passages``, a capitalised word they write only in lower case is not a
    name but a typo or a title-cased question ("Who did Emma Marry?").
    """
    lower_only = _lower_only(passages)
    terms = content_terms(question)
    first = terms[0].start if terms else -1
    lead = question.lstrip()
    starts_question = len(question) - len(lead)
    objects = _preposition_objects(question)
    out = []
    for term in terms:
        # The question's first word is capitalised by grammar, not because it is a name.
        opening = term.start == starts_question and term.start == first
        named = term.capitalised and not opening and term.stem not in lower_only
        if term.numeric or named or term.word.lower() in objects:
            out.append(term)
    return out


# "of" and "for" attach the thing a property belongs to ("the boiling point *of
# lead*", "the limit *for ethanol*"); "in", "on", "during" only qualify it ("in the
# final report"), and answers leave qualifiers implicit.
_OWNER_PREPOSITIONS = frozenset(("of", "for"))


def _preposition_objects(question: str) -> set[str]:
    """Words right after "of"/"for" (and maybe a determiner): what the asked-for
    property belongs to, which a neighbouring fact (another substance's) lacks."""
    words = [m.group(0) for m in _TOKEN.finditer(question)]
    out = set()
    for i, word in enumerate(words):
        j = i - 1
        if j >= 0 and words[j].lower() in OBJECT_DETERMINERS:
            j -= 1
        if j >= 0 and words[j].lower() in _OWNER_PREPOSITIONS:
            out.add(word.lower())
    return out


# "What is the *boiling* point of …", "What was the *peak carbon monoxide* reading
# during …": the property asked for, up to the first preposition or the end.
_PROPERTY = re.compile(
    r"^\s*(?:what|which)\s+(?:is|was|are|were)\s+(?:the|an?)\s+(.+?)"
    r"(?=\s+(?:of|for|in|on|at|during|from|by|with|to|into|about|than|that|which|who|when|"
    r"where|whose|after|before|under|over|between|among|per|as)\b|\s*[?.!]?\s*$)",
    re.IGNORECASE,
)

_COUNTED = re.compile(r"\bhow\s+(?:many|much)\s+([^\W\d_]+)", re.IGNORECASE)


@lru_cache(maxsize=256)  # asked once per candidate sentence of the same question
def property_terms(question: str) -> tuple[Term, ...]:
    """The words before the head noun of the property a "what is the …" question asks
    for (or the noun "how many" counts): what tells it from its siblings ("boiling"
    from "melting" point, "carbon monoxide" from "hydrogen sulfide" reading). The head
    itself ("point", "reading") is left out: answers paraphrase it more often than
    they change it.

        >>> [t.word for t in property_terms("What was the peak carbon monoxide reading during the incident?")]
        ['peak', 'carbon', 'monoxide']
        >>> [t.word for t in property_terms("How many employees work at the site?")]
        ['employees']
    """
    counted = _COUNTED.search(question)
    if counted:  # "How many *employees* …": what is counted is what is asked
        return tuple(content_terms(counted.group(1)))
    match = _PROPERTY.match(question)
    if not match:
        return ()
    return tuple(content_terms(match.group(1))[:-1])


def heading(section: str) -> str:
    r"""The first line of a passage when it reads as a heading: marked ("## Exposure
    limits"), or short, without a sentence's closing stop and not a "field: value"
    line ("Substitution" from an HTML <h2>). A passage cut mid-section has none.

        >>> heading("## Exposure limits\n\n- The 8-hour limit is 1,000 ppm.")
        '## Exposure limits'
        >>> heading("Acetone is a solvent.\nIt boils at 56 °C.")
        ''
        >>> heading("Boiling point: 1,749 °C\nMelting point: 327.5 °C")
        ''
    """
    first = section.lstrip().split("\n", 1)[0].strip()
    if first.startswith("#"):
        return first
    plain = len(first) <= 80 and ": " not in first and not first.endswith((".", "!", "?", ":", ";"))
    return first if plain and "\n" in section.strip() else ""


def _lower_only(passages: Sequence[str]) -> set[str]:
    """Stems that ``passages`` write in lower case and never capitalised."""
    lower: set[str] = set()
    upper: set[str] = set()
    for text in passages:
        for term in content_terms(text):
            (upper if term.capitalised else lower).add(term.stem)
    return lower - upper


def sentence_answers(
    question: str,
    sentence: str,
    context: str = "",
    *,
    section: str = "",
    passages: Sequence[str] = (),
    anchor_terms: Sequence[Term] | None = None,
    path: Sequence[str] = (),
) -> str | None:
    """None when ``sentence`` answers ``question``, else what it lacks.

    ``context`` is what the sentence may lean on (its title, the sentence before);
    ``section`` is the passage it was cut from, whose heading may state the asked
    property's qualifier ("Exposure limits" over "The 8-hour limit is 1,000 ppm");
    ``passages`` are the retrieved texts, used to tell names from typos (or pass
    ``anchor_terms`` computed once with ``anchors``); ``path`` is the passage's
    heading path, outermost first, when segmentation gave it one.
    """
    framing = (*path, *_frame(sentence, section))
    unfit = not_an_answer(question, sentence, framing, context.split("\n", 1)[0])
    if unfit:
        return unfit
    kind = answer_type(question)
    if not supplies(sentence, kind, question):
        return f"gives no {kind}"
    # Its unit's term and the headings over it say what it is about ("server.timeout#"
    # over "- <number> Timeout in milliseconds. Default: 5000").
    present = stems(sentence) | stems(context) | stems(" ".join(framing))
    subject = absent_subject(question, passages)
    if subject:
        return f"is not about {subject!r}"
    if anchor_terms is None:
        anchor_terms = anchors(question, passages)
    missing = [t.word for t in anchor_terms if t.stem not in present]
    if not missing:
        present |= stems(heading(section))
        missing = [t.word for t in property_terms(question) if t.stem not in present]
    if missing:
        return "does not mention " + ", ".join(repr(w) for w in dict.fromkeys(missing))
    return None


def _frame(sentence: str, section: str) -> tuple[str, ...]:
    """The frame of ``sentence`` where it stands in ``section`` (none when not found)."""
    at = section.find(sentence) if sentence and section else -1
    return frame(section, at) if at >= 0 else ()


_TOKEN = re.compile(r"[^\W_]+(?:[.,][0-9]+)*", re.UNICODE)


@lru_cache(maxsize=512)
def _stem_set(text: str) -> frozenset[str]:
    # Every candidate sentence is checked against the same retrieved passages.
    return frozenset(stem(m.group(0)) for m in _TOKEN.finditer(text))


def absent_subject(question: str, passages: Sequence[str]) -> str | None:
    """The question's object of a preposition that no retrieved passage contains.

    Asked for "the OASB exposure limit for xylene" of a collection without xylene,
    every sentence retrieval can offer is about something else; the answer would
    be a neighbouring fact however well each sentence is cited.

        >>> absent_subject("What is the OASB limit for xylene?", ["The OASB limit for toluene is 50 ppm."])
        'xylene'
    """
    if not passages:
        return None
    retrieved = frozenset().union(*(_stem_set(p) for p in passages))
    words = [m.group(0) for m in _TOKEN.finditer(question)]
    content = {t.word for t in content_terms(question)}
    for i, word in enumerate(words):
        if word not in content or stem(word) in retrieved:
            continue
        j = i - 1
        if j >= 0 and words[j].lower() in OBJECT_DETERMINERS:
            j -= 1
        if j >= 0 and words[j].lower() in OBJECT_PREPOSITIONS:
            return word
    return None


def check_answer(
    question: str,
    sentences: Sequence[tuple[Any, ...]],
    *,
    passages: Sequence[str] = (),
) -> str | None:
    """Refusal reason when none of ``(sentence, context[, section])`` answers ``question``:
    what no passage states, then what the sentences found lack, in plain words."""
    if not sentences:
        return None
    missing = not_stated(question)
    subject = absent_subject(question, passages)
    if subject:
        return (f"{missing}: none of the passages found mentions {subject!r}, so what they"
                " state is about something else")
    terms = anchors(question, passages)
    lacks = []
    for text, context, *rest in sentences:
        # (sentence, context[, section[, heading path]])
        section = str(rest[0]) if rest else ""
        path = tuple(rest[1]) if len(rest) > 1 else ()
        lacks.append(sentence_answers(question, text, context, section=section,
                                      passages=passages, anchor_terms=terms, path=path))
    if any(why is None for why in lacks):
        return None
    kind = answer_type(question)
    if kind and all(str(why).startswith("gives no") for why in lacks):
        return f"{missing}: the question asks for a {kind}, and the sentences found give none"
    first = next(str(why) for why in lacks if not str(why).startswith("gives no"))
    for prefix, said in (("is not about ", "are not about"), ("does not mention ", "never mention")):
        if first.startswith(prefix):
            return f"{missing}: the sentences found {said} {first.removeprefix(prefix)}"
    return f"{missing}: the sentences found {_PLURAL.get(first, first)}"


# A refusal speaks of the sentences found together.
_PLURAL = {
    "is a usage line, not a statement": "are usage lines, not statements",
    "is a fragment, not a sentence": "are fragments, not sentences",
}


def judge_answers(
    judge: Judge, question: str, sentences: Sequence[tuple[Any, ...]]
) -> Judgement | None:
    """Ask a model judge whether the supported sentences answer ``question`` as asked.

    This is what the lexical check cannot see: every word of the question in a cited
    sentence that relates them differently ("Who was famed for their *Christian*
    spirit?" of "famed for their martial spirit and … their Christian piety").
    Each sentence is shown after its context (title, sentence before). Only a judge
    with an ``answers`` method can be asked (the LLM judges); an NLI model judges
    whether a passage states a claim, and a question is not a claim: None.
    """
    ask = getattr(judge, "answers", None)
    if not callable(ask) or not sentences:
        return None
    parts = (line.strip() for text, context, *_ in sentences for line in (*context.split("\n"), text))
    return cast(Judgement, ask("\n".join(dict.fromkeys(p for p in parts if p)), question))


def judged_refusal(judgement: Judgement | None) -> str | None:
    """The refusal reason a judgement gives, or None (it found an answer, or failed:
    a failed judge leaves the lexical decision standing)."""
    if judgement is None or not judgement.ok or judgement.label == "entailment":
        return None
    if judgement.label == "contradiction":
        return (f"{judgement.checker} finds the supported sentences contradict what the "
                "question takes for granted")
    return f"{judgement.checker} finds that no supported sentence answers the question as asked"
