"""Many files at once: extraction and segmentation in worker processes, one writer.

The parent plans every file (a file the store's record says is unchanged is done on
its ``stat`` alone), hands the rest to a pool of ``workers`` processes that read,
extract, detect and segment them (``plan.prepare_file``: no store in there), and
writes each document itself, in its own transaction, in the order the files were
given; while workers prepare the next files, their transactions are savepoints of
one batch that commits them together, at most every quarter second (``_write``,
docs/adr/0027). Plain-text files travel to a worker in small chunks (``_chunks``).
At most ``2 × workers`` chunks wait for the writer, each one file or at most
``_CHUNK_BYTES`` of files, so memory is bounded by the worker count and the per-file
limits (``max_file_bytes``, ``max_text_chars``), not by the folder. A file that
fails leaves nothing of itself and the others go on. On Ctrl-C the workers, which
ignore it (``workers.start_worker``), are stopped at once; what was committed stays.

    >>> results = ingest_files(store, paths, lambda p: Metadata(), settings=Settings())  # doctest: +SKIP
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, wait
from contextlib import ExitStack, closing
from pathlib import Path
from typing import Any

from ..config import Settings
from ..store import Store
from ..workers import default_workers, interrupts_held, start_worker
from .files import IngestResult, Metadata
from .plan import FileJob, Prepared, plan_file, prepare_file
from .write import write_prepared

__all__ = ["ingest_files"]

Done = Callable[[Path, IngestResult, int], None]  # (path, result, bytes) after each file
Outcome = tuple[Any, ...]  # a Prepared's fields but its job (``Prepared.outcome``)


def ingest_files(
    store: Store,
    paths: Sequence[Path],
    meta_for: Callable[[Path], Metadata],
    *,
    settings: Settings,
    workers: int = 0,
    verify: bool = False,
    done: Done | None = None,
) -> list[IngestResult]:
    """Ingest ``paths`` in order; ``workers`` processes extract (0: one per core).
    ``done`` is called after each file with its result and its size in bytes."""
    sized = workers == 0  # one per core, as many as the work keeps busy (_pool_size)
    workers = workers or default_workers()
    results: list[IngestResult | None] = [None] * len(paths)
    jobs: list[tuple[int, FileJob]] = []
    for n, path in enumerate(paths):
        planned = plan_file(store, path, meta_for(path), settings=settings, verify=verify)
        if isinstance(planned, IngestResult):
            results[n] = planned
            if done is not None:
                done(path, planned, max(0, _size(path)))
        else:
            jobs.append((n, planned))
    if sized:
        workers = _pool_size(jobs, workers)
        inline = workers == 0
    else:  # as asked: one worker means this process alone
        inline = workers <= 1
    # Closed here, not when an error's traceback lets go of it: its workers stop now.
    with closing(_prepared(jobs, settings, workers, inline=inline)) as prepared:
        _write(store, prepared, results, done)
    return [r for r in results if r is not None]


# A batch of writes (one commit) ends at this many files or seconds, or when no
# worker is preparing a next file: other writers of the store wait no longer than
# that for its lock, a kill loses no more than that of work, and the progress bar
# moves at least this often.
_BATCH_FILES = 64
_BATCH_S = 0.25


def _write(
    store: Store,
    prepared: Iterator[tuple[int, Prepared, Future[list[Outcome]] | None]],
    results: list[IngestResult | None],
    done: Done | None,
) -> None:
    """The one writer: each document in its own transaction, or, while workers
    prepare the next files, in a savepoint of a batch that commits them together
    (a store with ``batch``: SQLite), for up to ``_BATCH_S``: the write lock is held
    while waiting for a worker only within that. ``done`` hears of each file once its
    write is committed."""
    opener = getattr(store, "batch", None)
    written: list[tuple[Path, IngestResult, int]] = []
    batch = ExitStack()
    opened = -1.0
    try:
        for n, item, upcoming in prepared:
            if opener is not None and upcoming is not None and opened < 0:
                batch.enter_context(opener())
                opened = time.monotonic()
            result = write_prepared(store, item)
            results[n] = result
            written.append((item.job.path, result, max(0, item.job.size)))
            left = _BATCH_S - (time.monotonic() - opened)
            if opened < 0 or upcoming is None or len(written) >= _BATCH_FILES or left <= 0 or (
                    not upcoming.done() and wait([upcoming], timeout=left).not_done):
                batch.close()  # commits
                opened = -1.0
                _heard(done, written)
    finally:
        batch.close()  # what completed before a failure is kept, as it was per file
        _heard(done, written)


def _heard(done: Done | None, written: list[tuple[Path, IngestResult, int]]) -> None:
    if done is not None:
        for path, result, size in written:
            done(path, result, size)
    written.clear()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _prepared(
    jobs: list[tuple[int, FileJob]], settings: Settings, workers: int, *, inline: bool
) -> Generator[tuple[int, Prepared, Future[list[Outcome]] | None], None, None]:
    """Each job prepared, in order, and the future that holds the next one: in this
    process for one job or ``inline`` (a pool costs more to start than a little work
    takes; the next file is never ready, it is yet to be prepared here), else in a
    pool of ``workers`` with a bounded queue of chunks (``_chunks``)."""
    if len(jobs) <= 1 or inline:
        for n, job in jobs:
            yield n, prepare_file(job, settings=settings), None
        return
    head = _head(jobs)
    if len(head) == len(jobs):
        yield from _prepared(jobs, settings, workers, inline=True)
        return
    # A worker is replaced after ingest_worker_max_files files, handing back what its
    # heap grew to (ADR 0028), only where an extractor's heap can grow (HTML, PDF):
    # plain text leaves none behind, and a replaced worker costs a start (~0.5 s of
    # CPU) every few files (602 text files: 20 s of CPU where the whole ingest took 4).
    recycle = any(job.path.suffix.lower() not in _PREPARE_BYTES_S for _, job in jobs)
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=_context(),
                             initializer=start_worker, initargs=(os.getpid(),),
                             max_tasks_per_child=settings.ingest_worker_max_files if recycle
                             else None) as pool:
        waiting: deque[tuple[list[tuple[int, FileJob]], Future[list[Outcome]]]] = deque()
        queue = _chunks(jobs[len(head):], one_each=recycle)

        def submit(chunk: list[tuple[int, FileJob]], *, first: bool = False) -> None:
            with interrupts_held(spawning=True):  # it may start a worker, or the pool's thread
                entry = (chunk, pool.submit(_prepare_all, [job for _, job in chunk], settings=settings))
            waiting.appendleft(entry) if first else waiting.append(entry)

        try:
            for chunk in queue:
                submit(chunk)
                if len(waiting) >= 2 * workers:
                    break
            # While the workers start (an interpreter each), this process prepares the
            # files at the head itself, so the first writes are not later than without a
            # pool; once the workers' first chunk is back, the rest of the head is theirs
            # (ahead of what they have: it is written first).
            here: Future[list[Outcome]] = Future()  # the next file is prepared here: ready
            here.set_result([])
            for k, (n, job) in enumerate(head):
                prepared = prepare_file(job, settings=settings)
                last = k + 1 == len(head) or waiting[0][1].done()
                if last and k + 1 < len(head):
                    submit(head[k + 1:], first=True)
                yield n, prepared, waiting[0][1] if last else here
                if last:
                    break
            while waiting:
                chunk, future = waiting.popleft()
                outcomes = future.result()
                for more in queue:  # keep the workers busy while this one is written
                    submit(more)
                    break
                after = waiting[0][1] if waiting else None
                for k, ((n, job), outcome) in enumerate(zip(chunk, outcomes, strict=True)):
                    yield n, Prepared.of(job, outcome), future if k + 1 < len(chunk) else after
        except BaseException:  # an interrupt, a failed write, the writer gone
            _stop(pool)
            raise


def _stop(pool: ProcessPoolExecutor) -> None:
    """The pool's workers killed: their work is wanted no more, they hold nothing of
    the store's, and they ignore Ctrl-C (else the pool's exit would wait for the files
    they are preparing)."""
    # A pool lists its processes in ``_processes`` (3.11-3.13); 3.14 has kill_workers.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    kill = getattr(pool, "kill_workers", None)
    if callable(kill):
        kill()
    for process in processes:
        process.kill()


# Plain-text files travel to a worker in chunks of about this many bytes (a file
# larger than that alone): each task costs ~0.16 ms of the writer's CPU in IPC (602
# tasks: 0.1 s, 41 chunks: 0.01 s), and a chunk is no more memory than one file.
_CHUNK_BYTES = 128 * 1024
_CHUNK_FILES = 32


# The files the writer prepares itself while the workers start: plain text (so it
# never imports the HTML and PDF extractors), about this many bytes of it.
_HEAD_BYTES = 1024 * 1024


def _head(jobs: list[tuple[int, FileJob]]) -> list[tuple[int, FileJob]]:
    """The leading plain-text jobs, up to ``_HEAD_BYTES`` (at least one)."""
    head: list[tuple[int, FileJob]] = []
    size = 0
    for item in jobs:
        size += max(0, item[1].size)
        if item[1].path.suffix.lower() not in _PREPARE_BYTES_S or (head and size > _HEAD_BYTES):
            break
        head.append(item)
    return head


def _chunks(jobs: list[tuple[int, FileJob]], *, one_each: bool) -> Iterator[list[tuple[int, FileJob]]]:
    """``jobs`` in order, in runs of consecutive jobs; ``one_each``: one job a run
    (where workers are recycled after so many tasks, a task stays one file)."""
    chunk: list[tuple[int, FileJob]] = []
    size = 0
    for item in jobs:
        if chunk and (one_each or size + max(0, item[1].size) > _CHUNK_BYTES
                      or len(chunk) >= _CHUNK_FILES):
            yield chunk
            chunk, size = [], 0
        chunk.append(item)
        size += max(0, item[1].size)
    if chunk:
        yield chunk


def _prepare_all(jobs: list[FileJob], *, settings: Settings) -> list[Outcome]:
    """A worker's task: each job prepared, in order, sent back without the job."""
    return [prepare_file(job, settings=settings).outcome() for job in jobs]


# Bytes per second one worker prepares, roughly, by file type (issue 20's benches), and
# the work a worker must have to pay for its start (a spawned interpreter importing
# the extractors and building the rule scan: ~0.5 s of CPU). Plain text is cheap to
# prepare, so 4 MB of it keeps one worker busy for about a second: a second worker
# would mostly start.
# Markdown is rendered first (markdown-it-py, ADR 0046): ~2.4 MB/s of CPU on this
# repository's docs, on top of what the text then costs, so ~1.5 MB/s in all.
_PREPARE_BYTES_S = {".txt": 4e6, ".md": 1.5e6, ".markdown": 1.5e6}
_OTHER_BYTES_S = 3e5  # HTML and PDF: extraction dominates
_WORK_PER_WORKER_S = 1.0


def _pool_size(jobs: list[tuple[int, FileJob]], workers: int) -> int:
    """Workers to start when the count is left to ingest: at most ``workers`` (the
    cores) and one per job, and no more than the estimated work keeps busy; 0 means
    no pool (this process prepares and writes: the work would not pay for a start).
    Even one worker is worth it beyond that: it prepares while this process writes."""
    seconds = sum(max(0, job.size) / _PREPARE_BYTES_S.get(job.path.suffix.lower(), _OTHER_BYTES_S)
                  for _, job in jobs)
    return min(workers, len(jobs), round(seconds / _WORK_PER_WORKER_S))


def _context() -> multiprocessing.context.BaseContext:
    # Spawned, never forked from this process, which may hold store connections and
    # threads (the progress bar, a connection pool), and whose pool recycles workers
    # (refused with fork); and children of this process itself, not of a forkserver,
    # so the parent-death signal reaches them (a forkserver's outlived a SIGKILLed
    # ingest: ADR 0061).
    return multiprocessing.get_context("spawn")
