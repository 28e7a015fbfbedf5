"""Several ``tether`` processes on one store: ingesting while others answer, writers of
the same documents racing, two editions of one document at once. No errors, no lost
writes, every document on exactly one current version. Runs on every backend."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import tether

SRC = str(Path(tether.__file__).resolve().parents[1])


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _start(cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", *args], cwd=cwd, env=_env(), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def _finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    out, err = process.communicate(timeout=240)
    assert process.returncode == 0, (process.args, out, err)
    assert "error" not in err.lower(), err
    return out, err


def _summary(out: str) -> dict[str, int]:
    found = re.search(r"(\d+) ingested, (\d+) updated, (\d+) unchanged, (\d+) failed", out)
    assert found, out
    return dict(zip(("ingested", "updated", "unchanged", "failed"), map(int, found.groups())))


def _write_corpus(root: Path, name: str, count: int) -> Path:
    folder = root / name
    folder.mkdir()
    for i in range(count):
        (folder / f"{name}{i}.md").write_text(
            f"# Solvent {name}{i}\n\nSolvent {name}{i} boils at {40 + i}.5 °C at sea level."
            f" Store solvent {name}{i} away from oxidisers.\n",
            encoding="utf-8",
        )
    return folder


def test_ingesting_and_answering_from_several_processes(backend, tmp_path):
    db = backend.location
    seed = tmp_path / "seed.md"
    seed.write_text("# Seed\n\nThe seed solvent boils at 12.5 °C.\n", encoding="utf-8")
    _finish(_start(tmp_path, "ingest", str(seed), "--db", db))  # creates or migrates the store

    folder_a = _write_corpus(tmp_path, "alpha", 40)
    folder_b = _write_corpus(tmp_path, "beta", 40)
    (tmp_path / "x.md").write_text("Edition X: the shared solvent boils at 70.5 °C.\n", encoding="utf-8")
    (tmp_path / "y.md").write_text("Edition Y: the shared solvent boils at 71.5 °C.\n", encoding="utf-8")
    questions = tmp_path / "questions.jsonl"
    asked = [f"At what temperature does solvent alpha{i % 40} boil?" for i in range(80)]
    questions.write_text(
        "".join(json.dumps({"id": i, "question": q}) + "\n" for i, q in enumerate(asked)),
        encoding="utf-8",
    )

    processes = [
        _start(tmp_path, "ingest", str(folder_a), "--db", db),
        _start(tmp_path, "ask", "--jsonl", str(questions), "--db", db),
        _start(tmp_path, "ingest", str(folder_b), "--db", db),
        _start(tmp_path, "ingest", str(folder_a), "--db", db),  # the same documents, racing
        _start(tmp_path, "ingest", str(tmp_path / "x.md"), "--source", "https://ex.org/shared", "--db", db),
        _start(tmp_path, "ingest", str(tmp_path / "y.md"), "--source", "https://ex.org/shared", "--db", db),
    ]
    outputs = [_finish(p)[0] for p in processes]

    alpha = [_summary(outputs[0]), _summary(outputs[3])]
    assert sum(s["ingested"] for s in alpha) == 40 and sum(s["unchanged"] for s in alpha) == 40
    assert _summary(outputs[2])["ingested"] == 40
    shared = [_summary(outputs[4]), _summary(outputs[5])]
    assert sorted((s["ingested"], s["updated"]) for s in shared) == [(0, 1), (1, 0)]

    answers = [json.loads(line) for line in outputs[1].splitlines()]
    assert [a["id"] for a in answers] == list(range(80))
    for answer in answers:
        for sentence in answer["sentences"]:
            assert sentence["citations"], sentence

    store = backend.open()
    assert store.counts()["documents"] == 1 + 40 + 40 + 1
    assert store.counts()["versions"] == 1 + 40 + 40 + 2
    indexed = 0
    for document in store.documents():
        current = store.version(document.doc_id)
        passages = store.passages(document.doc_id, current.version)
        assert passages and all(p.text == current.text[p.start : p.end] for p in passages)
        indexed += len(passages)
    assert store.counts()["passages"] == indexed  # nothing of an old edition is indexed
    # Every alpha document, written by two processes at once, answers afterwards.
    hits = store.search(["alpha7", "boils"], limit=3)
    assert hits and "alpha7" in hits[0].passage.text
