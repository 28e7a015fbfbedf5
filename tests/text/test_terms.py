"""The one stopword list and stemmer: every stage reads a word the same way."""

from __future__ import annotations

import pytest

from tether.retrieve.search import query_terms
from tether.text.terms import QUERY_STOPWORDS, QUESTION_WORDS, STOPWORDS, content_terms, stem, stems
from tether.verify.lexical import prepare


@pytest.mark.parametrize(
    "a, b",
    [("rides", "riding"), ("stopped", "stop"), ("policies", "policy"), ("carried", "carries"),
     ("agreed", "agree"), ("Rollo's", "rollo"), ("Hervé", "herve"), ("largely", "large")],
)  # fmt: skip
def test_inflections_meet(a: str, b: str) -> None:
    assert stem(a) == stem(b)


@pytest.mark.parametrize("a, b", [("order", "ord"), ("summer", "sum"), ("early", "ear"),
                                  ("station", "stat"), ("family", "fami")])
def test_distinct_words_stay_apart(a: str, b: str) -> None:
    # The verifier must not take one word for another: no -er/-ation/short -ly stripping.
    assert stem(a) != stem(b)


def test_figures_and_foreign_words_are_not_stemmed() -> None:
    assert stem("1980s") == "1980s"
    assert stem("Москвы") == "москвы"


def test_question_words_are_query_stopwords_only() -> None:
    assert QUESTION_WORDS <= QUERY_STOPWORDS and not QUESTION_WORDS & STOPWORDS
    assert STOPWORDS <= QUERY_STOPWORDS
    assert "not" in STOPWORDS  # negators: compared by the polarity check, not coverage


def test_retrieval_probe_and_verifier_share_stems_and_stopwords() -> None:
    question = "According to the document, who replaced the Norvale boilers?"
    assert query_terms(question) == ["replaced", "norvale", "boilers"]
    assert [t.stem for t in content_terms(question)] == ["replac", "norval", "boiler"]
    keys = {k for k in prepare("Norvale replaced the boilers.").keys if k}
    assert keys == stems(question) == {"replac", "norval", "boiler"}


@pytest.mark.parametrize("text", ["Why isn't the lock released?", "It doesn't start",
                                  "We'll see, you've been", "They aren't; it wouldn't"])
def test_a_contractions_halves_are_not_content_words(text: str) -> None:
    # The probe would otherwise report "'isn' occurs nowhere in the collection".
    halves = {"isn", "doesn", "ll", "ve", "aren", "wouldn", "t"}
    assert not {t.word.lower() for t in content_terms(text)} & halves
