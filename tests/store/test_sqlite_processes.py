"""Several processes on one SQLite store file, as users run them: ingests (two of them
writing the same documents), asks, resolve, eval, stats, reindex and check at once.
Nothing may fail with "database is locked", and no write may be lost.

A second test hammers opening and closing from many processes, which is where SQLite
answers SQLITE_BUSY without waiting for ``busy_timeout`` (``tether.store.busy``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import tether
from tether.store.sqlite import SQLiteStore

SRC = str(Path(tether.__file__).resolve().parents[1])
DEMO = Path(tether.__file__).parent / "demo"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    env["PYTHONPATH"] = SRC
    return env


def _start(cwd: Path, *args: str, stdin: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", *args], cwd=cwd, env=_env(), text=True,
        stdin=stdin.open() if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def _finish(process: subprocess.Popen[str], *, codes: tuple[int, ...] = (0,)) -> str:
    out, err = process.communicate(timeout=300)
    assert process.returncode in codes, (process.args, out[-2000:], err[-2000:])
    for word in ("locked", "busy", "error", "Traceback"):
        assert word not in err, (process.args, err[-2000:])
    return out


def _corpus(root: Path, name: str, count: int) -> Path:
    folder = root / name
    folder.mkdir()
    for i in range(count):
        (folder / f"{name}{i}.md").write_text(
            f"# Solvent {name}{i}\n\nSolvent {name}{i} boils at {40 + i}.5 °C at sea level. "
            f"Store solvent {name}{i} away from oxidisers. Its vapour is heavier than air.\n",
            encoding="utf-8",
        )
    return folder


def _ingested(out: str) -> dict[str, int]:
    found = re.search(r"(\d+) ingested, (\d+) updated, (\d+) unchanged, (\d+) failed", out)
    assert found, out
    return dict(zip(("ingested", "updated", "unchanged", "failed"), map(int, found.groups())))


def test_users_commands_share_one_store(tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    _finish(_start(tmp_path, "ingest", str(DEMO / "corpus"), "--db", db,
                   "--manifest", str(DEMO / "corpus" / "manifest.json")))
    seeded = json.loads(_finish(_start(
        tmp_path, "ask", "What is the boiling point of methanol?", "--db", db, "--json")))
    citation = seeded["sentences"][0]["citations"][0]
    questions = [json.loads(line)["question"] for line in
                 (DEMO / "questions.jsonl").read_text().splitlines() if line.strip()][:20]
    batch = tmp_path / "questions.jsonl"
    batch.write_text("".join(json.dumps({"id": n, "question": q}) + "\n"
                             for n, q in enumerate(questions)))
    citations = tmp_path / "citations.jsonl"
    citations.write_text("".join(json.dumps({**citation, "id": n}) + "\n" for n in range(40)))
    a, b, shared = (_corpus(tmp_path, name, 30) for name in ("alpha", "beta", "shared"))

    running = {
        "ingest a": _start(tmp_path, "ingest", str(a), "--db", db),
        "ingest b": _start(tmp_path, "ingest", str(b), "--db", db),
        "ingest shared 1": _start(tmp_path, "ingest", str(shared), "--db", db),
        "ingest shared 2": _start(tmp_path, "ingest", str(shared), "--db", db),
        "ask 1": _start(tmp_path, "ask", "--jsonl", str(batch), "--db", db),
        "ask 2": _start(tmp_path, "ask", "--jsonl", str(batch), "--db", db),
        "resolve": _start(tmp_path, "resolve", "--jsonl", "--db", db, stdin=citations),
        "eval": _start(tmp_path, "eval", str(DEMO / "questions.jsonl"), "--db", db, "--json"),
        "stats": _start(tmp_path, "stats", "--db", db, "--json"),
        "reindex": _start(tmp_path, "reindex", "--db", db, "--passage-chars", "300"),
        "check": _start(tmp_path, "check", "--db", db),
    }
    outputs = {name: _finish(process) for name, process in running.items()}

    # Every write landed: all documents, and every answer the asks printed.
    assert _ingested(outputs["ingest a"]) == {"ingested": 30, "updated": 0, "unchanged": 0, "failed": 0}
    assert _ingested(outputs["ingest b"])["ingested"] == 30
    shared_runs = [_ingested(outputs[f"ingest shared {n}"]) for n in (1, 2)]
    assert all(r["failed"] == 0 for r in shared_runs)
    assert sum(r["ingested"] for r in shared_runs) == 30  # each document written once
    traces = [json.loads(line)["trace_id"] for name in ("ask 1", "ask 2")
              for line in outputs[name].splitlines()]
    assert len(traces) == 2 * len(questions)
    resolved = [json.loads(line) for line in outputs["resolve"].splitlines()]
    assert len(resolved) == 40 and {r["status"] for r in resolved} <= {"exact", "relocated"}
    assert outputs["check"].startswith("ok:")
    store = SQLiteStore(db)
    try:
        counts = store.counts()
        assert counts["documents"] == 25 + 90
        assert counts["answers"] == 1 + len(traces)
        assert all(store.answer_record(t) is not None for t in traces)
        assert len(store.metric_records()) == 1 + len(traces)
    finally:
        store.close()
    final = subprocess.run([sys.executable, "-m", "tether", "check", "--db", db, "--json"],
                           cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stdout
    assert json.loads(final.stdout)["counts"]["documents"] == 115


# Each worker opens and closes the store many times, and every third time writes a
# document, an answer and a meta key and reads: the moments between one process's
# close and another's open are where SQLite may refuse at once instead of waiting.
WORKER = """
import sys
from tether import ids
from tether.records import Document, Passage, Version
from tether.store.sqlite import SQLiteStore

path, worker, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for n in range(rounds):
    store = SQLiteStore(path)
    if n % 3:  # most rounds only open and close, the moments SQLite refuses at once
        store.close()
        continue
    text = f"Solvent {worker} boils at {n}.5 C. Keep solvent {worker} cool."
    doc = Document(doc_id=ids.doc_id_for(f"w{worker}"), source=f"w{worker}", title="t",
                   license="l", fetched_at="2026-01-01", media_type="text/plain",
                   acl=("public",), kind="original", process=None)
    version = Version(doc.doc_id, ids.version_of(text), text, "text", "2026-01-01T00:00:00")
    passage = Passage(ids.passage_id_for(doc.doc_id, version.version, 0, len(text)), doc.doc_id,
                      version.version, 0, len(text), text, "original", None, None, ())
    store.put(doc, version, [passage])
    store.record_answer(f"tr_{worker}_{n}", "2026-01-01T00:00:00", {"n": n})
    store.set_meta(f"w{worker}", str(n))
    assert store.search(["solvent"], limit=3)
    store.close()
"""


def test_many_processes_opening_and_closing(tmp_path: Path) -> None:
    db = str(tmp_path / "store.db")
    workers, rounds = 6, 120
    processes = [
        subprocess.Popen([sys.executable, "-c", WORKER, db, str(w), str(rounds)],
                         env=_env(), text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for w in range(workers)
    ]
    for process in processes:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err[-3000:]
    store = SQLiteStore(db)
    try:
        counts = store.counts()
        written = range(0, rounds, 3)  # the rounds that wrote
        assert counts["documents"] == workers and counts["answers"] == workers * len(written)
        assert all(store.get_meta(f"w{w}") == str(written[-1]) for w in range(workers))
        assert store.integrity_problems() == []
    finally:
        store.close()


# Every worker creates the same new store files at the same instants: two commands
# started together on a store that does not exist yet. Converting a new file to WAL
# is where SQLite refused at once (about one collision in 13 before retries).
CREATOR = """
import sys, time
from tether.store.sqlite import SQLiteStore

folder, start, files = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
for n in range(files):
    while time.time() < start + n * 0.05:
        pass
    store = SQLiteStore(f"{folder}/new{n}.db")
    store.set_meta(f"pid{sys.argv[4]}", "here")
    store.close()
"""


def test_processes_creating_the_same_new_store_at_once(tmp_path: Path) -> None:
    workers, files = 6, 60
    start = time.time() + 2.0  # after every interpreter has started
    processes = [
        subprocess.Popen([sys.executable, "-c", CREATOR, str(tmp_path), str(start), str(files),
                          str(w)], env=_env(), text=True, stderr=subprocess.PIPE)
        for w in range(workers)
    ]
    errors = [process.communicate(timeout=300)[1] for process in processes]
    assert [p.returncode for p in processes] == [0] * workers, [e[-800:] for e in errors]
    for n in range(files):
        store = SQLiteStore(tmp_path / f"new{n}.db")
        try:
            assert all(store.get_meta(f"pid{w}") == "here" for w in range(workers))
        finally:
            store.close()
