"""Names and years in their slots, as case tables."""

from __future__ import annotations

import pytest

from tether.verify import check

NAME_CASES = [
    ("Smith discovered penicillin in 1928.", "Fleming discovered penicillin in 1928.",
     "contradicted", "name:Smith vs Fleming"),
    ("The treaty was signed by Rollo and Charles in the autumn.",
     "The treaty was signed by Rollo and Louis in the autumn.", "contradicted", "name:Charles vs Louis"),
    # The swapped-in name is elsewhere in the passage: still a swap.
    ("Their leader Richard swore fealty to the king.",
     "Their leader Rollo swore fealty to the king. Later Richard ruled the duchy.",
     "contradicted", "name:Richard vs Rollo"),
    ("The Normans defeated the Saxons at Hastings.", "The Saxons defeated the Normans at Hastings.",
     "contradicted", "name:"),
    ("The report on the flood was written by Jones.", "The report on the flood was written in spring.",
     "mentioned", "name:Jones not in passage"),
    ("Marie Curie won the prize.", "The prize was won by Marie Curie in 1911.", "supported", None),
    ("Harold was killed at Hastings.", "King Harold II was killed at Hastings.", "supported", None),
    ("Water boils at sea level.", "At sea level water boils.", "supported", None),
    ("Researchers in Oslo measured the glacier.", "Researchers in Bergen measured the glacier.",
     "contradicted", "name:Oslo vs Bergen"),
    ("The river Rhine flows through Basel.", "THE RIVER RHINE FLOWS THROUGH BASEL.", "supported", None),
]  # fmt: skip


@pytest.mark.parametrize("sentence, passage, outcome, reason", NAME_CASES)
def test_names(settings, sentence, passage, outcome, reason):
    result = check(sentence, passage, settings=settings)
    assert result.outcome == outcome, result
    if reason is not None:
        assert any(reason in r for r in result.reasons), result.reasons
        assert result.checker == "names"


YEAR_CASES = [
    ("The bridge opened in 1932.", "The bridge opened in 1931.", "contradicted", "year:1932 vs 1931"),
    ("The bridge opened in 1932.", "The bridge opened to traffic after years of work.",
     "mentioned", "year:1932 not in passage"),
    ("The museum opened in the 1990s.", "The museum opened in the 1980s.", "contradicted",
     "year:1990s vs 1980s"),
    ("The law passed in 1998 and was repealed in 2004.",
     "The law passed in 1998 and was repealed in 2004.", "supported", None),
    ("The law was repealed in 2004.", "The law passed in 2004 and was repealed in 2011.",
     "contradicted", "year:2004 vs 2011"),
    ("The 2019-20 season was cut short.", "The 2019\u201320 season was cut short.", "supported", None),
    ("The 2019-20 season was cut short.", "The 2018\u201319 season was cut short.", "contradicted",
     "year:2019-2020"),
]  # fmt: skip


@pytest.mark.parametrize("sentence, passage, outcome, reason", YEAR_CASES)
def test_years(settings, sentence, passage, outcome, reason):
    result = check(sentence, passage, settings=settings)
    assert result.outcome == outcome, result
    if reason is not None:
        assert any(reason in r for r in result.reasons), result.reasons
        assert result.checker == "years"


def test_a_2026_figure_quoted_as_the_2027_figure_is_wrong(settings):
    passage = "Sales reached 412,500 units in 2026 and 398,000 units in 2027."
    good = check("Sales reached 412,500 units in 2026.", passage, settings=settings)
    bad = check("Sales reached 412,500 units in 2027.", passage, settings=settings)
    assert good.outcome == "supported"
    assert bad.outcome == "contradicted"
    assert "figure:412500 is the 2026 figure, not 2027" in bad.reasons
