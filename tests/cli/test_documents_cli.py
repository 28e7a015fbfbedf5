"""``tether documents list|show|rm`` through the real CLI process."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tether import ids

from .conftest import run_tether

METHANOL = "Methanol boils at 64.7 °C at sea level. Methanol vapour is heavier than air.\n"
ACETONE = "# Acetone\n\nAcetone has a flash point of -20 °C. Keep acetone away from flames.\n"
KESTREL = "Project Kestrel has a budget of 42 million euros. Ines Varga owns the budget.\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ingested store per module (tests copy it): two public files, one finance memo."""
    base = tmp_path_factory.mktemp("documents")
    docs = base / "docs"
    docs.mkdir()
    (docs / "methanol.txt").write_text(METHANOL)
    (docs / "acetone.md").write_text(ACETONE)
    (base / "kestrel.txt").write_text(KESTREL)
    db = base / "store.db"
    assert run_tether("ingest", str(docs), "--db", str(db)).code == 0
    ingested = run_tether("ingest", str(base / "kestrel.txt"), "--db", str(db), "--acl", "finance",
                          "--source", "https://intranet.example.org/kestrel", "--title", "Kestrel memo")
    assert ingested.code == 0, ingested.err
    return base


@pytest.fixture
def store(built: Path, tmp_path: Path) -> Path:
    db = tmp_path / "store.db"
    shutil.copy(built / "store.db", db)
    return db


def _listed(db: Path, *extra: str) -> list[dict]:
    result = run_tether("documents", "list", "--db", str(db), "--json", *extra)
    assert result.code == 0, result.err
    return json.loads(result.out)


def _rows(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as con:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("documents", "versions", "passages", "meta")}


def test_list_shows_every_document_and_as_filters_by_acl(store: Path, built: Path):
    table = run_tether("documents", "list", "--db", str(store))
    assert table.code == 0, table.err
    header, *lines = table.out.splitlines()
    assert header.split() == ["ID", "KIND", "VERSIONS", "PASSAGES", "INGESTED", "ACL", "TITLE", "SOURCE"]
    assert len(lines) == 3 and table.err.strip() == "3 document(s)"
    kestrel = ids.doc_id_for("https://intranet.example.org/kestrel")
    assert any(line.startswith(kestrel) and "finance" in line and "Kestrel memo" in line for line in lines)

    entries = _listed(store)
    assert [e["source"] for e in entries] == sorted(e["source"] for e in entries)
    methanol = next(e for e in entries if e["source"].endswith("methanol.txt"))
    assert methanol["source"] == (built / "docs" / "methanol.txt").resolve().as_uri()
    assert methanol["doc_id"] == ids.doc_id_for(methanol["source"])
    assert methanol["version"].startswith("sha256:") and methanol["title"] == "methanol"  # a .txt without a title: its file name
    assert (methanol["kind"], methanol["acl"], methanol["version_count"]) == ("original", ["public"], 1)
    assert methanol["passage_count"] >= 1 and methanol["ingested_at"][:2] == "20"

    public = _listed(store, "--as", "public")
    assert {e["doc_id"] for e in public} == {e["doc_id"] for e in entries} - {kestrel}
    assert [e["doc_id"] for e in _listed(store, "--as", "finance")] == [kestrel]
    assert _listed(store, "--as", "nobody") == []


def test_show_prints_metadata_and_passages(store: Path):
    kestrel = ids.doc_id_for("https://intranet.example.org/kestrel")
    shown = run_tether("documents", "show", kestrel, "--db", str(store))
    assert shown.code == 0, shown.err
    assert "Kestrel memo" in shown.out and "finance" in shown.out and "(current; 1 stored)" in shown.out
    view = json.loads(run_tether("documents", "show", kestrel, "--db", str(store), "--json").out)
    assert view["title"] == "Kestrel memo" and view["passage_count"] == len(view["passages"]) >= 1
    for p in view["passages"]:
        assert view["text"][p["start"]:p["end"]] == p["text"]
    # A document the principals cannot read answers exactly like one that does not exist.
    hidden = run_tether("documents", "show", kestrel, "--db", str(store), "--as", "public")
    unknown = run_tether("documents", "show", "doc_" + "0" * 20, "--db", str(store))
    assert hidden.code == unknown.code == 4
    assert hidden.out == unknown.out == ""
    assert hidden.err == unknown.err.replace("doc_" + "0" * 20, kestrel)


def test_rm_records_the_removal_and_stored_citations_resolve_missing_with_the_reason(store: Path):
    answer = run_tether("ask", "At what temperature does methanol boil?", "--db", str(store), "--json")
    assert answer.code == 0, answer.err
    answer_json = json.loads(answer.out)
    citation = answer_json["sentences"][0]["citations"][0]
    before = run_tether("resolve", "--db", str(store), stdin=json.dumps(citation))
    assert json.loads(before.out)["status"] == "exact"

    removed = run_tether("documents", "rm", citation["doc_id"], "--db", str(store),
                         "--reason", "superseded by SDS rev 4")
    assert removed.code == 0, removed.err
    assert removed.out.startswith(f"removed {citation['doc_id']} (") and "1 version(s)" in removed.out
    assert citation["doc_id"] not in {e["doc_id"] for e in _listed(store)}

    after = json.loads(run_tether("resolve", "--db", str(store), stdin=json.dumps(citation)).out)
    assert after["status"] == "missing"
    assert after["note"].startswith(f"document {citation['doc_id']} ({citation['source']}) was removed on 20")
    assert after["note"].endswith(": superseded by SDS rev 4") and " by cli" in after["note"]
    traced = run_tether("resolve", "--db", str(store), "--trace", answer_json["trace_id"])
    assert all(json.loads(line)["note"] == after["note"] for line in traced.out.splitlines())
    # Principals that could not read the document see only the plain "missing".
    hidden = json.loads(run_tether("resolve", "--db", str(store), "--as", "finance",
                                   stdin=json.dumps(citation)).out)
    assert hidden["status"] == "missing" and "removed" not in hidden["note"]
    # The store is sound after a removal: the audit log keeps its citations.
    assert run_tether("check", "--db", str(store)).code == 0
    again = run_tether("documents", "rm", citation["doc_id"], "--db", str(store))
    assert again.code == 4 and "superseded by SDS rev 4" in again.err


def test_rm_by_source_takes_a_path_as_ingest_recorded_it(store: Path, built: Path):
    kestrel = ids.doc_id_for("https://intranet.example.org/kestrel")
    by_url = run_tether("documents", "rm", "--source", "https://intranet.example.org/kestrel/",
                        "--db", str(store), "--json")
    assert by_url.code == 0, by_url.err
    record = json.loads(by_url.out)
    assert (record["doc_id"], record["title"], record["acl"], record["reason"]) == (
        kestrel, "Kestrel memo", ["finance"], None)
    by_path = run_tether("documents", "rm", "--source", "docs/acetone.md", "--db", str(store), cwd=built)
    assert by_path.code == 0, by_path.err
    assert [Path(e["source"]).name for e in _listed(store)] == ["methanol.txt"]


@pytest.mark.parametrize("args, code, words", [
    (("rm", "doc_" + "f" * 20), 4, "no such document"),
    (("rm", "not-an-id"), 2, "is not a document id"),
    (("rm", "--source", "https://nowhere.example.org/x"), 4, "no document from source"),
    (("rm",), 2, "exactly one"),
    (("rm", "doc_" + "f" * 20, "--source", "https://example.org/x"), 2, "exactly one"),
    (("show", "DOC_0000"), 2, "is not a document id"),
])
def test_bad_ids_exit_with_the_documented_code_and_change_nothing(store: Path, args, code, words):
    rows = _rows(store)
    result = run_tether("documents", *args, "--db", str(store))
    assert result.code == code, result.err
    assert words in result.err and result.out == ""
    assert len(result.err.strip().splitlines()) == 1 and result.err.startswith("error: ")
    assert _rows(store) == rows
