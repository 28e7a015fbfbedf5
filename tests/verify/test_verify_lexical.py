"""The base lexical test: verbatim after normalising, coverage windows, spans, tokens."""

from __future__ import annotations

import pytest

from tether.text.sentences import sentence_ranges
from tether.text.terms import stem
from tether.verify import check, prepare_passage
from tether.verify.lexical import find_verbatim, prepare, verbatim_form

PASSAGE = (
    "The river floods every spring.  Farmers move their cattle to the hills.\n"
    'The mayor called the new dam "a turning point" in 2019\u20132020.'
)


@pytest.mark.parametrize(
    "sentence",
    [
        "The river floods every spring.",
        "The  river\tfloods\n every   spring.",  # whitespace only
        "  the river floods every spring  ",  # case, padding, no full stop
        "THE RIVER FLOODS EVERY SPRING.",  # case only
        "The\u00a0river floods every\u2009spring.",  # non-breaking and thin spaces
        "The mayor called the new dam \u201ca turning point\u201d in 2019-2020.",  # quotes, dash
        "The mayor called the new dam 'a turning point' in 2019\u20142020.",
        "The\x00river floods every spring\x1b.",  # control characters
    ],
)
def test_whitespace_quote_dash_and_case_differences_are_supported(settings, sentence):
    result = check(sentence, PASSAGE, settings=settings)
    assert result.outcome == "supported", result
    assert result.checker == "verbatim"
    assert result.score == 1.0


def test_verbatim_span_maps_back_to_the_original_passage(settings):
    passage = "Intro.   The  river\n\nfloods   every spring. Outro."
    result = check("The river floods every spring.", passage, settings=settings)
    assert result.checker == "verbatim"
    start, end = result.span  # type: ignore[misc]
    assert passage[start:end] == "The  river\n\nfloods   every spring."
    result = check("The river floods every spring", passage, settings=settings)
    assert result.span == (start, end - 1)  # no stop in the sentence, none in the span


def test_overlap_span_is_the_shortest_run_of_whole_sentences(settings):
    passage = "Bees make honey. The hive holds forty thousand bees in summer. Wasps sting."
    result = check("In summer the hive holds forty thousand bees.", passage, settings=settings)
    assert result.outcome == "supported"
    assert result.checker == "lexical"
    start, end = result.span  # type: ignore[misc]
    assert passage[start:end] == "The hive holds forty thousand bees in summer."


def test_span_can_straddle_two_sentences(settings):
    passage = "Ada wrote the first program. She worked with Babbage. Later she died young."
    result = check("Ada wrote the first program with Babbage.", passage, settings=settings)
    start, end = result.span  # type: ignore[misc]
    assert passage[start:end] == "Ada wrote the first program. She worked with Babbage."


@pytest.mark.parametrize(
    "needle, hay, found",
    [
        ("412500", "the total was 14125001 units", False),  # digit boundary
        ("412500", "the total was 412500 units", True),
        ("total was 412.5", "the total was 412.55 units", False),
        ("cat sat", "the concatsat and the cat sat", True),
        ("cat", "concatenate", False),
        ("lead", "misleading", False),
    ],
)
def test_verbatim_respects_word_and_digit_boundaries(needle, hay, found):
    assert (find_verbatim(needle, prepare(hay)) is not None) is found


def test_verbatim_fragment_is_still_read_in_context(settings):
    passage = "There is no evidence that vitamin D cures the flu."
    result = check("Vitamin D cures the flu.", passage, settings=settings)
    assert result.outcome == "contradicted"


def test_empty_sentence_is_unsupported(settings):
    for sentence in ("", "   ", "\n\t"):
        result = check(sentence, PASSAGE, settings=settings)
        assert (result.outcome, result.score, result.span) == ("unsupported", 0.0, None)


def test_stop_words_only_is_unsupported(settings):
    result = check("It is what it is, and so it was.", "It is what it is, and so it was.", settings=settings)
    assert result.outcome == "unsupported"
    assert result.reasons == ("no content words",)


def test_empty_passage_is_unsupported(settings):
    assert check("The river floods.", "", settings=settings).outcome == "unsupported"


def test_unrelated_passage_is_unsupported(settings):
    result = check("Penguins cannot fly.", PASSAGE, settings=settings)
    assert (result.outcome, result.span) == ("unsupported", None)


def test_mentioned_when_the_subject_is_there_but_the_claim_is_not(settings):
    passage = "The harbour bridge was painted green. It carries two lanes of traffic."
    result = check("The harbour bridge collapsed during the storm of the century.", passage, settings=settings)
    assert result.outcome == "mentioned"
    assert result.span is not None


def test_score_is_coverage_of_content_words(settings):
    result = check("Farmers move goats to the hills.", PASSAGE, settings=settings)
    assert result.score == pytest.approx(3 / 4)


@pytest.mark.parametrize(
    "a, b",
    [("discovered", "discovers"), ("riding", "ride"), ("running", "run"), ("agreed", "agree"),
     ("largely", "large"), ("cities", "city"), ("Rollo's", "Rollo")],
)  # fmt: skip
def test_stemming_meets_inflections(a, b):
    assert stem(a.lower()) == stem(b.lower())


def test_figures_become_one_coverage_key():
    a = prepare("They raised 1.05 million dollars.")
    b = prepare("They raised 1,050,000 dollars.")
    assert "#1050000" in a.key_set and "#1050000" in b.key_set
    assert "#1.5" in prepare("It is 1.5 m.").key_set
    assert "#15" not in prepare("It is 1.5 m.").key_set


def test_prepare_passage_is_cached_by_text():
    text = "A cached passage about herons and their nests."
    assert prepare_passage(text) is prepare_passage(text)


def test_verbatim_form_drops_final_stop_and_spacing():
    assert verbatim_form(prepare("  The River  floods!  ")) == "the river floods"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Dr. Smith came. He left.", ["Dr. Smith came.", "He left."]),
        ("It costs approx. five euros. Fine.", ["It costs approx. five euros.", "Fine."]),
        ("Born in the U.S. in 1950. He moved.", ["Born in the U.S. in 1950.", "He moved."]),
        ("published in the 19th century.First for Women is a magazine.",
         ["published in the 19th century.", "First for Women is a magazine."]),
        ("东京是首都。大阪很大。", ["东京是首都。", "大阪很大。"]),
        ("Line one\n\nLine two", ["Line one", "Line two"]),
        ('He said "go." Then he left.', ['He said "go."', "Then he left."]),
    ],
)  # fmt: skip
def test_sentence_split(text, expected):
    assert [text[a:b] for a, b in sentence_ranges(text)] == expected


def test_generator_citation_markers_are_not_part_of_the_claim(settings):
    passage = "The dam holds two million litres of water."
    result = check("The dam holds two million litres [1].", passage, settings=settings)
    assert result.outcome == "supported"
    result = check("The dam [2, 3] holds two million litres.", passage, settings=settings)
    assert result.outcome == "supported"
