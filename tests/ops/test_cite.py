"""Citation resolution: exact, relocated, changed, missing; never a crash, never fuzzy."""

from __future__ import annotations

import dataclasses
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from citehelp import cite, overlapping, put_text
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tether import ids
from tether.errors import InputError
from tether.ingest.reindex import reindex
from tether.ops.cite import citation_from_json, locate, resolve
from tether.records import Passage, to_json
from tether.store.sqlite import SQLiteStore

TEXT = (
    "Methanol boils at about 64.7 °C at sea level. It is toxic when swallowed.\n\n"
    "Wear nitrile gloves when handling it. Store it away from oxidisers.\n\n"
    "The exposure limit is 200 ppm over eight hours."
)


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "store.db")
    yield s
    s.close()


@contextmanager
def fresh_store() -> Iterator[SQLiteStore]:
    # Hypothesis runs many examples per test: each gets its own store file.
    with tempfile.TemporaryDirectory() as tmp:
        s = SQLiteStore(Path(tmp) / "store.db")
        try:
            yield s
        finally:
            s.close()


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _range_of(text: str, quote: str) -> tuple[int, int]:
    start = text.index(quote)
    return start, start + len(quote)


def _edit(store, document, text):
    """Re-ingest ``document`` with edited ``text`` (a new version)."""
    assert store.version(document.doc_id).text != text, "the edit changed nothing"
    return put_text(store, text, source=document.source, kind=document.kind, process=document.process)


# -- the four statuses --------------------------------------------------------------------


def test_exact_gives_the_range_the_quote_and_the_covering_passages(store):
    document, version = put_text(store, TEXT, passage_chars=80)
    citation = cite(document, version, *_range_of(TEXT, "Wear nitrile gloves when handling it."))
    result = resolve(citation, store)
    assert result.status == "exact"
    assert (result.version, result.start, result.end) == (version.version, citation.start, citation.end)
    assert result.quote == citation.quote and result.match == "verbatim"
    current = store.passages(document.doc_id, version.version)
    assert result.passages == overlapping(current, citation.start, citation.end) != ()
    assert result.source == document.source and result.kind == "original"


def test_a_range_spanning_passages_maps_onto_all_of_them(store):
    document, version = put_text(store, TEXT, passage_chars=40)
    start = TEXT.index("toxic")
    end = TEXT.index("oxidisers") + len("oxidisers")
    result = resolve(cite(document, version, start, end), store)
    assert result.status == "exact"
    assert len(result.passages) >= 2
    assert result.passages == overlapping(store.passages(document.doc_id, version.version), start, end)


def test_edit_elsewhere_relocates_with_the_new_range(store):
    document, version = put_text(store, TEXT)
    citation = cite(document, version, *_range_of(TEXT, "Wear nitrile gloves when handling it."))
    edited = "Safety summary, revised in 2026.\n\n" + TEXT.replace("eight hours", "8 hours")
    _, new_version = _edit(store, document, edited)
    result = resolve(citation, store)
    assert result.status == "relocated" and result.match == "verbatim"
    assert result.version == new_version.version
    assert (result.start, result.end) == _range_of(edited, citation.quote)
    assert edited[result.start : result.end] == result.quote == citation.quote
    assert result.passages == overlapping(
        store.passages(document.doc_id, new_version.version), result.start, result.end
    )
    assert "newer version" in result.note


def test_removed_quote_resolves_changed_to_the_document(store):
    document, version = put_text(store, TEXT)
    citation = cite(document, version, *_range_of(TEXT, "It is toxic when swallowed."))
    _, new_version = _edit(store, document, TEXT.replace(" It is toxic when swallowed.", ""))
    result = resolve(citation, store)
    assert result.status == "changed"
    assert result.version == new_version.version and result.doc_id == document.doc_id
    assert (result.start, result.end, result.quote, result.passages) == (None, None, None, ())
    assert "passage changed" in result.note


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace("64.7 °C", "64.8 °C"),  # one figure: different words
        lambda t: t.replace("boils at", "Boils at"),  # case is not whitespace
        lambda t: t.replace("boils at", "boilsat"),  # removing a space joins words
        lambda t: t.replace("at about", "at approximately"),
    ],
)
def test_never_a_fuzzy_match(store, edit):
    document, version = put_text(store, TEXT)
    citation = cite(document, version, *_range_of(TEXT, "Methanol boils at about 64.7 °C at sea level."))
    edited = edit(TEXT)
    assert edited != TEXT
    _edit(store, document, edited)
    assert resolve(citation, store).status == "changed"


def test_whitespace_and_quote_style_only_relocate_as_normalized(store):
    text = 'The sign said "No entry" and it\'s  final.\nNothing else.'
    document, version = put_text(store, text)
    citation = cite(document, version, *_range_of(text, 'The sign said "No entry" and it\'s  final.'))
    edited = "Preface.\n\nThe sign said “No entry”\nand it’s final.\nNothing else."
    _, new_version = _edit(store, document, edited)
    result = resolve(citation, store)
    assert result.status == "relocated" and result.match == "normalized"
    assert result.quote == "The sign said “No entry”\nand it’s final."
    assert edited[result.start : result.end] == result.quote
    assert "whitespace or quote style" in result.note


def test_a_quote_that_ran_out_of_a_code_example_relocates_across_its_fence(store):
    # Before HTML code was fenced (ADR 0056), an example's last line and the prose
    # after it were one line; the quote is found across the fence line, and nowhere
    # a fence is not.
    text = "Put it in a section.\n</Directory> In order to implement the handler, use this.\n"
    document, version = put_text(store, text)
    citation = cite(document, version, *_range_of(text, "</Directory> In order to implement"))
    edited = "Put it in a section.\n```\n</Directory>\n```\nIn order to implement the handler, use this.\n"
    _edit(store, document, edited)
    result = resolve(citation, store)
    assert result.status == "relocated" and result.match == "normalized"
    assert result.quote == "</Directory>\n```\nIn order to implement"
    assert locate("</Directory>\n~~~\nIn order to implement", "</Directory> In order", near=0) is None


def test_deleted_document_is_missing(store):
    document, version = put_text(store, TEXT)
    citation = cite(document, version, 0, 8)
    store.delete_document(document.doc_id)
    result = resolve(citation, store)
    assert result.status == "missing"
    assert (result.version, result.start, result.quote, result.passages) == (None, None, None, ())


def test_an_unreadable_document_looks_exactly_like_a_missing_one(store):
    secret, secret_version = put_text(store, TEXT, source="https://ex.org/secret", acl=("finance",))
    citation = cite(secret, secret_version, 0, 8)
    denied = resolve(citation, store, principals=["public"])
    ghost = resolve(dataclasses.replace(citation, doc_id="doc_00000000000000000000"), store)
    assert denied.status == "missing"
    assert dataclasses.replace(denied, doc_id="x", note="") == dataclasses.replace(ghost, doc_id="x", note="")
    assert denied.note.replace(secret.doc_id, "ID") == ghost.note.replace(ghost.doc_id, "ID")
    assert resolve(citation, store, principals=["finance"]).status == "exact"


def test_a_gone_version_still_relocates_by_its_quote(store):
    document, version = put_text(store, TEXT)
    citation = cite(document, version, *_range_of(TEXT, "Store it away from oxidisers."))
    gone = dataclasses.replace(citation, version="sha256:" + "0" * 64)
    result = resolve(gone, store)
    assert result.status == "relocated" and (result.start, result.end) == (citation.start, citation.end)
    assert "no longer stored" in result.note


def test_repeated_quote_goes_to_the_occurrence_whose_surroundings_match(store):
    text = "Alpha section. Wear gloves. Alpha ends.\n\nBeta section. Wear gloves. Beta ends."
    document, version = put_text(store, text)
    second = text.rindex("Wear gloves.")
    citation = cite(document, version, second, second + len("Wear gloves."))
    # After the edit another occurrence sits exactly at the old offset; the nearest one
    # would be wrong, the one whose surroundings match the citation is right.
    pad = "y" * (second - len("Gamma. ") - 2) + "\n\n"
    edited = pad + "Gamma. Wear gloves. Gamma ends.\n\nBeta section. Wear gloves. Beta ends."
    assert edited.index("Wear gloves.") == second
    _edit(store, document, edited)
    result = resolve(citation, store)
    assert result.status == "relocated"
    assert result.start == edited.index("Beta section. Wear gloves.") + len("Beta section. ")
    assert "occurrences" in result.note


def test_equal_surroundings_fall_back_to_the_nearest_occurrence():
    text = "Wear gloves. " * 5
    found = locate(text, "Wear gloves.", near=27)
    assert found is not None and found[0] == 26 and found[3] == 5


def test_provenance_comes_back_with_the_resolution(store):
    document, version = put_text(
        store, TEXT, kind="transcribed", process="OCR: tesseract 5", passage_chars=60
    )
    result = resolve(cite(document, version, 0, 8), store)
    assert (result.kind, result.process) == ("transcribed", "OCR: tesseract 5")


def test_json_form_resolves_like_the_record(store):
    document, version = put_text(store, TEXT)
    citation = cite(document, version, 0, 8)
    assert resolve(to_json(citation), store) == resolve(citation, store)


# -- bad input ------------------------------------------------------------------------------


def _good() -> dict:
    quote = "Methanol"
    return {"doc_id": "doc_x", "version": "sha256:v", "start": 0, "end": 8, "quote": quote,
            "quote_hash": ids.quote_hash(quote)}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"doc_id": None}, "missing key 'doc_id'"),
        ({"quote_hash": None}, "missing key 'quote_hash'"),
        ({"start": "0"}, "'start' must be a integer"),
        ({"start": True}, "'start' must be a integer"),
        ({"end": 8.0}, "'end' must be a integer"),
        ({"version": 3}, "'version' must be a string"),
        ({"start": -1, "end": 7}, "not a range of text"),
        ({"start": 8, "end": 8, "quote": "", "quote_hash": ids.quote_hash("")}, "not a range of text"),
        ({"start": 2**60, "end": 2**60 + 8}, "not a range of text"),
        ({"end": 9}, "is 9 characters but the quote is 8"),
        ({"quote_hash": ids.quote_hash("Ethanol!")}, "quote_hash does not match"),
        ({"quote": "Ethanol!"}, "quote_hash does not match"),
        ({"quote": "        ", "quote_hash": ids.quote_hash("        ")}, "only whitespace"),
        ({"quote": "Methan\ud800l"}, "not valid Unicode"),
        ({"kind": "scanned"}, "unknown kind"),
        ({"region": 3}, "'region' must be a string or null"),
    ],
)
def test_a_broken_citation_is_a_clear_input_error(store, change, message):
    obj = {**_good(), **change}
    obj = {k: v for k, v in obj.items() if v is not None}
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace("[", r"\[")):
        resolve(obj, store)


def test_not_an_object_is_an_input_error(store):
    with pytest.raises(InputError, match="expected a citation object"):
        citation_from_json(["doc_x"])  # type: ignore[arg-type]


def test_a_record_is_checked_like_json(store):
    document, version = put_text(store, TEXT)
    forged = dataclasses.replace(cite(document, version, 0, 8), quote="Ethanol!")
    with pytest.raises(InputError, match="quote_hash"):
        resolve(forged, store)


def test_a_range_outside_the_text_is_a_defined_status(store):
    document, version = put_text(store, TEXT)
    quote = "Methanol"
    outside = dataclasses.replace(cite(document, version, 0, 8), start=10_000, end=10_008)
    result = resolve(outside, store)
    assert result.status == "relocated" and (result.start, result.end) == (0, 8)
    assert "does not hold the quote" in result.note
    absent = "Kerosene"
    bogus = dataclasses.replace(outside, quote=absent, quote_hash=ids.quote_hash(absent))
    result = resolve(bogus, store)
    assert result.status == "changed" and quote not in result.note


def test_unknown_document_and_version_are_defined_statuses(store):
    document, version = put_text(store, TEXT)
    ghost = {**to_json(cite(document, version, 0, 8)), "doc_id": "doc_unknown"}
    assert resolve(ghost, store).status == "missing"
    absent = "Kerosene"
    unknown = {**to_json(cite(document, version, 0, 8)), "version": "sha256:nope",
               "quote": absent, "quote_hash": ids.quote_hash(absent)}
    result = resolve(unknown, store)
    assert result.status == "changed" and "no longer stored" in result.note


# -- properties -------------------------------------------------------------------------------

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9)
_SENTENCE = st.lists(_WORD, min_size=2, max_size=14).map(lambda ws: " ".join(ws).capitalize() + ".")
_GAP = st.sampled_from([" ", " ", "\n", "\n\n", "  "])


@st.composite
def documents(draw: st.DrawFn) -> str:
    sentences = draw(st.lists(_SENTENCE, min_size=1, max_size=25))
    parts = [sentences[0]]
    for sentence in sentences[1:]:
        parts.append(draw(_GAP))
        parts.append(sentence)
    return "".join(parts)


@st.composite
def ranges(draw: st.DrawFn, text: str) -> tuple[int, int]:
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, min(len(text), start + 400)))
    assume(text[start:end].strip())
    return start, end


_PROPERTY = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@_PROPERTY
@given(data=st.data(), text=documents(), sizes=st.lists(st.integers(1, 3000), min_size=1, max_size=3))
def test_every_citation_resolves_exact_after_any_resegmentation(data, text, sizes):
    with fresh_store() as store:
        document, version = put_text(store, text, passage_chars=600)
        citations = [cite(document, version, *data.draw(ranges(text))) for _ in range(5)]
        for size in sizes:
            reindex(store, passage_chars=size)
            current = store.passages(document.doc_id, version.version)
            for citation in citations:
                result = resolve(citation, store)
                assert result.status == "exact"
                assert (result.start, result.end, result.quote) == (
                    citation.start, citation.end, citation.quote
                )
                assert result.passages == overlapping(current, citation.start, citation.end)
                # Every visible character of the quote is inside a returned passage.
                for offset in range(citation.start, citation.end):
                    if not text[offset].isspace():
                        assert any(
                            p.start <= offset < p.end for p in current if p.passage_id in result.passages
                        )


@_PROPERTY
@given(data=st.data(), text=documents())
def test_resolution_does_not_depend_on_the_segmentation_rules(data, text):
    # Any cut of the text into passages at all, not only whole sentences.
    cuts = sorted(set(data.draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=30))))
    bounds = [0, *cuts, len(text)]
    with fresh_store() as store:
        document, version = put_text(store, text)
        passages = [
            Passage(ids.passage_id_for(document.doc_id, version.version, a, b), document.doc_id, version.version, a, b,
                    text[a:b])
            for a, b in zip(bounds, bounds[1:]) if b > a
        ]
        assert store.replace_passages(document.doc_id, passages)
        for _ in range(5):
            citation = cite(document, version, *data.draw(ranges(text)))
            result = resolve(citation, store)
            assert result.status == "exact"
            assert result.passages == overlapping(passages, citation.start, citation.end)


@_PROPERTY
@given(data=st.data(), text=documents(), insert=st.lists(_SENTENCE, max_size=3).map(" ".join))
def test_edits_elsewhere_relocate_with_the_right_range(data, text, insert):
    start, end = data.draw(ranges(text))
    quote = text[start:end]
    # Replace some stretch that does not overlap the quote.
    if data.draw(st.booleans()) and start > 0:
        x = data.draw(st.integers(0, start))
        y = data.draw(st.integers(x, start))
    else:
        x = data.draw(st.integers(end, len(text)))
        y = data.draw(st.integers(x, len(text)))
    edited = text[:x] + insert + text[y:]
    assume(edited != text and edited.strip())
    # The right range is only defined when the quote is not repeated in the new text.
    assume(edited.count(quote) == 1)
    shift = len(insert) - (y - x) if y <= start else 0
    with fresh_store() as store:
        document, version = put_text(store, text)
        citation = cite(document, version, start, end)
        _, new_version = _edit(store, document, edited)
        result = resolve(citation, store)
        assert result.status == "relocated"
        assert (result.start, result.end) == (start + shift, end + shift)
        assert result.quote == quote == edited[result.start : result.end]
        assert result.version == new_version.version


@_PROPERTY
@given(data=st.data(), text=documents())
def test_a_claimed_match_always_returns_the_quoted_text(data, text):
    # Whatever happens to the document, exact/relocated never points at other words.
    start, end = data.draw(ranges(text))
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, min(len(text), a + 80)))
    edited = text[:a] + data.draw(st.sampled_from(["", " ", "x", "Zed."])) + text[b:]
    assume(edited.strip() and edited != text)
    with fresh_store() as store:
        document, version = put_text(store, text)
        citation = cite(document, version, start, end)
        _edit(store, document, edited)
        result = resolve(citation, store)
        if result.status in ("exact", "relocated"):
            assert result.quote == edited[result.start : result.end]
            if result.match == "verbatim":
                assert result.quote == citation.quote
            else:  # only a whitespace run may differ (no quote marks are made here)
                assert _squeeze(result.quote) == _squeeze(citation.quote)
        else:
            assert result.status == "changed" and citation.quote not in edited


_MESSY = st.text(alphabet="ab '’\"“\n\t.", min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(text=_MESSY, quote=_MESSY)
def test_locate_finds_exactly_the_whitespace_and_quote_style_variants(text, quote):
    assume(quote.strip())
    found = locate(text, quote, near=0)
    fold = str.maketrans({"’": "'", "“": '"'})
    variant = re.sub(r"\s+", " ", quote.translate(fold)) in re.sub(r"\s+", " ", text.translate(fold))
    assert (found is not None) == variant
    if found is not None:
        start, end, match, _ = found
        if match == "verbatim":
            assert text[start:end] == quote
        else:
            assert quote not in text
            assert re.sub(r"\s+", " ", text[start:end].translate(fold)) == re.sub(
                r"\s+", " ", quote.translate(fold)
            )
