"""``tether ingest`` of unchanged text with new metadata applies it: revoking access by
re-ingesting with a narrower ``--acl`` works, on every store backend."""

from __future__ import annotations

import json

import pytest

from tether.cli import main

QUESTION = "What is the Kestrel budget?"


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


@pytest.fixture(params=["sqlite", "postgres"])
def db(request, tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)  # no tether.toml from the working directory
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return str(tmp_path / "t.db")


def ingest(capsys, db, path, *options: str) -> str:
    code, out, err = run(capsys, "ingest", str(path), "--db", db, "--fetched-at", "2026-02-03", *options)
    assert code == 0, err
    assert out.rstrip().endswith(f"→ {db}")  # the summary names the store it wrote to
    return out


def cited_titles(capsys, db, *principals: str) -> set[str]:
    args = ["ask", QUESTION, "--json", "--db", db]
    for principal in principals:
        args += ["--as", principal]
    code, out, err = run(capsys, *args)
    answer = json.loads(out)
    assert code == (1 if answer["refused"] else 0), err  # ask's exit status: answered 0, refused 1
    return {c["title"] for s in answer["sentences"] for c in s["citations"]}


def test_reingesting_with_a_narrower_acl_revokes_access(db, tmp_path, capsys):
    memo = tmp_path / "memo.txt"
    memo.write_text("The Kestrel budget is 42 million euros.", encoding="utf-8")
    assert "1 ingested, 0 updated" in ingest(capsys, db, memo, "--title", "Memo")
    assert cited_titles(capsys, db, "staff") == {"Memo"}

    out = ingest(capsys, db, memo, "--title", "Memo", "--acl", "finance")
    assert "0 ingested, 1 updated, 0 unchanged, 0 failed" in out
    assert cited_titles(capsys, db, "staff") == set()
    assert cited_titles(capsys, db, "finance") == {"Memo"}

    # The same text and the same metadata again: nothing changes.
    out = ingest(capsys, db, memo, "--title", "Memo", "--acl", "finance")
    assert "0 ingested, 0 updated, 1 unchanged, 0 failed" in out
    # A new title alone is applied too, and shows in citations.
    out = ingest(capsys, db, memo, "--title", "Budget memo", "--acl", "finance")
    assert "0 ingested, 1 updated, 0 unchanged, 0 failed" in out
    assert cited_titles(capsys, db, "finance") == {"Budget memo"}
