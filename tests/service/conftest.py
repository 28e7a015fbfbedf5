"""Fixtures for the service: stores we write ourselves, the ASGI client, live servers.

``acl_texts`` is a small collection with documents readable by different principals,
including a finance-only document about "Project Kestrel" that public callers must
never see a trace of.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.testclient import TestClient

from tether import Tether
from tether.config import Settings
from tether.ingest.files import Metadata
from tether.ingest.write import ingest_bytes
from tether.ops.apikeys import hash_key
from tether.service import create_app

SRC = Path(__file__).resolve().parents[2] / "src"

PUBLIC_DOCS = {
    "https://example.org/methanol": (
        "Methanol",
        "Methanol boils at 64.7 °C at sea level. Methanol vapour is heavier than air. "
        "Store methanol away from oxidisers in a ventilated cabinet.",
    ),
    "https://example.org/projects": (
        "Project handbook",
        "Every project has a code name and a budget owner. Project budgets are reviewed "
        "each quarter by the steering group. A project closes when its final report is filed.",
    ),
}
FINANCE_SOURCE = "https://intranet.example.org/finance/kestrel-memo"
FINANCE_DOC = (
    "Kestrel acquisition memo",
    "Project Kestrel is the code name for the acquisition of Osprey Holdings. "
    "The Kestrel budget is 42 million euros. Project Kestrel closes in March 2027. "
    "The budget owner of Project Kestrel is Ines Varga.",
)
HR_SOURCE = "https://intranet.example.org/hr/salary-bands"
HR_DOC = ("Salary bands", "The salary band for senior chemists is 71,000 to 84,000 euros per year.")


def ingest_text(tether: Tether, source: str, title: str, text: str, acl: tuple[str, ...]) -> str:
    result = ingest_bytes(
        tether.store, text.encode("utf-8"), media_type="text/plain",
        meta=Metadata(source=source, title=title, license="CC0", fetched_at="2026-01-05", acl=acl),
        settings=tether.settings,
    )
    assert result.doc_id is not None
    return result.doc_id


def build_acl_store(path: Path, *, with_hidden: bool = True, settings: Settings | None = None) -> Tether:
    tether = Tether(path, settings=settings or Settings())
    for source, (title, text) in PUBLIC_DOCS.items():
        ingest_text(tether, source, title, text, ("public",))
    if with_hidden:
        ingest_text(tether, FINANCE_SOURCE, *FINANCE_DOC, ("finance",))
        ingest_text(tether, HR_SOURCE, *HR_DOC, ("hr",))
    return tether


@pytest.fixture
def acl_tether(tmp_path: Path) -> Iterator[Tether]:
    with build_acl_store(tmp_path / "acl.db") as tether:
        yield tether


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tether.cli.demo import build_demo_store

    path = tmp_path_factory.mktemp("demo") / "demo.db"
    build_demo_store(path).close()
    return path


@pytest.fixture
def demo_tether(demo_db: Path, tmp_path: Path) -> Iterator[Tether]:
    copy = tmp_path / "demo.db"
    shutil.copy(demo_db, copy)
    with Tether(copy, settings=Settings(), create=False) as tether:
        yield tether


def add_key(tether: Tether, name: str, *principals: str) -> str:
    key = f"tk_test_{name}_{os.urandom(8).hex()}"
    tether.store.add_key(name, list(principals), hash_key(key))
    return key


# What a script or curl adds to a multipart upload to a keyless server: a header a page
# on another site cannot send without a preflight (service/crosssite.py).
UPLOAD = {"X-Tether-Request": "1"}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def client_for():
    """``client_for(tether, **create_app options)`` → a TestClient (ASGI, in process)."""
    clients: list[TestClient] = []

    def make(tether: Tether, **options: object) -> TestClient:
        client = TestClient(create_app(tether, **options), raise_server_exceptions=False)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@contextmanager
def uvicorn_thread(app: object) -> Iterator[str]:
    """A real uvicorn server for ``app`` on 127.0.0.1 with an ephemeral port."""
    sock = socket.socket()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@contextmanager
def serve_process(db: Path, *extra: str, probe: str = "/healthz",
                  env: dict[str, str] | None = None) -> Iterator[tuple[str, list[str]]]:
    """``python -m tether serve --db DB --port 0`` as a subprocess: (base URL, the lines it
    printed). ``probe`` is the path asked until the server answers; once the server has
    stopped, the rest of what it printed is appended to the lines. ``env``: variables
    set for the server on top of this process's (``TETHER_*`` settings)."""
    with server_process(db, *extra, probe=probe, env=env) as (url, lines, _):
        yield url, lines


@contextmanager
def server_process(db: Path, *extra: str, probe: str = "/healthz",
                   env: dict[str, str] | None = None
                   ) -> Iterator[tuple[str, list[str], subprocess.Popen[str]]]:
    """``serve_process`` that also yields the server's process (its pid, for its CPU time)."""
    env = {**os.environ, **(env or {}),
           "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether", "serve", "--db", str(db), "--port", "0", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    lines: list[str] = []
    url = None
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            found = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
            if found:
                url = found.group(1)
        assert url, "server did not report its address:\n" + "\n".join(lines)
        # The line is printed just before uvicorn starts; wait until it answers.
        for _ in range(200):
            try:
                httpx.get(url + probe, timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield url, lines, proc
    finally:
        proc.terminate()
        try:
            rest, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            rest, _ = proc.communicate()
        lines.extend(rest.splitlines())


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium through Playwright, one per test module (browser tests)."""
    from .browser import CHROMIUM, require_browser

    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield chromium
        chromium.close()
