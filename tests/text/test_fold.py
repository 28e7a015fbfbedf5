"""Folding: length-preserving for offsets, loose for containment."""

from __future__ import annotations

import pytest

from tether.text.fold import DOUBLE_QUOTES, SINGLE_QUOTES, collapse, fold, loose_fold, translate


def test_fold_keeps_length_and_unifies_quotes_dashes_spaces() -> None:
    text = "“Topkapı” — İzmir\u00a0’s"
    folded = fold(translate(text))
    assert len(folded) == len(text)
    assert folded == "'topkapi' - İzmir 's"


@pytest.mark.parametrize("mark", SINGLE_QUOTES + DOUBLE_QUOTES)
def test_every_quote_mark_folds_to_one(mark: str) -> None:
    assert translate(mark) == "'"


def test_collapse_maps_back_to_original_offsets() -> None:
    c = collapse("a   b  c")
    assert c.text == "a b c"
    assert c.original(c.text.index("c")) == 7


def test_loose_fold_is_case_width_quote_and_space_insensitive() -> None:
    assert loose_fold("  The “ＦＬＡＳＨ”\n point ") == "the 'flash' point"
    assert loose_fold("Straße") == loose_fold("STRASSE")
