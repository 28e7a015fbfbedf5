from hypothesis import given, settings
from hypothesis import strategies as st

from tether.ingest.segment import passage_spans, region_label
from tether.records import Region
from tether.text.sentences import sentence_spans, split_sentences


def test_sentences_respect_abbreviations_decimals_and_units():
    text = (
        "Methanol boils at about 64.7 °C. It is toxic, e.g. when swallowed. "
        "Dr. Smith and J. Doe agree! Is it safe? The U.S. limit is 200 ppm."
    )
    assert split_sentences(text) == [
        "Methanol boils at about 64.7 °C.",
        "It is toxic, e.g. when swallowed.",
        "Dr. Smith and J. Doe agree!",
        "Is it safe?",
        "The U.S. limit is 200 ppm.",
    ]


def test_lines_lists_and_headings_are_boundaries():
    text = "# Acetone\n\nFlash point -20 °C\n- Keep away from flames\n- Wear gloves\n\n[00:01:10] Welcome"
    assert split_sentences(text) == [
        "# Acetone", "Flash point -20 °C", "- Keep away from flames", "- Wear gloves", "[00:01:10] Welcome",
    ]


def test_unpunctuated_megabyte_line_is_cut_into_bounded_pieces():
    text = "word " * 200_000
    spans = sentence_spans(text)
    assert all(s.end - s.start <= 2_000 for s in spans)
    assert "".join(text[s.start : s.end] for s in spans).replace(" ", "") == text.replace(" ", "")


def test_passages_never_cross_page_breaks():
    text = "One sentence here. Another one there.\n\nPage two starts. And ends."
    page2 = text.index("Page two")
    spans = passage_spans(text, max_chars=1000, breaks=[page2])
    assert [text[s.start : s.end] for s in spans] == [
        "One sentence here. Another one there.", "Page two starts. And ends.",
    ]
    regions = (Region(0, page2, "page 1"), Region(page2, len(text), "page 2"))
    assert region_label(regions, spans[1].start) == "page 2"


_texts = st.lists(
    st.sampled_from(list("abc XY.!?\n\t-#•1,0\"'”)(") + ["e.g.", "Dr.", "64.7", "\n\n", "word "]),
    max_size=200,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_texts, st.integers(min_value=1, max_value=300), st.lists(st.integers(0, 400), max_size=4))
def test_spans_are_exact_ordered_and_within_the_text(text, max_chars, breaks):
    sentences = sentence_spans(text)
    for s in sentences:
        assert 0 <= s.start < s.end <= len(text)
        piece = text[s.start : s.end]
        assert piece == piece.strip() and piece
    assert all(a.end <= b.start for a, b in zip(sentences, sentences[1:]))
    passages = passage_spans(text, max_chars=max_chars, breaks=breaks)
    assert all(a.end <= b.start for a, b in zip(passages, passages[1:]))
    # Every non-space character is in exactly one passage.
    covered = "".join(text[p.start : p.end] for p in passages)
    assert sum(not c.isspace() for c in covered) == sum(not c.isspace() for c in text)
    for b in breaks:
        assert not any(p.start < b < p.end for p in passages)
