"""``tether serve --access-log``: one line per request, through a real server process.

Method, path, status, milliseconds and the key's name; never the key, its hash or a
query string. Without the flag the server prints no request lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tether.ops.apikeys import hash_key

from .conftest import add_key, bearer, build_acl_store, serve_process

LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (?P<method>[A-Z]+) (?P<path>\S+) "
                  r"(?P<status>\d{3}) (?P<ms>\d+\.\d)ms key=(?P<key>\S+)$")


@contextmanager
def serving(db: Path, *extra: str) -> Iterator[tuple[str, list[str]]]:
    """The server's URL, then (once it has stopped) every line it printed; "--- ready"
    marks where the requests of the test begin (the readiness probe is left out below)."""
    with serve_process(db, *extra, probe="/v1/access") as (url, lines):
        lines.append("--- ready")
        yield url, lines


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
