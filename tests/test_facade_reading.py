"""The facade's reading methods the faces use instead of a stage's internals: search,
read, documents and a key's principals, each filtered by the caller's principals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether import InputError, Tether
from tether.config import Settings
from tether.ops.apikeys import hash_key
from tether.pipeline.events import Sources


@pytest.fixture
def tether(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "methanol.txt").write_text("Methanol boils at 64.7 °C at sea level.", encoding="utf-8")
    (tmp_path / "memo").mkdir()
    (tmp_path / "memo" / "kestrel.txt").write_text("The Kestrel budget is 42 million euros.", encoding="utf-8")
    with Tether(tmp_path / "t.db", settings=Settings()) as opened:
        opened.ingest(tmp_path / "docs")
        opened.ingest(tmp_path / "memo", acl=["finance"])
        yield opened


def test_search_ranks_only_what_the_principals_may_read(tether: Tether):
    assert [h.document.title for h in tether.search("Kestrel budget", principals=["finance", "public"])] == ["kestrel"]
    assert tether.search("Kestrel budget", principals=["public"]) == []
    assert len(tether.search("methanol boils", k=1)) == 1
    with pytest.raises(InputError):
        tether.search("   ")


def test_read_answers_none_alike_for_a_missing_and_an_unreadable_document(tether: Tether):
    memo = next(s.document for s in tether.documents() if s.document.title == "kestrel")
    document, version = tether.read(memo.doc_id, principals=["finance"])
    assert version.text == "The Kestrel budget is 42 million euros." and document.acl == ("finance",)
    assert tether.read(memo.doc_id, version=version.version, principals=["finance"])[1] == version
    assert tether.read(memo.doc_id, principals=["public"]) is None
    assert tether.read("doc_missing", principals=["finance"]) is None
    assert tether.read(memo.doc_id, version="sha256:" + "0" * 64, principals=["finance"]) is None
    assert [s.document.title for s in tether.documents(principals=["public"])] == ["methanol"]


def test_a_key_acts_as_its_principals_and_public(tether: Tether):
    tether.store.add_key("fin", ["finance"], hash_key("tk_finance"))
    assert tether.key_principals("tk_finance") == ("finance", "public")
    assert tether.key_principals("tk_unknown") is None
    tether.store.revoke_key("fin")
    assert tether.key_principals("tk_finance") is None


@pytest.mark.parametrize("retrieval", ["fused", "bm25"])
def test_search_returns_the_sources_an_answer_starts_from(tmp_path: Path, retrieval: str):
    # Ranked as ``ask`` ranks (the ``retrieval`` setting), not by BM25 alone: an MCP
    # client searching sees the passages an answer would cite.
    (tmp_path / "docs").mkdir()
    for i, text in enumerate(["The pump's outlet valve closes when pressure drops.",
                              "Valves are inspected yearly; the outlet side first.",
                              "The inlet valve is never closed while the pump runs.",
                              "Pressure is logged every minute by the controller."]):
        (tmp_path / "docs" / f"d{i}.txt").write_text(text, encoding="utf-8")
    with Tether(tmp_path / "t.db", settings=Settings(retrieval=retrieval, top_k=3)) as t:
        t.ingest(tmp_path / "docs")
        question = "When does the outlet valve shut?"
        sources = next(e for e in t.stream(question) if isinstance(e, Sources))
        assert [h.passage.passage_id for h in t.search(question)] == [
            h.passage.passage_id for h in sources.hits]
