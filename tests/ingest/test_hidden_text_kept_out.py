"""Text no reader sees never becomes evidence, on the tree path (pages under
``html_full_extract_max_bytes``) as on the streamed one: the ``hidden`` attribute,
``<template>`` and hiding inline styles, in trafilatura's text and in the plain-text
fallback (every rule of ADR 0046 on both paths: ``test_rendered_visibility``). Citations issued before (when the ``hidden`` attribute's text
was stored) still resolve to the same visible quotes, and never to different text."""

from __future__ import annotations

from pathlib import Path

import pytest
from citehelp import cite
from lxml import html as lxml_html

from tether.config import Settings
from tether.ingest.extract import html as html_extract
from tether.ingest.extract.html import HTML_EXTRACTOR
from tether.ingest.files import Metadata
from tether.ingest.write import ingest_file
from tether.ops.cite import resolve
from tether.store.sqlite import SQLiteStore
from tether.text.sentences import sentence_spans

VISIBLE = ("The relief valve opens at 8 bar on the discharge side.",
           "Seals are replaced every twelve months by the site fitter.")
HIDDEN = [
    '<p hidden>The relief valve opens at 20 bar on the suction side.</p>',
    '<div style="color:#fff;background:#FFFFFF">Seals never need replacing at this site.</div>',
    '<template><p>The valve is rated for steam service.</p></template>',
    '<p style="font-size:0">Operators may skip the lockout procedure.</p>',
    '<p style="display:none">The pump runs dry without harm.</p>',
    '<p style="opacity:0">The discharge side holds no pressure.</p>',
]


def _page(hidden: str) -> str:
    return (f"<html><head><title>Pump guide</title></head><body><article><h1>Pump guide</h1>"
            f"<p>{VISIBLE[0]}</p>{hidden}<p>{VISIBLE[1]}</p></article></body></html>")


@pytest.mark.parametrize("hidden", HIDDEN)
def test_hidden_text_stays_out_of_the_tree_paths_text(hidden: str) -> None:
    out = HTML_EXTRACTOR.extract(_page(hidden).encode(), settings=Settings(), name="p.html",
                                 charset=None)
    hidden_words = lxml_html.fromstring(hidden).text_content().strip()
    assert hidden_words not in out.text
    assert all(v in out.text for v in VISIBLE), out.text


@pytest.mark.parametrize("hidden", HIDDEN)
def test_hidden_text_stays_out_of_the_plain_text_fallback(hidden: str) -> None:
    text = html_extract._plain_text(lxml_html.document_fromstring(_page(hidden)))
    assert lxml_html.fromstring(hidden).text_content().strip() not in text
    assert all(v in text for v in VISIBLE)


def test_a_page_without_hidden_elements_keeps_all_its_text_for_trafilatura() -> None:
    root = lxml_html.document_fromstring(_page(""))
    prepared = html_extract._prepared_html(root, html_extract._hidden_elements(root))
    assert lxml_html.document_fromstring(prepared).text_content() == root.text_content()


def test_citations_from_when_hidden_text_was_stored_resolve_to_the_same_visible_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "pump.html"
    page.write_text(_page(HIDDEN[0]), encoding="utf-8")
    settings, db = Settings(), tmp_path / "store.db"
    with monkeypatch.context() as old:
        # The released path: trafilatura read the page as it came, hidden text and all.
        old.setattr(html_extract, "_prepared_html",
                    lambda root, hidden: lxml_html.tostring(root, encoding="unicode"))
        store = SQLiteStore(db)
        result = ingest_file(store, page, Metadata(), settings=settings)
        document, version = store.document(result.doc_id), store.version(result.doc_id)
        assert "20 bar" in version.text  # what the released path stored
        citations = [cite(document, version, p.start + s.start, p.start + s.end)
                     for p in store.passages(result.doc_id, version.version)
                     for s in sentence_spans(p.text)]
        store.close()
    store = SQLiteStore(db)
    try:
        page.write_text(_page(HIDDEN[0]) + "\n", encoding="utf-8")  # touched: read again
        assert ingest_file(store, page, Metadata(), settings=settings).status == "updated"
        assert "20 bar" not in store.version(result.doc_id).text
        seen = {}
        for citation in citations:
            found = resolve(citation, store)
            seen[citation.quote] = found.status
            if found.status in ("exact", "relocated"):
                assert found.quote == citation.quote
        assert all(seen[v] in ("exact", "relocated") for v in VISIBLE), seen
        hidden = [q for q in seen if "20 bar" in q]
        assert hidden and all(seen[q] not in ("exact", "relocated") for q in hidden), seen
    finally:
        store.close()
