"""``ingest --acl`` and ``ask --as``: the command line filters like the service does."""

from __future__ import annotations

import json

import pytest

from tether.cli import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


@pytest.fixture
def db(tmp_path, capsys):
    (tmp_path / "memo.txt").write_text("The Kestrel budget is 42 million euros.", encoding="utf-8")
    (tmp_path / "methanol.txt").write_text("Methanol boils at 64.7 °C at sea level.", encoding="utf-8")
    path = str(tmp_path / "a.db")
    assert run(capsys, "ingest", str(tmp_path / "memo.txt"), "--acl", "finance", "--db", path)[0] == 0
    assert run(capsys, "ingest", str(tmp_path / "methanol.txt"), "--db", path)[0] == 0
    return path


def cited(capsys, db, question, *as_):
    args = ["ask", question, "--json", "--db", db]
    for principal in as_:
        args += ["--as", principal]
    code, out, _ = run(capsys, *args)
    answer = json.loads(out)
    assert code == (1 if answer["refused"] else 0)  # ask's exit status: answered 0, refused 1
    return {c["source"].rsplit("/", 1)[-1] for s in answer["sentences"] for c in s["citations"]}


def test_as_filters_by_acl_and_every_principal_reads_public(db, capsys):
    budget = "What is the Kestrel budget?"
    assert cited(capsys, db, budget, "finance") == {"memo.txt"}
    assert cited(capsys, db, budget, "staff") == set()
    assert cited(capsys, db, budget) == {"memo.txt"}  # no --as: the administrator sees all
    boil = "At what temperature does methanol boil?"
    assert cited(capsys, db, boil, "finance") == {"methanol.txt"}
