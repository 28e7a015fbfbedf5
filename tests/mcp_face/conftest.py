"""Stores for the MCP server's tests, and the server as a real subprocess.

The collection is written here: public safety notes and a finance memo only the
``finance`` principal may read.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tether import Tether
from tether.config import Settings
from tether.ops.apikeys import hash_key

SRC = Path(__file__).resolve().parents[2] / "src"
PUBLIC_NOTES = {
    "methanol.txt": "Methanol boils at 64.7 °C at sea level. Methanol vapour is heavier than air. "
                    "Store methanol away from oxidisers in a ventilated cabinet.",
    "acetone.txt": "Acetone has a flash point of about -20 °C. Acetone evaporates quickly and "
                   "its vapour can travel to an ignition source.",
}
FINANCE_MEMO = ("Project Kestrel is the code name for the acquisition of Osprey Holdings. "
                "The Kestrel budget is 42 million euros.")


def server_env() -> dict[str, str]:
    """This source tree first on the server's path; the reader pinned as in conftest; no
    key from the environment the tests run in (each test gives its own)."""
    env = {k: v for k, v in os.environ.items() if k != "TETHER_API_KEY"}
    return {**env, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
            "TETHER_READER": os.environ.get("TETHER_READER", "lexical")}


def build_store(db: Path, folder: Path) -> Path:
    """Public notes and a finance-only memo, ingested through the facade."""
    (folder / "public").mkdir(parents=True)
    for name, text in PUBLIC_NOTES.items():
        (folder / "public" / name).write_text(text, encoding="utf-8")
    (folder / "finance").mkdir()
    (folder / "finance" / "kestrel.txt").write_text(FINANCE_MEMO, encoding="utf-8")
    with Tether(db, settings=Settings()) as tether:
        for result in tether.ingest(folder / "public", license="CC0", fetched_at="2026-01-05"):
            assert result.status == "ingested", result
        for result in tether.ingest(folder / "finance", license="internal", fetched_at="2026-01-05",
                                    acl=["finance"]):
            assert result.status == "ingested", result
    return db


@pytest.fixture
def store_db(tmp_path: Path) -> Path:
    return build_store(tmp_path / "notes.db", tmp_path / "docs")


def add_key(db: Path, name: str, *principals: str) -> str:
    key = f"tk_test_{name}_{os.urandom(8).hex()}"
    with Tether(db, settings=Settings(), create=False) as tether:
        tether.store.add_key(name, list(principals), hash_key(key))
    return key


@contextmanager
def http_server(db: Path, *extra: str, env: dict[str, str] | None = None
                ) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``python -m tether mcp --http --port 0`` as a subprocess: (its /mcp URL, process)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether", "mcp", "--db", str(db), "--http", "--port", "0", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**server_env(), **(env or {})},
    )
    try:
        assert proc.stderr is not None
        lines: list[str] = []
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            found = re.search(r"on (http://127\.0\.0\.1:\d+/mcp)", line)
            url = found.group(1) if found else None
        assert url, "the server did not report its address:\n" + "".join(lines)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
