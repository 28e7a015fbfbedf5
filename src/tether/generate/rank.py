"""How the extractive generator ranks candidate sentences: its own judgement, not the guard's.

The answer check (``tether.guard``) later decides whether the shown sentences answer
the question. The generator must not borrow that check to choose them — a gate
that graded its own input could never catch it (docs/DESIGN.md: the guard and the
generators are independent). So the ranking here is a separate, simpler reading of
the question, built only on the text toolkit:

* ``overlap`` — BM25-style weighted share of the question's content stems that the
  sentence (or its document's title) states; a stem rare among the candidates
  counts more than one every candidate has ("Normans" in a history of the Normans).
* ``asked_kind`` / ``supplies`` — what the question asks for (a figure for "how
  many", a date for "when", a name for "who", a place for "where") and whether the
  sentence gives one the question does not already contain.
* ``names`` — the question's names and figures (capitalised words past the first,
  words with digits); a sentence that leans on none of them answers another
  question. The sentence may lean on its title and on the sentence before it.
* ``sentence_score`` — the product, with a gentle decay by retrieval rank.

    >>> q = read_question("How many employees work at the Ridgeport site?")
    >>> q.kind
    'figure'
    >>> supplies("Ridgeport employs 140 people.", q)
    True
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..text.asked import ASKS_WHO, WHEN_DATED, earliest_kind, either
from ..text.english import (
    FIGURE_WORDS,
    HOW_MEASURES,
    MEASURE_NOUNS,
    MONTH_ABBREVIATIONS,
    MONTHS,
    PERSON_NOUNS,
    PLACE_NOUNS,
)
from ..text.focus import defines, read_focus
from ..text.terms import Term, content_terms, stem

__all__ = [
    "Question",
    "asked_kind",
    "coverage",
    "defines",
    "idf_weights",
    "name_share",
    "overlap",
    "read_question",
    "sentence_score",
    "supplies",
]

# What the ranking counts as each kind of question (the guard reads its own table,
# text.asked reads either). "When may/should …" asks for a condition, not a date.
_KIND_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            rf"\b(?:{WHEN_DATED}|(?:what|which) (?:year|date|century|decade)|since when)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "figure",
        re.compile(
            rf"\bhow {either(HOW_MEASURES + ('old',))}\b"
            rf"|\b(?:what|which) {either(MEASURE_NOUNS)}\b|\bat what\b"
            # "What is the default …" asks for a setting's value: in manuals, a figure.
            r"|\b(?:what|which)\s+(?:is|are|was|were)\s+the\s+default\b",
            re.IGNORECASE,
        ),
    ),
    (
        "name",
        re.compile(
            rf"\b{ASKS_WHO}\b|\b(?:what|which) "
            rf"{either(PERSON_NOUNS + ('king', 'leader', 'ruler', 'family', 'people', 'group'))}\b",
            re.IGNORECASE,
        ),
    ),
    (
        "place",
        re.compile(rf"\bwhere\b|\b(?:what|which|in what) {either(PLACE_NOUNS + ('area',))}\b", re.IGNORECASE),
    ),
)
_MONTHS = frozenset(MONTHS + MONTH_ABBREVIATIONS)
_YEAR = re.compile(r"^\d{3,4}s?$")
_ORDINAL = re.compile(r"^\d{1,2}(?:st|nd|rd|th)$")
_DATE_WORDS = frozenset(("century", "centuries", "decade", "decades"))
_PATH = re.compile(r"(?:~|\$\w+|%\w+%)?/[\w.$-]+(?:/[\w.$-]+)+")



@dataclass(frozen=True, slots=True)
class Question:
    """What the ranking reads from a question, once per question."""

    text: str
    stems: frozenset[str]
    kind: str | None
    names: frozenset[str]  # stems of its names and figures


def asked_kind(question: str) -> str | None:
    """``date``, ``figure``, ``name``, ``place`` or None (the earliest cue wins)."""
    return earliest_kind(question, _KIND_CUES)


_OWNER = re.compile(
    r"\b(?:of|for)\s+(?:(?:the|a|an|its|their)\s+)?([^\W\d_][\w-]*)", re.IGNORECASE
)


def _names(question: str, terms: list[Term]) -> frozenset[str]:
    """Its names and figures, and what the asked property belongs to (the word after
    "of"/"for": the limit *for acetone*): what a neighbouring question changes."""
    # The first word is capitalised by grammar; a name there is rare in a question.
    lead = len(question) - len(question.lstrip())
    owners = {m.group(1).lower() for m in _OWNER.finditer(question)}
    return frozenset(
        t.stem
        for t in terms
        if t.numeric or (t.capitalised and t.start != lead) or t.word.lower() in owners
    )


def read_question(question: str) -> Question:
    terms = content_terms(question)
    # The subject an option or property belongs to ("curl" in "curl --silent") is a
    # name too: a sentence about another program answers another question.
    subjects = {stem(w) for w in read_focus(question).subjects}
    return Question(
        question,
        frozenset(t.stem for t in terms),
        asked_kind(question),
        _names(question, terms) | (subjects & {t.stem for t in terms}),
    )


def _is_of_kind(term: Term, kind: str, opening: bool) -> bool:
    low = term.word.lower().rstrip(".’'")
    if kind == "figure":
        return term.numeric or low in FIGURE_WORDS
    if kind == "date":
        return (
            bool(_YEAR.match(low) or _ORDINAL.match(low))
            or low in _MONTHS
            or low in _DATE_WORDS
        )
    # A name or a place: a capitalised word that is not merely the sentence's first.
    return term.capitalised and not opening and not term.numeric


def supplies(sentence: str, question: Question) -> bool:
    """Whether ``sentence`` gives something of the asked kind the question lacks
    ("in 2026" does not answer "what changed in 2026?"). True when no kind is asked."""
    if question.kind is None:
        return True
    if question.kind == "place" and _PATH.search(sentence):
        return True  # "$HOME/.config/pip/pip.conf": in a manual, a place
    terms = content_terms(sentence)
    lead = len(sentence) - len(sentence.lstrip())
    for term in terms:
        opening = term.start == lead
        if (
            _is_of_kind(term, question.kind, opening)
            and term.stem not in question.stems
        ):
            return True
    return False


def idf_weights(question: Question, pool: Iterable[frozenset[str]]) -> dict[str, float]:
    """Weight of each question stem over the candidate sentences (``pool``): 1 + BM25's
    idf, so every shared stem counts and a rare one counts more. A stem no candidate
    has is left out: it cannot tell one candidate from another."""
    sets = list(pool)
    n = len(sets)
    out = {}
    for s in question.stems:
        df = sum(1 for cand in sets if s in cand)
        if df:
            out[s] = 1 + math.log(1 + (n - df + 0.5) / (df + 0.5))
    return out


def overlap(
    weights: dict[str, float],
    present: frozenset[str],
    nearby: frozenset[str] = frozenset(),
) -> float:
    """Weighted share (0..1) of the question's stems found in ``present``; a stem
    found only ``nearby`` (in the title) counts half."""
    # fsum: the weights come in the order of a set of stems (it follows the hash seed),
    # and a plain float sum differs in its last bits by order, enough to reorder ties.
    total = math.fsum(weights.values())
    if not total:
        return 0.0
    found = math.fsum(
        w if s in present else w / 2
        for s, w in weights.items()
        if s in present | nearby
    )
    return found / total


def coverage(question: Question, present: frozenset[str] | set[str]) -> float:
    """Plain share of the question's stems found in ``present``: is it on the subject?"""
    return (
        len(question.stems & present) / len(question.stems) if question.stems else 0.0
    )


def name_share(question: Question, present: frozenset[str] | set[str]) -> float:
    """Share of the question's names and figures in ``present`` (1.0 when it has none)."""
    if not question.names:
        return 1.0
    return len(question.names & present) / len(question.names)


def sentence_score(
    *, weighted: float, typed: bool, named: bool, kind: str | None, rank: int
) -> float:
    """One number to sort candidates by. A sentence of the asked kind counts half as
    much again; one missing any of the question's names counts half (it is likely
    about a neighbouring subject); retrieval order is a good prior, not the answer.

        >>> sentence_score(weighted=0.8, typed=True, named=False, kind="figure", rank=0)
        0.6000000000000001
    """
    weight = 1.5 if typed and kind else 1.0
    return weighted * weight * (1.0 if named else 0.5) / (1 + 0.1 * rank)
