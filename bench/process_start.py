"""What a worker process costs to start, by start method: spawn, forkserver, fork.

    PYTHONPATH=src python bench/process_start.py PAGE.html [--rounds 5]

Each round starts one process per start method and has it do what an ingest worker's
first file does (``plan.build_document`` of ``PAGE``: the extractors imported, the
rule scan built, the page read), then report its own CPU time; the parent measures
the wall time from ``start()`` to the result. ``forkserver`` is timed twice: its
first start (the server itself starts, importing the extractors once as
``service.isolate`` preloads them) and a later one (a fork of the warm server).
``fork`` forks this process after it did the same work once, as ``forked_map``
does (verify's workers inherit what the parent built). The best of the rounds, in
milliseconds. Also checked: whether ``ProcessPoolExecutor`` accepts
``max_tasks_per_child`` (ingest's worker recycling, ADR 0028) with each method.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path

from tether.config import Settings
from tether.ingest.files import Metadata
from tether.ingest.plan import build_document

_PRELOAD = ["tether.ingest.plan", "tether.ingest.extract", "tether.ingest.extract.html", "lxml.html",
            "trafilatura"]


def _first_file(page: bytes) -> None:
    build_document(page, "text/html", Metadata(), name="page", default_source="page",
                   default_title="page", settings=Settings())


def _worker(page: bytes, sender: Connection) -> None:
    _first_file(page)
    sender.send(time.process_time())
    sender.close()


def _timed(context: multiprocessing.context.BaseContext, page: bytes) -> tuple[float, float]:
    """(wall ms from start to result, the child's CPU ms)."""
    receiver, sender = context.Pipe(duplex=False)
    started = time.perf_counter()
    child = context.Process(target=_worker, args=(page, sender))
    child.start()
    sender.close()
    cpu = receiver.recv()
    wall = time.perf_counter() - started
    child.join()
    return wall * 1e3, cpu * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    page = args.page.read_bytes()
    best: dict[str, tuple[float, float]] = {}

    def keep(name: str, figures: tuple[float, float]) -> None:
        old = best.get(name)
        best[name] = figures if old is None else (min(old[0], figures[0]), min(old[1], figures[1]))

    spawn = multiprocessing.get_context("spawn")
    fork = multiprocessing.get_context("fork")
    server = multiprocessing.get_context("forkserver")
    server.set_forkserver_preload(_PRELOAD)
    for n in range(args.rounds):
        keep("spawn", _timed(spawn, page))
        if n == 0:
            keep("forkserver, first (server starts)", _timed(server, page))
        keep("forkserver, warm", _timed(server, page))
        if n == 0:
            _first_file(page)  # the parent has done it once: a fork inherits it
        keep("fork of a warm parent", _timed(fork, page))
    print(f"worker start and first file ({len(page):,} bytes of HTML), best of {args.rounds}:")
    for name, (wall, cpu) in best.items():
        print(f"  {name:34s} wall {wall:7.1f} ms   child CPU {cpu:7.1f} ms")
    for name, context in (("spawn", spawn), ("forkserver", server), ("fork", fork)):
        try:
            ProcessPoolExecutor(1, mp_context=context, max_tasks_per_child=20).shutdown()
            print(f"  ProcessPoolExecutor(max_tasks_per_child=20) with {name}: accepted")
        except ValueError as exc:
            print(f"  ProcessPoolExecutor(max_tasks_per_child=20) with {name}: refused ({exc})")


if __name__ == "__main__":
    main()
