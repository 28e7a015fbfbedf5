"""``tether resolve``, ``reindex`` and ``gc`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .clirun import run

GUIDE = (
    "Glove guide\n\n"
    "Nitrile gloves protect against most solvents for short contact. "
    "Butyl gloves are required for acetone.\n\n"
    "Replace gloves after any splash."
)
QUESTION = "Which gloves are required for acetone?"


@pytest.fixture
def db(tmp_path) -> str:
    path = tmp_path / "guide.txt"
    path.write_text(GUIDE, encoding="utf-8")
    store = str(tmp_path / "store.db")
    code, _, err = run("ingest", str(path), "--db", store, "--source", "https://ex.org/gloves")
    assert code == 0, err
    return store


def _ask(db: str) -> dict:
    code, out, err = run("ask", QUESTION, "--db", db, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["sentences"], answer
    return answer


def _reingest(db: str, text: str, tmp: Path) -> None:
    path = tmp / "guide.txt"
    path.write_text(text, encoding="utf-8")
    code, out, err = run("ingest", str(path), "--db", db, "--source", "https://ex.org/gloves")
    assert code == 0 and "1 updated" in out, (out, err)


def test_resolve_one_citation_then_after_reindex_and_an_edit(db, tmp_path):
    answer = _ask(db)
    citation = answer["sentences"][0]["citations"][0]
    code, out, err = run("resolve", "--db", db, input=json.dumps(citation))
    assert code == 0, err
    result = json.loads(out)
    assert result["status"] == "exact" and result["quote"] == citation["quote"]
    assert result["passages"] and result["kind"] == "original"

    code, out, err = run("reindex", "--db", db, "--passage-chars", "40")
    assert code == 0 and "re-segmented 1 documents" in out
    assert "passage_chars = 40" in err  # the hint that new ingests still use the setting
    code, out, _ = run("resolve", "--db", db, input=json.dumps(citation))
    after = json.loads(out)
    assert after["status"] == "exact" and after["passages"] != result["passages"]

    edited = "Updated March 2026.\n\n" + GUIDE
    _reingest(db, edited, tmp_path)
    code, out, _ = run("resolve", "--db", db, input=json.dumps(citation))
    moved = json.loads(out)
    assert moved["status"] == "relocated"
    assert moved["start"] == citation["start"] + len("Updated March 2026.\n\n")
    assert moved["quote"] == citation["quote"]


def test_resolve_jsonl_keeps_order_and_ids(db):
    citation = _ask(db)["sentences"][0]["citations"][0]
    ghost = {**citation, "doc_id": "doc_00000000000000000000"}
    lines = [json.dumps({"id": "a", **citation}), "", json.dumps(ghost), json.dumps({**citation, "id": 7})]
    code, out, err = run("resolve", "--db", db, "--jsonl", input="\n".join(lines) + "\n")
    assert code == 0, err
    results = [json.loads(line) for line in out.splitlines()]
    assert [(r.get("id"), r["status"]) for r in results] == [("a", "exact"), (None, "missing"), (7, "exact")]


@pytest.mark.parametrize(
    "args, stdin, message",
    [
        (["--jsonl"], '{"doc_id": "d"}\nnot json\n', "line 1: missing key 'version'"),
        (["--jsonl"], "[1]\n", "line 1: expected a JSON object"),
        ([], "", "no citation JSON on stdin"),
        ([], "{", "stdin: not valid JSON"),
        ([], '{"sentences": [], "trace_id": "tr_x"}', "a whole answer, not one citation"),
        (["--trace", "tr_nope"], "", "no recorded answer 'tr_nope'"),
        (["--trace", "tr_x", "--jsonl"], "", "not both"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_no_output(db, args, stdin, message):
    code, out, err = run("resolve", "--db", db, *args, input=stdin)
    assert code != 0 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_tampered_jsonl_line_stops_the_batch_before_any_output(db):
    citation = _ask(db)["sentences"][0]["citations"][0]
    tampered = {**citation, "quote": citation["quote"].replace("Butyl", "Latex")}
    lines = [json.dumps(citation), json.dumps(tampered)]
    code, out, err = run("resolve", "--db", db, "--jsonl", input="\n".join(lines))
    assert code == 2 and out == "" and "line 2: quote_hash does not match" in err


def test_resolve_trace_and_gc_keep_cited_versions(db, tmp_path):
    answer = _ask(db)
    _reingest(db, GUIDE + "\n\nRevision two.", tmp_path)
    _reingest(db, GUIDE + "\n\nRevision three.", tmp_path)
    code, out, err = run("gc", "--db", db, "--dry-run")
    assert code == 0 and "would remove 1 unreferenced old version(s)" in out, err
    assert "kept 1 old version(s) cited" in out
    code, out, _ = run("gc", "--db", db)
    size = len((GUIDE + "\n\nRevision two.").encode())
    assert f"removed 1 unreferenced old version(s), {size:,} bytes of text" in out
    code, out, _ = run("gc", "--db", db)
    assert "removed 0" in out

    code, out, err = run("resolve", "--db", db, "--trace", answer["trace_id"])
    assert code == 0, err
    (line,) = [json.loads(x) for x in out.splitlines()]
    assert line["trace_id"] == answer["trace_id"] and line["sentence"] == 0
    assert line["cited"]["version"] == answer["sentences"][0]["citations"][0]["version"]
    assert line["status"] == "relocated" and line["quote"] == answer["sentences"][0]["citations"][0]["quote"]


def test_resolve_as_a_principal_who_cannot_read_the_document(tmp_path):
    path = tmp_path / "guide.txt"
    path.write_text(GUIDE, encoding="utf-8")
    db = str(tmp_path / "store.db")
    run("ingest", str(path), "--db", db, "--acl", "safety-team")
    citation = _ask(db)["sentences"][0]["citations"][0]
    code, out, _ = run("resolve", "--db", db, "--as", "visitors", input=json.dumps(citation))
    assert json.loads(out)["status"] == "missing"
    code, out, _ = run("resolve", "--db", db, "--as", "safety-team", input=json.dumps(citation))
    assert json.loads(out)["status"] == "exact"


def test_reindex_rejects_a_bad_size_and_a_missing_store(tmp_path):
    code, _, err = run("reindex", "--db", str(tmp_path / "none.db"), "--passage-chars", "100")
    assert code == 3 and "no store" in err
    code, _, err = run("reindex", "--db", str(tmp_path / "none.db"), "--passage-chars", "0")
    assert code == 2 and "passage-chars" in err
    assert not (tmp_path / "none.db").exists()
