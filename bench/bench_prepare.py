"""CPU of preparing plain-text files for ingest, beside the floor of reading them.

    python bench/bench_prepare.py /tmp/corpus/text       # a folder of .txt/.md files
    python bench/bench_prepare.py /tmp/corpus/text --rounds 7

``plan.prepare_file`` is what an ingest worker does with a file: read it, hash it,
extract its text, cut passages and sentences, detect instruction-like text, build the
passage records (no store). This bench runs it in this process over every file of the
folder, and, in the same rounds, the floor: the same files read and SHA-256 hashed.
Both are CPU seconds (``time.process_time``, so another process's load does not
count), the best of the rounds, with the files already in the page cache; figures are
seconds per MB of file bytes. Build a corpus with ``bench/bench_ingest.py --keep DIR``
(its ``text`` folder).
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path

from tether.config import Settings
from tether.ingest.files import Metadata
from tether.ingest.plan import FileJob, plan_file, prepare_file
from tether.store import open_store


def _jobs(folder: Path, settings: Settings) -> list[FileJob]:
    paths = sorted(p for p in folder.iterdir() if p.suffix in (".txt", ".md") and p.is_file())
    with tempfile.TemporaryDirectory() as scratch:
        store = open_store(str(Path(scratch) / "plan.db"))  # empty: every file is to read
        jobs = [plan_file(store, path, Metadata(), settings=settings) for path in paths]
        store.close()
    return [job for job in jobs if isinstance(job, FileJob)]


def _cpu(work: str, jobs: list[FileJob], settings: Settings) -> float:
    start = time.process_time()
    if work == "prepare":
        for job in jobs:
            prepare_file(job, settings=settings)
    else:
        for job in jobs:
            hashlib.sha256(job.path.read_bytes()).hexdigest()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    settings = Settings()
    jobs = _jobs(args.folder, settings)
    mb = sum(job.size for job in jobs) / 1e6
    prepare_file(jobs[0], settings=settings)  # builds the rule scan once, as a worker does
    best = {"prepare": float("inf"), "floor": float("inf")}
    for _ in range(args.rounds):
        for work, so_far in list(best.items()):  # alternated: a burst of load hits both
            best[work] = min(so_far, _cpu(work, jobs, settings))
    print(f"{len(jobs)} files, {mb:.2f} MB, best of {args.rounds} rounds (CPU seconds)")
    print(f"prepare_file  {best['prepare']:.3f} s  {best['prepare'] / mb:.4f} s/MB"
          f"  {mb / best['prepare']:.1f} MB/s")
    print(f"floor (read + sha256)  {best['floor']:.3f} s  {best['floor'] / mb:.4f} s/MB"
          f"  ratio x{best['prepare'] / best['floor']:.1f}")


if __name__ == "__main__":
    main()
