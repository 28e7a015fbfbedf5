"""The CLI contract end to end: ingest a mixed folder, ask, and check every citation."""

import json
import sqlite3

from .conftest import run_tether


def _stored_text(db, doc_id, version):
    with sqlite3.connect(db) as con:
        return con.execute(
            "SELECT text FROM versions WHERE doc_id=? AND version=?", (doc_id, version)
        ).fetchone()[0]


def test_ingest_mixed_folder_then_every_citation_quotes_the_stored_text(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    result = run_tether("ingest", str(mixed_folder), "--db", str(db), "--license", "CC0")
    assert result.code == 0, result.err
    assert "4 ingested, 0 updated, 0 unchanged, 0 failed" in result.out
    for question in [
        "What is the flash point of acetone?",
        "What is the workplace limit for ammonia?",
        "At what temperature does toluene boil?",
        "What is the short-term limit for chlorine?",
    ]:
        run = run_tether("ask", question, "--db", str(db), "--json")
        assert run.code == 0, run.err
        answer = json.loads(run.out)
        assert not answer["refused"], (question, answer)
        for sentence in answer["sentences"]:
            assert sentence["citations"], sentence
            for c in sentence["citations"]:
                assert _stored_text(db, c["doc_id"], c["version"])[c["start"] : c["end"]] == c["quote"]
                assert c["license"] == "CC0" and c["kind"] == "original"


def test_pdf_citations_carry_their_page(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    run_tether("ingest", str(mixed_folder), "--db", str(db))
    answer = json.loads(run_tether("ask", "Can toluene be stored with nitric acid?", "--db", str(db), "--json").out)
    regions = {c["region"] for s in answer["sentences"] for c in s["citations"]}
    assert regions == {"page 2"}


def test_reingest_is_a_noop_and_an_edit_adds_a_version(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    run_tether("ingest", str(mixed_folder), "--db", str(db))
    again = run_tether("ingest", str(mixed_folder), "--db", str(db))
    assert "0 ingested, 0 updated, 4 unchanged, 0 failed" in again.out
    (mixed_folder / "acetone.md").write_text("# Acetone\n\nAcetone has a flash point of -20 °C.\n")
    edited = run_tether("ingest", str(mixed_folder), "--db", str(db))
    assert "0 ingested, 1 updated, 3 unchanged, 0 failed" in edited.out
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM versions").fetchone()[0] == 5


def test_ask_human_output_has_markers_and_sources(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    run_tether("ingest", str(mixed_folder), "--db", str(db), "--license", "CC0", "--fetched-at", "2026-02-03")
    out = run_tether("ask", "What is the flash point of acetone?", "--db", str(db)).out
    assert "Acetone has a flash point of -20 °C. [1]" in out
    assert "Sources" in out and "license CC0 · fetched 2026-02-03" in out
    assert "“Acetone has a flash point of -20 °C.”" in out or "“Acetone has a flash point of -20 °C”" in out


def test_ask_jsonl_keeps_ids_and_order(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    run_tether("ingest", str(mixed_folder), "--db", str(db))
    lines = "\n".join(json.dumps({"id": i, "question": q}) for i, q in [
        ("b", "What is the workplace limit for ammonia?"), ("a", "What is the flash point of acetone?"),
        (3, "What is the melting point of gold?"),
    ])
    run = run_tether("ask", "--db", str(db), "--jsonl", "-", stdin=lines + "\n")
    assert run.code == 0, run.err
    out = [json.loads(line) for line in run.out.splitlines()]
    assert [o["id"] for o in out] == ["b", "a", 3]
    assert not out[0]["refused"] and "25 ppm" in out[0]["sentences"][0]["text"]


def test_acl_filtering_with_as(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    secret = tmp_path / "secret.txt"
    secret.write_text("Project Kestrel stores 40 tonnes of chlorine at the Eastmoor site.")
    run_tether("ingest", str(secret), "--db", str(db), "--acl", "finance")
    public = json.loads(run_tether("ask", "How much chlorine does Project Kestrel store?", "--db", str(db),
                                   "--json", "--as", "public").out)
    assert public["refused"] and "Kestrel" not in json.dumps(public["sentences"])
    finance = json.loads(run_tether("ask", "How much chlorine does Project Kestrel store?", "--db", str(db),
                                    "--json", "--as", "finance").out)
    assert not finance["refused"]
