"""Ingest throughput on real third-party text, each figure beside a floor from the same run.

    python bench/bench_ingest.py                    # build the corpus in a temp dir, measure
    python bench/bench_ingest.py --man 200          # fewer man pages (a quicker run)
    python bench/bench_ingest.py --keep /tmp/corpus # keep (and reuse) the rendered corpus
    python bench/bench_ingest.py --text-copies 10   # also 10 copies of the text as one folder

The corpus is built reproducibly from what this machine ships (sorted paths, nothing
random): man pages rendered with ``man -P cat`` (MANWIDTH=80) and Debian copyright
files from /usr/share/doc as plain text; /usr/share/doc's HTML pages; its PDFs; and a
"mixed" folder of 267 files (every HTML page and PDF under /usr/share/doc, one of
them a real ~8 MB page, plus text files) for re-ingest and memory.

Every ingest is ``tether ingest FOLDER --db FILE`` as a real process (start-up
included, as a user sees it). Figures:

- plain text MB/s (UTF-8 bytes of the files) beside the *floor*: the same text read
  and inserted into a bare SQLite FTS5 table (same tokenizer, ~600-character rows,
  one transaction) in this process, in the same run, and the ratio; and the same
  less tether's start-up (``tether ingest --help``), which the floor does not pay;
  with ``--text-copies N``, also N copies of that folder ingested as one folder,
  beside its own floor (the fixed costs spread over N times the text);
- HTML and PDF separately, MB/s of file bytes and pages/s (an HTML file is a page);
- the mixed folder: first ingest, re-ingest unchanged, and re-ingest with one file
  edited beside that file ingested alone; and the peak RSS of the ``tether`` process
  tree (parent plus workers, summed) during the first ingest.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

MAN_DIR = Path("/usr/share/man/man1")
DOC_DIR = Path("/usr/share/doc")
ROW_CHARS = 600  # the floor's row size: Settings.passage_chars
BIG_PAGE = 2_000_000  # HTML pages this large go to the mixed folder only
MIXED_FILES = 267


def _render_man(page: Path) -> str:
    env = {**os.environ, "MANWIDTH": "80", "LANG": "C.UTF-8", "MAN_KEEP_FORMATTING": ""}
    done = subprocess.run(["man", "-P", "cat", "-l", str(page)], capture_output=True, env=env,
                          timeout=60, check=False)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else ""


def _copyrights() -> list[tuple[str, str]]:
    found = []
    for path in sorted(DOC_DIR.glob("*/copyright")):
        if path.is_file() and not path.is_symlink():
            found.append((path.parent.name, path.read_text(encoding="utf-8", errors="replace")))
    return found


def build_text(folder: Path, man_pages: int, copyright_bytes: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pages = sorted(p for p in MAN_DIR.iterdir() if p.name.endswith(".gz") and not p.is_symlink())
    step = max(1, len(pages) // max(1, man_pages))
    chosen = pages[::step][:man_pages]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for page, text in zip(chosen, pool.map(_render_man, chosen)):
            if text.strip():
                (folder / (page.name.removesuffix(".gz") + ".txt")).write_text(text, encoding="utf-8")
    used = 0
    for name, text in _copyrights():
        if used >= copyright_bytes:
            break
        (folder / f"{name}.copyright.txt").write_text(text, encoding="utf-8")
        used += len(text.encode("utf-8"))


def build_corpus(root: Path, *, man_pages: int, copyright_bytes: int, html_bytes: int) -> dict[str, Path]:
    folders = {name: root / name for name in ("text", "html", "pdf", "mixed")}
    if not (root / "done").exists():
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)
        build_text(folders["text"], man_pages, copyright_bytes)
        folders["html"].mkdir(parents=True)
        used = 0
        for n, page in enumerate(sorted(DOC_DIR.rglob("*.html"))):
            if used >= html_bytes:
                break
            if page.is_file() and not page.is_symlink() and page.stat().st_size < BIG_PAGE:
                shutil.copyfile(page, folders["html"] / f"{n:03d}-{page.name}")
                used += page.stat().st_size
        folders["pdf"].mkdir(parents=True)
        for page in sorted(DOC_DIR.rglob("*.pdf")):
            shutil.copyfile(page, folders["pdf"] / page.name)
        mixed = folders["mixed"]
        mixed.mkdir(parents=True)
        # Every HTML page and PDF /usr/share/doc has (one is a real ~8 MB page), then
        # text files up to MIXED_FILES in all.
        pages = [p for p in sorted(DOC_DIR.rglob("*")) if p.suffix in (".html", ".pdf")
                 and p.is_file() and not p.is_symlink()]
        for n, page in enumerate(pages):
            shutil.copyfile(page, mixed / f"{n:03d}-{page.name}")
        for page in sorted(folders["text"].iterdir())[: max(0, MIXED_FILES - len(pages))]:
            shutil.copyfile(page, mixed / page.name)
        (root / "done").write_text("ok")
    return folders


def copied(folder: Path, into: Path, copies: int) -> Path:
    """``copies`` of each file of ``folder`` in ``into``, under other names (each a
    document of its own: a document is named by its path)."""
    into.mkdir(parents=True)
    for n in range(copies):
        for path in sorted(folder.iterdir()):
            shutil.copyfile(path, into / f"{n:03d}-{path.name}")
    return into


def folder_bytes(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


# -- the floor -------------------------------------------------------------------


def fts5_floor(folder: Path, db: Path) -> float:
    """Seconds to read the folder's text and insert it into a bare FTS5 table."""
    started = time.perf_counter()
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
    con.execute("BEGIN")
    for path in sorted(folder.iterdir()):
        text = path.read_text(encoding="utf-8", errors="replace")
        con.executemany("INSERT INTO t(text) VALUES (?)",
                        [(text[i : i + ROW_CHARS],) for i in range(0, len(text), ROW_CHARS)])
    con.execute("COMMIT")
    con.close()
    return time.perf_counter() - started


# -- the product, as a process ---------------------------------------------------


def _tree_rss(pid: int) -> int:
    """RSS in bytes of ``pid`` and all its descendants (Linux /proc)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/status", encoding="ascii", errors="replace") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children", encoding="ascii") as children:
                    todo += [int(c) for c in children.read().split()]
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def run_ingest(paths: list[Path], db: Path, *extra: str) -> dict[str, float | int | str]:
    """``tether ingest`` as a process: wall seconds, peak tree RSS, exit code, stderr."""
    command = [sys.executable, "-m", "tether", "ingest", *map(str, paths), "--db", str(db), *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(0.02)
    wall = time.perf_counter() - started
    out, err = proc.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # workers are reaped by tether
    cpu = sum(getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime"))
    return {"s": wall, "rss": peak, "rc": proc.returncode, "out": out.strip(), "err": err, "cpu": cpu}


def startup_s() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tether", "ingest", "--help"], capture_output=True, check=True)
    return time.perf_counter() - started


def pdf_pages(folder: Path) -> int:
    from pypdf import PdfReader

    return sum(len(PdfReader(str(p)).pages) for p in folder.glob("*.pdf"))


def _mb(n: float) -> float:
    return n / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--man", type=int, default=500, help="man pages rendered (default 500)")
    parser.add_argument("--copyright-mb", type=float, default=2.0)
    parser.add_argument("--html-mb", type=float, default=6.0)
    parser.add_argument("--keep", type=Path, help="build (or reuse) the corpus here")
    parser.add_argument("--skip", default="", help="comma list of parts to skip: text,html,pdf,mixed")
    parser.add_argument("--text-copies", type=int, default=1,
                        help="plain text: also ingest this many copies of the text folder as one"
                             " folder (steady-state throughput, start-up spread over more text)")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    work = Path(tempfile.mkdtemp(prefix="tether-bench-ingest-"))
    root = args.keep or work / "corpus"
    try:
        started = time.perf_counter()
        folders = build_corpus(root, man_pages=args.man, copyright_bytes=int(args.copyright_mb * 1e6),
                               html_bytes=int(args.html_mb * 1e6))
        startup = startup_s()
        print(f"corpus in {root} ({time.perf_counter() - started:.1f} s to build or find);"
              f" {os.cpu_count()} cores; tether start-up {startup:.2f} s (included below);"
              f" load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if "text" not in skip:
            files, size = folder_bytes(folders["text"])
            floor = fts5_floor(folders["text"], work / "floor.db")
            run = run_ingest([folders["text"]], work / "text.db")
            print(f"\nplain text: {files} files, {_mb(size):.2f} MB (man pages, copyright files)")
            print(f"  tether ingest   {run['s']:7.2f} s  {_mb(size) / run['s']:6.2f} MB/s   rc {run['rc']};"
                  f" CPU {run['cpu']:.2f} s (process tree: a figure the machine's load moves less)")
            print(f"  bare FTS5 floor {floor:7.2f} s  {_mb(size) / floor:6.2f} MB/s"
                  f"   tether x{run['s'] / floor:.1f} of the floor   (target >= 10 MB/s, <= x2)")
            # The floor runs in this process; tether's figure includes its start-up
            # (the interpreter and the CLI's imports), shown apart here.
            less = max(1e-3, run["s"] - startup)
            print(f"  less start-up   {less:7.2f} s  {_mb(size) / less:6.2f} MB/s"
                  f"   x{less / floor:.1f} of the floor")
        if "text" not in skip and args.text_copies > 1:
            copies = copied(folders["text"], work / "text-copies", args.text_copies)
            files, size = folder_bytes(copies)
            floor = fts5_floor(copies, work / "floor-copies.db")
            run = run_ingest([copies], work / "text-copies.db")
            print(f"\nplain text x{args.text_copies}: {files} files, {_mb(size):.2f} MB"
                  " (the same files under other names)")
            print(f"  tether ingest   {run['s']:7.2f} s  {_mb(size) / run['s']:6.2f} MB/s   rc {run['rc']};"
                  f" CPU {run['cpu']:.2f} s")
            print(f"  bare FTS5 floor {floor:7.2f} s  {_mb(size) / floor:6.2f} MB/s"
                  f"   tether x{run['s'] / floor:.1f} of the floor")
        if "html" not in skip:
            files, size = folder_bytes(folders["html"])
            run = run_ingest([folders["html"]], work / "html.db")
            print(f"\nHTML: {files} pages, {_mb(size):.2f} MB (/usr/share/doc)")
            print(f"  tether ingest   {run['s']:7.2f} s  {_mb(size) / run['s']:6.2f} MB/s"
                  f"  {files / run['s']:6.1f} pages/s   rc {run['rc']}")
        if "pdf" not in skip:
            files, size = folder_bytes(folders["pdf"])
            pages = pdf_pages(folders["pdf"])
            run = run_ingest([folders["pdf"]], work / "pdf.db")
            print(f"\nPDF: {files} files, {pages} pages, {_mb(size):.2f} MB (/usr/share/doc)")
            print(f"  tether ingest   {run['s']:7.2f} s  {_mb(size) / run['s']:6.2f} MB/s"
                  f"  {pages / run['s']:6.1f} pages/s   rc {run['rc']}")
        if "mixed" not in skip:
            mixed(folders["mixed"], work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def mixed(folder: Path, work: Path) -> None:
    files, size = folder_bytes(folder)
    big = max(p.stat().st_size for p in folder.glob("*.html"))
    db = work / "mixed.db"
    first = run_ingest([folder], db)
    print(f"\nmixed folder: {files} files, {_mb(size):.1f} MB, one HTML page of {_mb(big):.1f} MB")
    print(f"  first ingest          {first['s']:7.2f} s   peak RSS (process tree)"
          f" {first['rss'] / 2**20:6.0f} MiB   (target <= 300 MiB)   rc {first['rc']}")
    print(f"                        {first['out'][-160:]}")
    again = run_ingest([folder], db)
    print(f"  re-ingest, unchanged  {again['s']:7.2f} s   x{again['s'] / first['s']:.3f} of the first"
          f"   (target <= 2 s)   {again['err'].count('flagged:')} flag lines")
    edited = min(folder.glob("*.txt"))
    with edited.open("a", encoding="utf-8") as handle:
        handle.write(f"\nEdited by the benchmark at {time.time()}.\n")
    one = run_ingest([edited], work / "alone.db")
    after = run_ingest([folder], db)
    print(f"  re-ingest, 1 edited   {after['s']:7.2f} s   that file alone (fresh store) {one['s']:.2f} s;"
          f" difference {after['s'] - one['s']:+.2f} s (target <= +2 s)")
    print(f"                        {after['out'][-160:]}")


if __name__ == "__main__":
    sys.exit(main())
