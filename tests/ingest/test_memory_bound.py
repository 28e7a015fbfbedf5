"""Memory is bounded by settings (ADR 0028): workers are replaced after
``ingest_worker_max_files`` files, and what they prepare is what one process prepares."""

from __future__ import annotations

import time

import pytest

from tether.config import Settings, load_settings
from tether.errors import ConfigError
from tether.ingest.parallel import ingest_files
from tether.ingest.files import Metadata
from tether.store.sqlite import SQLiteStore

from .test_big_html import big_page


def _folder(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(5):
        (folder / f"{n}-manual.html").write_text(big_page(3 + n, seed=n), encoding="utf-8")
        (folder / f"{n}-notes.txt").write_text(f"Note {n}. The pump {n} is checked daily.\n" * 40,
                                               encoding="utf-8")
    return sorted(folder.iterdir())


def _ingest(paths, db, workers, settings):
    store = SQLiteStore(db)
    try:
        results = ingest_files(store, paths, lambda p: Metadata(), settings=settings,
                               workers=workers)
        return [(r.path, r.status, r.version, r.passages) for r in results]
    finally:
        store.close()


def test_workers_replaced_after_every_file_prepare_what_one_process_does(tmp_path) -> None:
    paths = _folder(tmp_path)
    # The largest pages stream (a 4 KiB setting), the rest take the tree path.
    settings = Settings(html_full_extract_max_bytes=4096, ingest_worker_max_files=1)
    recycled = _ingest(paths, tmp_path / "pool.db", 2, settings)
    alone = _ingest(paths, tmp_path / "alone.db", 1, settings)
    assert recycled == alone
    assert [status for _, status, _, _ in recycled] == ["ingested"] * len(paths)


def test_the_worker_file_limit_is_a_setting(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no tether.toml here
    monkeypatch.delenv("TETHER_CONFIG", raising=False)
    assert load_settings().ingest_worker_max_files == Settings().ingest_worker_max_files >= 1
    monkeypatch.setenv("TETHER_INGEST_WORKER_MAX_FILES", "7")
    assert load_settings().ingest_worker_max_files == 7
    monkeypatch.setenv("TETHER_INGEST_WORKER_MAX_FILES", "0")
    with pytest.raises(ConfigError, match="ingest_worker_max_files"):
        load_settings()


def test_plain_text_in_chunks_prepares_what_one_process_does(tmp_path) -> None:
    # Small text files travel to the workers several to a task (parallel._chunks); a
    # file that fails among them fails alone, and the order is the order given.
    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(70):
        lines = 400 if n == 37 else 3 + n % 5
        (folder / f"{n:02d}-notes.txt").write_text(f"Note {n}. The valve {n} is shut.\n" * lines,
                                                   encoding="utf-8")
    paths = sorted(folder.iterdir())
    settings = Settings(max_file_bytes=8000)
    pooled = _ingest(paths, tmp_path / "pool.db", 2, settings)
    alone = _ingest(paths, tmp_path / "alone.db", 1, settings)
    assert pooled == alone
    assert [path for path, _, _, _ in pooled] == [str(p) for p in paths]
    assert [status for _, status, _, _ in pooled] == ["ingested"] * 37 + ["failed"] + ["ingested"] * 32


def test_the_writers_head_start_hands_the_rest_to_the_workers(tmp_path, monkeypatch) -> None:
    # While the workers start, the writer prepares the leading text files itself, and
    # hands the rest of them back once the workers' first chunk is ready: every file
    # is prepared once, in the order given, as one process prepares it.
    from tether.ingest import parallel

    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(40):
        lines = 400 if n == 25 else 4
        (folder / f"{n:02d}-notes.txt").write_text(f"Note {n}. The valve {n} is shut.\n" * lines,
                                                   encoding="utf-8")
    paths = sorted(folder.iterdir())
    settings = Settings(max_file_bytes=8000)
    alone = _ingest(paths, tmp_path / "alone.db", 1, settings)
    here = []
    prepare = parallel.prepare_file

    def slowly(job, *, settings):  # the writer's own preparing only: workers are spawned
        here.append(job.path.name)
        time.sleep(0.3)
        return prepare(job, settings=settings)

    monkeypatch.setattr(parallel, "prepare_file", slowly)
    monkeypatch.setattr(parallel, "_HEAD_BYTES", 30 * 140)  # the head: about 30 files
    pooled = _ingest(paths, tmp_path / "pool.db", 2, settings)
    assert pooled == alone
    assert 1 <= len(here) < 25  # the failing file (and the rest) went to the workers
    assert here == [p.name for p in paths[: len(here)]]
