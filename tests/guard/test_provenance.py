"""A derived (transcribed) passage walked through every stage: ingest → store →
retrieve → generate → attribute → guard → Answer JSON → render → audit log →
resolve. Each stage must carry the kind, the process and the region unchanged; if
any stage drops or changes them, this test fails at that stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fpdf import FPDF

from tether import Tether
from tether.cli.render import answer_json, answer_text
from tether.config import Settings
from tether.generate.extractive import ExtractiveGenerator
from tether.guard.attribute import attribute, evidence_from_hits
from tether.guard.citation import judge_draft
from tether.ops.cite import resolve
from tether.records import AnswerSentence, Dropped
from tether.retrieve.search import retrieve

OCR = "OCR: tesseract 5"
QUESTION = "How often are the Kestrel pump seals inspected?"
FACT = "The Kestrel pump seals are inspected every 90 days."
PROVENANCE = ("transcribed", OCR, "page 2")


def _scanned_pdf(path: Path) -> Path:
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    for text in ("Maintenance log, scanned from the 2019 binder.",
                 f"Seals and bearings. {FACT} Bearings are greased monthly."):
        pdf.add_page()
        pdf.multi_cell(0, 10, text)
    path.write_bytes(bytes(pdf.output()))
    return path


@pytest.fixture
def tether(tmp_path):
    t = Tether(tmp_path / "store.db", settings=Settings())
    (result,) = t.ingest(
        _scanned_pdf(tmp_path / "log.pdf"), kind="transcribed", process=OCR,
        source="https://ex.org/scans/maintenance-log", title="Maintenance log (scan)",
    )
    assert result.status == "ingested", result.error
    yield t
    t.close()


def _triple(record) -> tuple:
    return (record.kind, record.process, record.region)


def test_a_transcribed_passage_keeps_its_provenance_through_every_stage(tether):
    store, settings = tether.store, tether.settings
    # store: the document and the passage holding the fact
    (document,) = store.documents()
    assert (document.kind, document.process) == ("transcribed", OCR)
    version = store.version(document.doc_id)
    stored = [p for p in store.passages(document.doc_id, version.version) if FACT in p.text]
    assert stored and _triple(stored[0]) == PROVENANCE

    # retrieve
    hits = retrieve(store, QUESTION, k=settings.top_k)
    top = next(h for h in hits if FACT in h.passage.text)
    assert _triple(top.passage) == PROVENANCE and top.document.kind == "transcribed"

    # generate: a draft proposed from (and hinting at) the transcribed passage
    drafts = list(ExtractiveGenerator().generate(QUESTION, hits))
    draft = next(d for d in drafts if d.text == FACT)
    assert top.passage.passage_id in draft.hints

    # attribute
    evidence = evidence_from_hits(hits, lambda d, v: store.version(d, v).text)
    attribution = attribute(FACT, evidence, settings=settings)
    assert attribution.verdict.outcome == "supported"
    assert {_triple(p) for p in attribution.evidence.passages} == {PROVENANCE}

    # guard
    kept, _ = judge_draft(draft, evidence, settings=settings)
    assert isinstance(kept, AnswerSentence)
    assert _triple(kept.citations[0]) == PROVENANCE

    # answer (the whole pipeline; the sources event carries the kind too)
    events = list(tether.stream(QUESTION))
    assert any(_triple(h.passage) == PROVENANCE for h in events[0].data)
    answer = events[-1].data
    (citation,) = answer.sentences[0].citations
    assert _triple(citation) == PROVENANCE
    assert version.text[citation.start : citation.end] == citation.quote

    # JSON
    as_json = json.loads(answer_json(answer))["sentences"][0]["citations"][0]
    assert (as_json["kind"], as_json["process"], as_json["region"]) == PROVENANCE

    # render: attributed to the artifact and the process, at the page; never quoted
    text = answer_text(answer)
    assert f"transcribed text, produced by {OCR}" in text
    assert "Maintenance log (scan)" in text and "page 2" in text
    assert f"“{citation.quote}”" not in text and "not a quotation of the source" in text

    # audit log: the row and the stored Answer JSON
    ((_, logged),) = store.answer_citations(answer.trace_id)
    assert logged == citation
    payload = store.answer_record(answer.trace_id)["sentences"][0]["citations"][0]
    assert (payload["kind"], payload["process"], payload["region"]) == PROVENANCE

    # resolve: from the audit log, and from the JSON a client kept
    ((_, _, resolution),) = tether.resolve_trace(answer.trace_id)
    assert resolution.status == "exact"
    assert _triple(resolution) == PROVENANCE
    assert _triple(resolve(as_json, store)) == PROVENANCE


def test_quote_original_only_withholds_a_sentence_only_derived_text_supports(tether):
    strict = Tether(store=tether.store, settings=Settings(quote_original_only=True))
    answer = strict.ask(QUESTION)
    assert answer.refused and not answer.sentences
    withheld = [d for d in answer.dropped if d.text == FACT]
    assert withheld and withheld[0].verdict.outcome == "supported"
    assert "transcribed" in withheld[0].reason and OCR in withheld[0].reason
    assert "quote_original_only" in withheld[0].reason
    assert "quote_original_only" in answer.refusal_reason
    assert "withheld" in answer_text(answer)
    assert strict.store.answer_citations(answer.trace_id) == []


def test_original_text_is_cited_before_a_transcription_of_it(tether, tmp_path):
    original = tmp_path / "seals.txt"
    filler = " ".join(f"Item {n} of the schedule is checked by the day shift." for n in range(8))
    original.write_text(f"Seal schedule.\n\n{FACT} {filler}\n", encoding="utf-8")
    tether.ingest(original, source="https://ex.org/seal-schedule", title="Seal schedule")
    # The transcription ranks first, so only a preference for original text cites the file.
    hits = retrieve(tether.store, QUESTION, k=8)
    assert [h.document.kind for h in hits][:2] == ["transcribed", "original"]
    for settings in (Settings(), Settings(quote_original_only=True)):
        answer = Tether(store=tether.store, settings=settings).ask(QUESTION)
        cited = [c for s in answer.sentences if s.text == FACT for c in s.citations]
        assert cited and {(c.kind, c.source) for c in cited} == {
            ("original", "https://ex.org/seal-schedule")
        }
        assert not any(isinstance(d, Dropped) and d.reason for d in answer.dropped)
