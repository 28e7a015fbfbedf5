"""Focus units and near-duplicates after BM25 (retrieve/focused.py), through a real store."""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.facade import Tether
from tether.ingest.files import Metadata
from tether.ingest.write import ingest_bytes
from tether.records import Document, Hit, Passage
from tether.retrieve.focused import collapse, refine
from tether.retrieve.search import retrieve

GREP = "\n".join(
    ["GREP(1)                     User Commands                     GREP(1)", "", "NAME",
     "       grep - print lines that match patterns", "", "DESCRIPTION"]
    + [f"       grep searches for patterns in each file; an option changes how grep reads {i}."
       for i in range(30)]
    + ["", "OPTIONS", "       -v, --invert-match",
       "              Invert the sense of matching, to select non-matching lines.", ""]
)


@pytest.fixture
def tether(tmp_path):
    with Tether(tmp_path / "t.db", settings=Settings()) as t:
        ingest_bytes(t.store, GREP.encode(), media_type="text/plain",
                     meta=Metadata(source="file:///grep.1.txt", title="grep(1)"), settings=t.settings)
        yield t


def test_the_unit_a_question_names_comes_first(tether):
    question = "What does the -v option of grep do?"
    ranked = retrieve(tether.store, question, k=4)
    assert not any("Invert the sense" in h.passage.text for h in ranked)  # BM25 alone misses it
    hits = refine(tether.store, question, ranked, k=4)
    assert "Invert the sense" in hits[0].passage.text
    assert [h.rank for h in hits] == list(range(len(hits)))


def test_the_pipeline_answers_from_the_unit(tether):
    answer = tether.ask("What does the -v option of grep do?", record=False)
    assert not answer.refused
    assert answer.sentences[0].text == "Invert the sense of matching, to select non-matching lines."


def _hit(doc: str, text: str, rank: int) -> Hit:
    return Hit(Passage(f"{doc}{rank}", doc, "v", 0, len(text), text),
               Document(doc, f"file:///{doc}.html", doc, "", "", "text/html"), 1.0, rank)


def test_near_duplicates_collapse_and_say_where_else_they_stand():
    text = "Returns the default highWaterMark used by streams. Defaults to 65536 (64 KiB)."
    other = "Sets the default highWaterMark used by streams, for objectMode or not."
    kept = collapse([_hit("stream", text, 0), _hit("other", other, 1), _hit("all", text + " ", 2)])
    assert [(h.document.doc_id, h.also) for h in kept] == [
        ("stream", ("file:///all.html",)), ("other", ())]


def test_what_is_x_reads_the_page_titled_for_x(tmp_path):
    with Tether(tmp_path / "d.db", settings=Settings()) as t:
        filler = " ".join(f"Valgrind runs tool number {i} under its core." for i in range(40))
        for name, title, text in (
            ("core", "Using the Valgrind core", filler + " Memcheck runs by default."),
            ("mc", "Memcheck: a memory error detector",
             filler + "\n\nMemcheck is a memory error detector."),
        ):
            ingest_bytes(t.store, text.encode(), media_type="text/plain",
                         meta=Metadata(source=f"file:///{name}.txt", title=title),
                         settings=t.settings)
        hits = refine(t.store, "What is Memcheck?", [], k=4)
        assert any("Memcheck is a memory error detector" in h.passage.text for h in hits)
