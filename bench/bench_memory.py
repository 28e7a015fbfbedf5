"""Peak memory of ``tether ingest``: the whole process tree, each process, and its floor.

    python bench/bench_memory.py --folder /tmp/corpus/mixed          # a folder already built
    python bench/bench_memory.py --keep /tmp/corpus                  # build (or reuse) bench_ingest's
    python bench/bench_memory.py --folder DIR --workers 1,2 --env TETHER_X=1

Every figure is ``tether ingest FOLDER --db FILE --workers N`` run as a real process,
its process tree sampled from /proc every 20 ms: the peak of the tree's summed RSS
(parent plus workers, what the machine must hold) and the peak of each process alone.
Beside it, in the same run, the floor: the same command on a small folder of three
text files (interpreters started and imports done, nothing large read), and the
largest HTML page of the folder ingested alone (``--workers 1``: one process).
The folder is bench_ingest's "mixed" folder (every HTML page and PDF /usr/share/doc
has, one of them an ~8 MB page, plus text files); sampling every 20 ms can miss a
peak shorter than that, so the figures are lower bounds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

MIB = 2**20


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def _tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as children:
                    todo += [int(c) for c in children.read().split()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return found


def run_ingest(paths: list[Path], db: Path, workers: int, env: dict[str, str]) -> dict[str, object]:
    """``tether ingest`` as a process: wall s, peak tree RSS, peak RSS per process, rc."""
    command = [sys.executable, "-m", "tether", "ingest", *map(str, paths), "--db", str(db),
               "--workers", str(workers)]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env})
    peak_tree, per_pid = 0, {}
    while proc.poll() is None:
        total = 0
        for pid in _tree(proc.pid):
            rss = _rss(pid)
            total += rss
            per_pid[pid] = max(per_pid.get(pid, 0), rss)
        peak_tree = max(peak_tree, total)
        time.sleep(0.02)
    wall = time.perf_counter() - started
    out, err = proc.communicate()
    parent = per_pid.pop(proc.pid, 0)
    return {"s": wall, "tree": peak_tree, "parent": parent,
            "procs": sorted(per_pid.values(), reverse=True),
            "rc": proc.returncode, "out": out.strip().splitlines()[-1:] or [""], "err": err}


def _line(label: str, run: dict[str, object]) -> str:
    procs = " + ".join(f"{p / MIB:.0f}" for p in run["procs"][:4])  # type: ignore[index]
    return (f"  {label:<34} {run['s']:7.1f} s   tree peak {run['tree'] / MIB:6.0f} MiB"  # type: ignore[operator]
            f"   peak MiB of the parent {run['parent'] / MIB:.0f}, of each child: "  # type: ignore[operator]
            f"{procs or '-'}   rc {run['rc']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, help="the folder to ingest (default: build mixed)")
    parser.add_argument("--keep", type=Path, help="build (or reuse) bench_ingest's corpus here")
    parser.add_argument("--workers", default="2", help="comma list of worker counts (default 2)")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the ingests")
    parser.add_argument("--skip-floor", action="store_true", help="no small-folder / big-page runs")
    args = parser.parse_args(argv)
    env = dict(item.split("=", 1) for item in args.env)
    work = Path(tempfile.mkdtemp(prefix="tether-bench-memory-"))
    try:
        folder = args.folder
        if folder is None:
            from bench_ingest import build_corpus

            root = args.keep or work / "corpus"
            folder = build_corpus(root, man_pages=500, copyright_bytes=2_000_000,
                                  html_bytes=6_000_000)["mixed"]
        files = [p for p in folder.rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
        big = max((p for p in files if p.suffix == ".html"), key=lambda p: p.stat().st_size)
        print(f"{folder}: {len(files)} files, {size / 1e6:.1f} MB; largest HTML page {big.name}"
              f" {big.stat().st_size / 1e6:.1f} MB; {os.cpu_count()} cores; env {env or '-'};"
              f" load {os.getloadavg()[0]:.2f}")
        if not args.skip_floor:
            small = work / "small"
            small.mkdir()
            texts = sorted(p for p in files if p.suffix == ".txt")[:3]
            for page in texts:
                shutil.copyfile(page, small / page.name)
            for workers in map(int, args.workers.split(",")):
                print(_line(f"small folder (3 text), {workers} workers",
                            run_ingest([small], work / f"small{workers}.db", workers, env)))
            print(_line("largest HTML page alone, 1 process",
                        run_ingest([big], work / "big.db", 1, env)))
        for workers in map(int, args.workers.split(",")):
            run = run_ingest([folder], work / f"mixed{workers}.db", workers, env)
            print(_line(f"whole folder, {workers} workers", run))
            print(f"  {'':<34} {run['out'][0][-150:]}")  # type: ignore[index]
        print(f"  (target: whole folder <= 300 MiB; load {os.getloadavg()[0]:.2f})")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
