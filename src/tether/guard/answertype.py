"""What kind of answer a question asks for, and whether a sentence supplies one.

The answer check's reading (to refuse an answer that does not answer). The
extractive generator ranks with its own table (``generate.rank``), so this gate can
catch it (docs/DESIGN.md); both read a question's kind the one way ``text.asked`` does.

    >>> answer_type("When did Norvale replace its thermometers?")
    'date'
    >>> answer_type("When may an operator silence an alarm?") is None
    True
    >>> supplies("Boiling point: about 64.7 °C.", "figure", "What is the boiling point?")
    True
    >>> supplies("The limit was revised in 2026.", "date", "What changed in 2026?")
    False
"""

from __future__ import annotations

import re

from ..text.asked import ASKS_WHO, WHEN_DATED, earliest_kind, either
from ..text.english import (
    FIGURE_CUE_WORDS,
    FIGURE_TOKEN_WORDS,
    HOW_MEASURES,
    MEASURE_NOUNS,
    MONTH_ABBREVIATIONS,
    PERSON_NOUNS,
    PLACE_NOUNS,
)
from ..text.terms import content_terms, stem

__all__ = ["answer_type", "has_answer_type", "supplies", "typed_tokens"]

# What the guard counts as each kind of question (the generator reads its own table,
# text.asked reads either). "When may/should/can …" asks for a condition, not a date.
_TYPE_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("date", re.compile(rf"\b(?:{WHEN_DATED}|what year|which year|what date|since when|how old)\b", re.IGNORECASE)),
    (
        "figure",
        re.compile(
            rf"\b(?:how {either(HOW_MEASURES)}|what {either(MEASURE_NOUNS + ('fraction', 'limit'))}|"
            r"at what (?:temperature|concentration|level)|limits?|threshold|boiling point|"
            r"flash point|melting point|exposure limit|ppm|mg)\b",
            re.IGNORECASE,
        ),
    ),
    ("name", re.compile(rf"\b(?:{ASKS_WHO}|which {either(PERSON_NOUNS)})\b", re.IGNORECASE)),
    ("place", re.compile(rf"\b(?:where|(?:what|which) {either(PLACE_NOUNS)})\b", re.IGNORECASE)),
)
_HAS_TYPE: dict[str, re.Pattern[str]] = {
    "date": re.compile(
        rf"\b(1[5-9]\d\d|20\d\d|2100)\b|\b{either(MONTH_ABBREVIATIONS)}[a-z]*\.? \d",
        re.IGNORECASE,
    ),
    "figure": re.compile(rf"\d|\b{either(FIGURE_CUE_WORDS)}\b", re.IGNORECASE),
    "name": re.compile(r"(?<=[\w,;:] )[A-Z][\w.-]+"),
    "place": re.compile(r"(?<=[\w,;:] )[A-Z][\w.-]+"),
}
# Tokens that can *be* an answer of each kind. Dates include decades and centuries
# ("1050s", "the 10th century"), which the sentence-level cue above leaves out.
_TOKEN: dict[str, re.Pattern[str]] = {
    "date": re.compile(
        rf"\b(\d{{3,4}}s?|\d{{1,2}}(?:st|nd|rd|th)|{either(MONTH_ABBREVIATIONS)}[a-z]*|"
        r"centur(?:y|ies)|decades?)\b",
        re.IGNORECASE,
    ),
    "figure": re.compile(rf"\b\d[\d.,]*\w*|\b{either(FIGURE_TOKEN_WORDS)}\b", re.IGNORECASE),
    # A capitalised word that does not open the sentence (or opens it, followed by
    # another capitalised word: "Rollo's men", "King Charles").
    "name": re.compile(r"(?<=[^\s.!?]\s)[A-Z][\w’'.-]*|^[A-Z][\w’'.-]*(?=\s+[A-Z])"),
}
# In a manual a place is as often a path ("$HOME/.config/pip/pip.conf") as a name.
_PATH = r"(?:~|\$\w+|%\w+%)?/[\w.$-]+(?:/[\w.$-]+)+"
_TOKEN["place"] = re.compile(_TOKEN["name"].pattern + "|" + _PATH)
_HAS_TYPE["place"] = re.compile(_HAS_TYPE["place"].pattern + "|" + _PATH)


def answer_type(question: str) -> str | None:
    """The kind of answer a question asks for: date, figure, name, place or None.

    The cue nearest the start wins: in "Who was the leader when the Franks came?"
    the question word is "who"; "when" only dates the question's condition.
    """
    return earliest_kind(question, _TYPE_CUES)


def has_answer_type(sentence: str, kind: str | None) -> bool:
    """Whether ``sentence`` contains anything of ``kind`` at all (a cheap first cut)."""
    return kind is None or bool(_HAS_TYPE[kind].search(sentence))


def typed_tokens(sentence: str, kind: str) -> list[str]:
    """The tokens of ``sentence`` that could be an answer of ``kind``."""
    return [m.group(0) for m in _TOKEN[kind].finditer(sentence)]


def supplies(sentence: str, kind: str | None, question: str) -> bool:
    """Whether ``sentence`` gives an answer of ``kind`` that the question does not
    already contain: "in 2026" does not answer "what changed in 2026?"."""
    if kind is None:
        return True
    asked = {t.stem for t in content_terms(question)}
    for token in typed_tokens(sentence, kind):
        if stem(token.rstrip(".’'")) not in asked:
            return True
    return False
