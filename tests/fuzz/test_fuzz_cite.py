"""Fuzz citation reading and resolution: any JSON is a ``Citation`` or an
``InputError``; resolving gives one of four statuses, and every range it returns is a
range of today's text holding the quote (verbatim, or up to whitespace and quote style)."""

from __future__ import annotations

import re

import pytest
from citehelp import cite, put_text
from hypothesis import given
from hypothesis import strategies as st

from tether import ids
from tether.errors import InputError
from tether.ops.cite import citation_from_json, locate, resolve
from tether.records import to_json
from tether.store.sqlite import SQLiteStore
from tether.text.fold import DOUBLE_QUOTES, SINGLE_QUOTES

from .fuzzhelp import bounded, fuzz_settings
from .strategies import any_json, hostile_text

TEXT = ("Methanol boils at 64.7 °C. It is “toxic” if swallowed.\n\n"
        "Store methanol  in a cool place. It is toxic. Keep the container shut.")
EDITED = TEXT.replace("  in", " in").replace("“toxic”", '"toxic"') + " Revised."
STATUSES = {"exact", "relocated", "changed", "missing"}
_STYLE = str.maketrans(dict.fromkeys(SINGLE_QUOTES, "'") | dict.fromkeys(DOUBLE_QUOTES, '"'))


def _folded(text: str) -> str:
    """What a normalized match promises: equal up to whitespace runs and quote style."""
    return re.sub(r"\s+", " ", text.translate(_STYLE))


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = SQLiteStore(tmp_path_factory.mktemp("fuzz") / "store.db")
    document, old = put_text(s, TEXT, passage_chars=40)
    put_text(s, EDITED, passage_chars=40)  # the cited version is now an old one
    yield s, document, old
    s.close()


def _check_resolution(store: SQLiteStore, resolution, quote: str) -> None:
    assert resolution.status in STATUSES
    if resolution.status in ("exact", "relocated"):
        today = store.version(resolution.doc_id, resolution.version)
        assert today is not None
        assert 0 <= resolution.start < resolution.end <= len(today.text)
        assert resolution.quote == today.text[resolution.start : resolution.end]
        if resolution.match == "verbatim":
            assert resolution.quote == quote
        else:
            assert _folded(resolution.quote) == _folded(quote)
    to_json(resolution)  # always serialisable


@fuzz_settings(300)
@given(any_json)
def test_any_json_is_a_citation_or_an_input_error(obj) -> None:
    try:
        citation = bounded("cite.citation_from_json", 2, citation_from_json, obj)
    except InputError:
        return
    assert 0 <= citation.start < citation.end and citation.end - citation.start == len(citation.quote)
    assert citation.quote_hash == ids.quote_hash(citation.quote)


@fuzz_settings(300)
@given(st.data())
def test_mutated_citations_resolve_or_are_refused(store, data: st.DataObject) -> None:
    s, document, old = store
    start = data.draw(st.integers(0, len(TEXT) - 1))
    end = data.draw(st.integers(start + 1, len(TEXT)))
    obj = to_json(cite(document, old, start, end))
    for key in data.draw(st.lists(st.sampled_from(sorted(obj)), max_size=3)):
        obj[key] = data.draw(any_json | st.integers(-5, 300) | hostile_text)
    if data.draw(st.booleans()):  # keep the hash consistent, so the range checks are reached
        quote = obj.get("quote")
        if isinstance(quote, str):
            try:
                obj["quote_hash"] = ids.quote_hash(quote)
            except UnicodeEncodeError:
                pass
    try:
        resolution = bounded("cite.resolve", 2, resolve, obj, s)
    except InputError:
        return
    _check_resolution(s, resolution, obj["quote"])


@fuzz_settings(300)
@given(hostile_text, st.data())
def test_locate_returns_a_range_holding_the_quote(text: str, data: st.DataObject) -> None:
    if not text:
        return
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    quote = text[start:end]
    # Sometimes perturb whitespace and quote style, as an edited document does.
    if data.draw(st.booleans()):
        quote = quote.replace(" ", data.draw(st.sampled_from([" ", "  ", "\n", "\t "])))
        quote = quote.replace('"', "“").replace("'", "’")
    found = bounded("cite.locate", 2, locate, text, quote, near=start,
                    before=text[max(0, start - 64) : start], after=text[end : end + 64])
    if found is None:
        assert quote not in text
        return
    lo, hi, match, count = found
    assert 0 <= lo <= hi <= len(text) and count >= 1
    if match == "verbatim":
        assert text[lo:hi] == quote
    else:
        assert _folded(text[lo:hi]) == _folded(quote)
