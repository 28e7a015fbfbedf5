"""Fuzz the text stages: segmentation, the verifier's sentence splitter and figure
extraction, the support check itself, and injection detection. Every span must be a
valid range of the input; nothing may raise or hang."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from tether.instructions import detect as injection
from tether.text.sentences import sentence_spans, split_sentences
from tether.config import Settings
from tether.ingest.extract.html import detect_html_hidden
from tether.ingest.segment import passage_spans
from tether.verify import check
from tether.text import sentences as vtext
from tether.verify.figures import extract_figures

from .fuzzhelp import bounded, fuzz_settings
from .strategies import hostile_text

SETTINGS = Settings()
OUTCOMES = {"supported", "contradicted", "mentioned", "unsupported"}


def _assert_spans(text: str, spans: list, lo: int = 0, hi: int | None = None) -> None:
    hi = len(text) if hi is None else hi
    last = lo
    for span in spans:
        assert last <= span.start < span.end <= hi, (span, last, hi)
        piece = text[span.start : span.end]
        assert piece == piece.strip() and piece  # trimmed, never empty
        last = span.end


@fuzz_settings(300)
@given(hostile_text)
def test_sentence_spans(text: str) -> None:
    spans = bounded("segment.sentence_spans", 2, sentence_spans, text)
    _assert_spans(text, spans)
    covered = {i for s in spans for i in range(s.start, s.end)}
    # Every non-space character is in some sentence: segmentation loses no text.
    assert all(i in covered for i, c in enumerate(text) if not c.isspace())
    assert split_sentences(text) == [text[s.start : s.end] for s in spans]


@fuzz_settings(200)
@given(hostile_text, st.data())
def test_sentence_spans_of_a_window(text: str, data: st.DataObject) -> None:
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, len(text)))
    _assert_spans(text, bounded("segment.sentence_spans", 2, sentence_spans, text, lo, hi), lo, hi)


@fuzz_settings(300)
@given(hostile_text, st.integers(1, 400), st.lists(st.integers(-5, 250), max_size=5))
def test_passage_spans(text: str, max_chars: int, breaks: list[int]) -> None:
    spans = bounded("segment.passage_spans", 2, passage_spans, text, max_chars=max_chars,
                    breaks=breaks)
    _assert_spans(text, spans)
    for span in spans:  # a passage never straddles a hard break (a page edge)
        assert not any(span.start < b < span.end for b in breaks if 0 < b < len(text))
    # Passages are runs of whole sentences: together they hold every non-space character.
    assert sum(1 for c in text if not c.isspace()) == sum(
        1 for s in spans for c in text[s.start : s.end] if not c.isspace()
    )


@fuzz_settings(300)
@given(hostile_text)
def test_verifier_sentence_splitter(text: str) -> None:
    ranges = bounded("verify.split_sentences", 2, vtext.sentence_ranges, text)
    last = 0
    for start, end in ranges:
        assert last <= start < end <= len(text)
        last = end


@fuzz_settings(300)
@given(hostile_text)
@example("one hundred " * 400)  # found: 100**400 overflowed float() (OverflowError)
def test_extract_figures(text: str) -> None:
    figures = bounded("verify.extract_figures", 2, extract_figures, text)
    for figure in figures:
        assert 0 <= figure.start < figure.end <= len(text), figure
    assert [f.start for f in figures] == sorted(f.start for f in figures)


@fuzz_settings(200)
@given(hostile_text, hostile_text)
@example("It is " + "one hundred " * 400 + "ppm.", "It is 5 ppm.")
def test_check_gives_one_of_four_outcomes(sentence: str, passage: str) -> None:
    result = bounded("verify.check", 3, check, sentence, passage, settings=SETTINGS)
    assert result.outcome in OUTCOMES


@fuzz_settings(300)
@given(hostile_text)
def test_injection_detection(text: str) -> None:
    flags = bounded("injection.detect", 2, injection.detect, text)
    assert set(flags) <= set(injection.CODES) and len(set(flags)) == len(flags)
    assert isinstance(bounded("injection.is_instruction_like", 2, injection.is_instruction_like,
                              text), bool)
    hidden = bounded("injection.detect_html_hidden", 2, detect_html_hidden,
                     f"<div style='display:none'>{text}</div><!-- {text} -->")
    assert set(hidden) <= set(injection.CODES)
