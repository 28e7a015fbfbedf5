"""Oversized request heads (issue 34 item 11) against a real ``python -m tether serve``:
a 200 KB header is a 431 and a 1 MB query string a 414, each a problem+json answer the
client reads in full (before: a connection reset, or a 200 when the head arrived in one
read); a malformed head is a 400 problem; the server answers on afterwards."""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tether.service.heads import MAX_HEAD_BYTES, MAX_REQUEST_LINE_BYTES, head_refusal

from .conftest import serve_process


@pytest.fixture(scope="module")
def server(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    db = tmp_path_factory.mktemp("heads") / "demo.db"
    shutil.copy(demo_db, db)
    with serve_process(db) as (url, _):
        address = httpx.URL(url)
        assert address.port is not None
        yield address.host, address.port


def exchange(server: tuple[str, int], request: bytes, piece: int) -> bytes:
    """Send ``request`` in pieces of ``piece`` bytes, then read until the server closes;
    a reset fails the test."""
    with socket.create_connection(server, timeout=30) as sock:
        for at in range(0, len(request), piece):
            sock.sendall(request[at:at + piece])
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def problem_of(response: bytes, status: int) -> dict[str, object]:
    head, _, body = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), head[:200]
    assert b"content-type: application/problem+json" in head.lower()
    problem = json.loads(body)
    assert problem["status"] == status
    return problem


HUGE_HEADER = (b"GET /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"a" * 200_000
               + b"\r\n\r\n")
HUGE_QUERY = b"GET /v1/documents?q=" + b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


@pytest.mark.parametrize("piece", [1_000_000_000, 4096], ids=["one-write", "pieces"])
def test_a_200_kb_header_is_431(server, piece):
    problem = problem_of(exchange(server, HUGE_HEADER, piece), 431)
    assert str(MAX_HEAD_BYTES) in str(problem["detail"])


@pytest.mark.parametrize("piece", [1_000_000_000, 16_384], ids=["one-write", "pieces"])
def test_a_1_mb_query_string_is_414(server, piece):
    problem = problem_of(exchange(server, HUGE_QUERY, piece), 414)
    assert str(MAX_REQUEST_LINE_BYTES) in str(problem["detail"])


def test_a_malformed_head_is_a_400_problem(server):
    problem_of(exchange(server, b"NOT HTTP AT ALL\r\n\r\n", 1024), 400)


def test_heads_within_the_bounds_are_served(server):
    host, port = server
    padding = "a" * (MAX_HEAD_BYTES // 2)
    query = "q=" + "a" * (MAX_REQUEST_LINE_BYTES // 2)
    for _ in range(2):  # and again after the refusals above
        got = httpx.get(f"http://{host}:{port}/v1/documents?{query}", headers={"X-Padding": padding},
                        timeout=30)
        assert got.status_code == 200, got.text


def test_the_bounds_sit_at_their_limits():
    line = b"GET /" + b"a" * (MAX_REQUEST_LINE_BYTES - len(b"GET / HTTP/1.1")) + b" HTTP/1.1"
    assert len(line) == MAX_REQUEST_LINE_BYTES
    assert head_refusal(line + b"\r\nHost: x\r\n\r\n") is None
    assert head_refusal(line) is None  # may still end in time
    assert head_refusal(line + b"aa")[0] == 414  # type: ignore[index]
    start = b"GET / HTTP/1.1\r\nX: "
    fits = start + b"a" * (MAX_HEAD_BYTES - len(start) - 4) + b"\r\n\r\n"
    assert len(fits) == MAX_HEAD_BYTES and head_refusal(fits) is None
    assert head_refusal(start + b"a" * (MAX_HEAD_BYTES - len(start) - 3) + b"\r\n\r\n")[0] == 431  # type: ignore[index]
    assert head_refusal(start + b"a" * MAX_HEAD_BYTES)[0] == 431  # type: ignore[index]
