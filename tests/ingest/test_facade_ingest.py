"""``Tether.ingest`` takes the planned, parallel path of ``tether ingest`` (ADR 0055):
the same result records, a manifest's entries per file, a progress callback that
hears of each file once its write is committed, unchanged files done on their stat."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from cli.conftest import run_tether

from tether import IngestResult, InputError, Tether
from tether.config import Settings

SHEETS = {
    "methanol.txt": "Methanol boils at 64.7 °C at sea level. Methanol is toxic when swallowed.\n",
    "acetone.md": "# Acetone\n\nAcetone has a flash point of -20 °C. Its vapour is heavier than air.\n",
    "sub/ammonia.txt": "Ammonia is a colourless gas. The workplace limit for ammonia is 25 ppm.\n",
    "sub/chlorine.html": "<html><head><title>Chlorine</title></head><body><article><h1>Chlorine</h1>"
                         "<p>Chlorine gas is greenish-yellow and heavier than air.</p></article></body></html>",
    "notes.json": "{}",  # not ingestible: passed over
}


def make_folder(root: Path) -> Path:
    for name, text in SHEETS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
        # An hour old: a file changed within the clock's step is read again, whatever its stat.
        os.utime(root / name, (time.time() - 3600, time.time() - 3600))
    (root / "manifest.json").write_text(json.dumps({"documents": [
        {"path": "methanol.txt", "source": "https://ex.org/methanol", "title": "Methanol sheet"},
        {"path": "sub/ammonia.txt", "source": "https://ex.org/ammonia", "license": "CC0"},
        {"path": "gone.txt", "source": "https://ex.org/gone"},  # promised, missing
    ]}), encoding="utf-8")
    return root


def stored(db: Path) -> list[tuple[str, str, str, int]]:
    """Each document's source, title, license and passage count, as the store holds them."""
    with sqlite3.connect(db) as conn:
        return sorted(conn.execute(
            "SELECT d.source, d.title, d.license, COUNT(p.passage_id) FROM documents d"
            " JOIN passages p ON p.doc_id = d.doc_id GROUP BY d.doc_id"
        ).fetchall())


def records(results: list[IngestResult]) -> list[tuple[object, ...]]:
    return [(Path(r.path).name, r.status, r.doc_id, r.passages, r.chars, r.flags, r.error)
            for r in results]


def test_a_folder_with_its_manifest_stores_what_the_command_stores(tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "docs")
    with Tether(tmp_path / "facade.db", settings=Settings()) as tether:
        results = tether.ingest(folder, manifest=folder / "manifest.json", license="CC BY 4.0")
    ran = run_tether("ingest", str(folder), "--manifest", str(folder / "manifest.json"),
                     "--license", "CC BY 4.0", "--db", str(tmp_path / "cli.db"), cwd=tmp_path)
    assert ran.code == 1, ran.err  # the missing file fails both
    assert stored(tmp_path / "facade.db") == stored(tmp_path / "cli.db")
    assert ("https://ex.org/methanol", "Methanol sheet", "CC BY 4.0", 1) in stored(tmp_path / "facade.db")
    assert ("https://ex.org/ammonia", "ammonia", "CC0", 1) in stored(tmp_path / "facade.db")
    # The manifest's missing file comes first, as a failure; then the files in walk order.
    assert [(Path(r.path).name, r.status) for r in results] == [
        ("gone.txt", "failed"), ("acetone.md", "ingested"), ("methanol.txt", "ingested"),
        ("ammonia.txt", "ingested"), ("chlorine.html", "ingested"),
    ]
    assert "failed: docs/gone.txt: listed in the manifest, but there is no such file" in ran.err


def test_progress_hears_of_each_file_once_after_its_write(tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "docs")
    heard: list[tuple[str, str, int, int]] = []
    with Tether(tmp_path / "t.db", settings=Settings()) as tether:

        def progress(path: Path, result: IngestResult, size: int) -> None:
            # Committed before it is heard: the store already lists the document.
            listed = tether.store.counts()["documents"]
            heard.append((path.name, result.status, size, listed))

        first = tether.ingest(folder, progress=progress)
        again = tether.ingest(folder, progress=progress)
    sizes = {Path(name).name: len(text.encode("utf-8")) for name, text in SHEETS.items()}
    assert [(name, status, size) for name, status, size, _ in heard] == [
        (name, status, sizes[name])
        for status in ("ingested", "unchanged")
        for name in ("acetone.md", "methanol.txt", "ammonia.txt", "chlorine.html")
    ]
    # The n-th new file is heard of once at least n documents are committed.
    assert all(listed >= min(n + 1, 4) for n, (*_, listed) in enumerate(heard))
    assert [r.status for r in first] == ["ingested"] * 4
    # The second ingest read nothing: each file was done on its size and time.
    assert all(r.status == "unchanged" and r.skipped for r in again)


def test_worker_processes_give_the_records_this_process_gives(tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "docs")
    with Tether(tmp_path / "alone.db", settings=Settings()) as alone, \
            Tether(tmp_path / "pool.db", settings=Settings()) as pooled:
        here = alone.ingest(folder, manifest=folder / "manifest.json", workers=1)
        there = pooled.ingest(folder, manifest=folder / "manifest.json", workers=2)
    assert records(there) == records(here)
    assert stored(tmp_path / "pool.db") == stored(tmp_path / "alone.db")


def test_a_bad_file_fails_alone_and_a_missing_path_fails_before_any_write(tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "docs")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    with Tether(tmp_path / "t.db", settings=Settings()) as tether:
        results = tether.ingest(folder)
        assert [r.status for r in results if Path(r.path).name == "broken.pdf"] == ["failed"]
        assert sum(r.status == "ingested" for r in results) == 4
        before = tether.store.counts()
        with pytest.raises(InputError, match="no such file or folder"):
            tether.ingest(folder / "methanol.txt", tmp_path / "no-such-folder")
        assert tether.store.counts() == before
