"""``tether serve --access-log``: one line per request, through a real server process.

Method, path, status, milliseconds and the key's name; never the key, its hash or a
query string. Without the flag the server prints no request lines.
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

import httpx

from tether.ops.apikeys import hash_key

from .conftest import SRC, add_key, bearer, build_acl_store

LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?P<method>[A-Z]+) (?P<path>\S+) "
                  r"(?P<status>\d{3}) (?P<ms>\d+\.\d)ms key=(?P<key>\S+)$")


@contextmanager
def serving(db: Path, *extra: str) -> Iterator[tuple[str, list[str]]]:
    """The server's URL, then (once it has stopped) every line it printed."""
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether", "serve", "--db", str(db), "--port", "0", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        url = None
        while url is None:
            line = proc.stdout.readline()
            assert line, "server stopped before reporting its address:\n" + "\n".join(lines)
            lines.append(line.rstrip("\n"))
            found = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
            url = found.group(1) if found else None
        for _ in range(200):
            try:
                httpx.get(url + "/v1/access", timeout=1)  # the readiness probe: left out below
                break
            except httpx.TransportError:
                time.sleep(0.05)
        lines.append("--- ready")
        yield url, lines
    finally:
        proc.terminate()
        try:
            rest, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            rest, _ = proc.communicate()
        lines.extend(rest.splitlines())


def _requests(lines: list[str]) -> list[dict[str, str]]:
    after = lines[lines.index("--- ready") + 1:]
    return [m.groupdict() for line in after
            if (m := LINE.match(line)) and m.group("path") != "/v1/access"]


def test_one_line_per_request_with_the_key_name_and_never_the_key(tmp_path):
    db = tmp_path / "acl.db"
    with build_acl_store(db) as tether:
        key = add_key(tether, "finance-team", "finance")
    with serving(db, "--access-log") as (url, lines):
        assert httpx.get(url + "/healthz").status_code == 200
        answered = httpx.post(url + "/v1/answers", headers=bearer(key),
                              json={"question": "What is the Kestrel budget?", "stream": True})
        assert answered.status_code == 200 and "event: done" in answered.text
        assert httpx.get(url + "/v1/documents/nope?token=s3cret", headers=bearer(key)).status_code == 404
        assert httpx.get(url + "/v1/documents", headers=bearer("tk_wrong")).status_code == 401
    got = _requests(lines)
    assert [(r["method"], r["path"], r["status"], r["key"]) for r in got] == [
        ("GET", "/healthz", "200", "-"),
        ("POST", "/v1/answers", "200", "finance-team"),
        ("GET", "/v1/documents/nope", "404", "finance-team"),
        ("GET", "/v1/documents", "401", "-"),
    ], "\n".join(lines)
    assert all(float(r["ms"]) >= 0 for r in got)
    printed = "\n".join(lines)
    for secret in (key, hash_key(key), "tk_wrong", "s3cret"):
        assert secret not in printed


def test_without_the_flag_no_request_is_logged(tmp_path):
    db = tmp_path / "acl.db"
    build_acl_store(db, with_hidden=False).close()
    with serving(db) as (url, lines):
        assert httpx.get(url + "/healthz").status_code == 200
        assert httpx.post(url + "/v1/answers", json={"question": "At what temperature does methanol boil?"}).status_code == 200
    after = lines[lines.index("--- ready") + 1:]
    assert not [line for line in lines if "/v1/access" in line], lines
    assert not [line for line in after if "/healthz" in line or "/v1/answers" in line], after
