"""The ingest writer alone: writing prepared documents into a new store, beside the floor.

    python bench/bench_writer.py /tmp/corpus24/text             # a folder of .txt/.md files
    python bench/bench_writer.py /tmp/corpus24/text --rounds 5

What bounds plain-text ingest on two cores is the one writer (the workers keep ahead
of it after their first chunk). This bench takes the workers out: it prepares every
file of the folder in this process first (``plan.prepare_file``, untimed), passes
each result through pickle as a worker's result travels, then times
``write.write_prepared`` of them all into a new SQLite store in batches of 64 files
(``store.batch``, as ``ingest.parallel`` commits them). Figures: CPU and wall seconds,
the best of the rounds, beside the floor of the same run: the same text inserted into a
bare FTS5 table (``bench_ingest.fts5_floor``: one transaction, ~600-character rows).
Build a corpus with ``bench/bench_ingest.py --keep DIR`` (its ``text`` folder).
"""

from __future__ import annotations

import argparse
import pickle
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_ingest import fts5_floor
from bench_prepare import _jobs

from tether.config import Settings
from tether.ingest.parallel import _BATCH_FILES  # the files a batch commits at most
from tether.ingest.plan import prepare_file
from tether.ingest.write import write_prepared
from tether.store.sqlite import SQLiteStore


def _write(blobs: list[bytes], db: Path) -> tuple[float, float]:
    """(CPU, wall) seconds to unpickle and write every prepared file into ``db``."""
    store = SQLiteStore(db)
    cpu, wall = time.process_time(), time.perf_counter()
    for lo in range(0, len(blobs), _BATCH_FILES):
        with store.batch():
            for blob in blobs[lo : lo + _BATCH_FILES]:
                write_prepared(store, pickle.loads(blob))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    store.close()
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    settings = Settings()
    jobs = _jobs(args.folder, settings)
    mb = sum(job.size for job in jobs) / 1e6
    blobs = [pickle.dumps(prepare_file(job, settings=settings)) for job in jobs]
    best = {"writer cpu": float("inf"), "writer wall": float("inf"), "floor": float("inf")}
    with tempfile.TemporaryDirectory() as scratch:
        for n in range(args.rounds):  # alternated: a burst of load hits both
            cpu, wall = _write(blobs, Path(scratch) / f"store{n}.db")
            best["writer cpu"] = min(best["writer cpu"], cpu)
            best["writer wall"] = min(best["writer wall"], wall)
            best["floor"] = min(best["floor"], fts5_floor(args.folder, Path(scratch) / f"floor{n}.db"))
    floor = best["floor"]
    print(f"{len(jobs)} files, {mb:.2f} MB, best of {args.rounds} rounds")
    print(f"writer   CPU {best['writer cpu']:.2f} s   wall {best['writer wall']:.2f} s"
          f"   {mb / best['writer wall']:.1f} MB/s   x{best['writer wall'] / floor:.1f} of the floor")
    print(f"floor    wall {floor:.2f} s   {mb / floor:.1f} MB/s (bare FTS5 insert of the same text)")


if __name__ == "__main__":
    main()
