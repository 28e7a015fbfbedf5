"""Ctrl-C typed into ``tether ingest``, ``tether verify`` and ``tether serve`` through
a terminal (``ptyrun``), each while its other processes run: ingest's spawned
workers, verify's forked ones, the server's forkserver. Shared by
tests/cli/test_ctrl_c.py (a few tries) and bench/ctrl_c.py (20 each).

Each case prepares its input once (``setup``) and is then interrupted any number of
times; ``after`` checks what must hold once it has exited (ingest: the store is
consistent, as ``tether check`` reads it).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from ptyrun import Interrupted, cmdline, interrupt, parent, problems
from service.hostile import verify_body

SRC = str(Path(__file__).resolve().parents[1] / "src")


def env() -> dict[str, str]:
    """This checkout's tether, no TETHER_ setting of the caller's but the lexical
    reader (no model to load, as in tests/conftest.py), a plain terminal."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    return {**kept, "PYTHONPATH": SRC, "TETHER_READER": "lexical", "TERM": "xterm", "COLUMNS": "100"}


def _spawned_worker(pids: set[int]) -> bool:
    return any(b"spawn_main" in cmdline(pid) for pid in pids)


@dataclass
class Case:
    name: str
    folder: Path
    phase: str = "start"  # when Ctrl-C is typed (each case says which phases it has)

    def setup(self) -> None: ...

    def run(self) -> Interrupted: ...

    def after(self, run: Interrupted) -> list[str]:
        return []

    def check(self) -> tuple[Interrupted, list[str]]:
        run = self.run()
        return run, problems(run) + (self.after(run) if run.code is not None else [])


class Ingest(Case):
    """A folder of HTML pages (extraction is worth a pool of workers), interrupted
    once a spawned worker process exists (phase ``start``: it may still be starting,
    the window where an interrupt used to reach it before it could ignore it), or
    once the progress bar counts a file written and a worker runs (``writing``)."""

    def setup(self) -> None:
        pages = self.folder / "pages"
        pages.mkdir(parents=True, exist_ok=True)
        for n in range(120):
            rows = "".join(f"<p>Pump {n} valve {k} is checked every {k + 2} days by the "
                           f"fitter on shift {k % 3} of unit {n}.</p>" for k in range(150))
            (pages / f"page{n:03d}.html").write_text(
                f"<html><head><title>Page {n}</title></head><body><h1>Unit {n}</h1>{rows}</body></html>")

    def _db(self) -> Path:
        return self.folder / "store.db"

    def run(self) -> Interrupted:
        self._db().unlink(missing_ok=True)
        return interrupt(["-m", "tether", "ingest", str(self.folder / "pages"), "--db", str(self._db())],
                         ready=self._ready, env=env(), cwd=self.folder)

    def _ready(self, shown: str, below: set[int]) -> bool:
        written = self.phase != "writing" or re.search(r"\b[1-9][0-9]*/120\b", shown) is not None
        return written and _spawned_worker(below)

    def after(self, run: Interrupted) -> list[str]:
        if not self._db().exists():
            return []  # interrupted before the store was created: nothing to check
        check = subprocess.run([sys.executable, "-m", "tether", "check", "--db", str(self._db())],
                               env=env(), capture_output=True, text=True, timeout=120, check=False)
        if check.returncode != 0 or not check.stdout.startswith("ok:"):
            return [f"store not consistent: {check.returncode} {check.stdout!r} {check.stderr!r}"]
        return []


class Verify(Case):
    """3,000 sentences against 2,000 passages alike in their words (seconds of work
    in forked workers), interrupted once a worker has been forked."""

    def setup(self) -> None:
        nouns = ["pump", "hatch", "valve", "cylinder", "fan", "sump"]
        passages = [{"id": f"p{i}", "text": f"The {nouns[i % 6]} at unit {i} was checked by fitter tag{i}x."}
                    for i in range(2000)]
        sentences = [passages[(i * 7919) % 2000]["text"].replace("checked", "checked" if i % 2 else "replaced")
                     for i in range(3000)]
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "request.json").write_text(json.dumps({"passages": passages, "sentences": sentences}))

    def run(self) -> Interrupted:
        with (self.folder / "request.json").open("rb") as stdin:
            return interrupt(["-m", "tether", "verify"], ready=lambda shown, below: bool(below),
                             env={**env(), "TETHER_VERIFY_WORKERS": "2"}, cwd=self.folder, stdin=stdin)


class Serve(Case):
    """The server on a small store and a free port, interrupted once its forkserver
    (which heavy requests are forked from) exists, maybe still importing (phase
    ``start``); once it says it is serving (``serving``); or while a child forked
    from the forkserver verifies a request (``busy``: a client posts one after the
    other until then)."""

    def setup(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        note = self.folder / "note.txt"
        note.write_text("The pump at unit 4 is checked every 30 days.")
        subprocess.run([sys.executable, "-m", "tether", "ingest", str(note), "--db", str(self.folder / "serve.db")],
                       env=env(), capture_output=True, timeout=120, check=True)

    def run(self) -> Interrupted:
        self._stop = threading.Event()
        try:
            return interrupt(["-m", "tether", "serve", "--db", str(self.folder / "serve.db"), "--port", "0"],
                             ready=self._ready, env=env(), cwd=self.folder)
        finally:
            self._stop.set()

    def _ready(self, shown: str, below: set[int]) -> bool:
        if self.phase == "start":
            return any(b"forkserver" in cmdline(pid) for pid in below)
        served = re.search(r"serving .* on (http://\S+)", shown)
        if served is None or self.phase == "serving":
            return served is not None
        if not self._stop.is_set() and not any(t.name == "client" for t in threading.enumerate()):
            threading.Thread(target=self._post, args=(served.group(1),), name="client", daemon=True).start()
        # A child of the forkserver, itself a child of the server: a request's work.
        forked = any(parent(pid) in below for pid in below)
        if forked:
            self._stop.set()
        return forked

    def _post(self, base: str) -> None:
        body = verify_body(200, 200)
        with httpx.Client(base_url=base, timeout=60) as client:
            while not self._stop.is_set():
                try:
                    client.post("/v1/verify", json=body)
                except httpx.HTTPError:
                    return  # the server is going


CASES: dict[str, Callable[[Path], Case]] = {
    "ingest": lambda folder: Ingest("ingest", folder, "start"),
    "ingest-writing": lambda folder: Ingest("ingest-writing", folder, "writing"),
    "verify": lambda folder: Verify("verify", folder),
    "serve": lambda folder: Serve("serve", folder, "serving"),
    "serve-start": lambda folder: Serve("serve-start", folder, "start"),
    "serve-busy": lambda folder: Serve("serve-busy", folder, "busy"),
}
