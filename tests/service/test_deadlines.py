"""One request can no longer stall the service (issue 19 §2), against a real
``python -m tether serve`` on loopback: work stops at its deadline (the server's CPU
time stops growing), a key's heavy requests are capped (429 + Retry-After), trickled
headers and bodies are cut, and work bounds are refused naming their setting."""

from __future__ import annotations

import json
import random
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from proctree import cpu_seconds, descendants

from .conftest import UPLOAD, server_process
from .hostile import shared_stream_pdf, trickle, verify_body

# Long enough that a small request's niced worker finishes on a loaded machine (four
# test workers on two cores starved it past 1.5 s), far below the heavy work's 10 s+.
TIMEOUT_S = 4.0
# What a busy machine (four test workers on two cores) may add to an answer at the
# deadline: far below the 30 s to 10 min the work itself would run on.
SLACK_S = 8.0
SETTINGS = {
    "TETHER_REQUEST_TIMEOUT_S": str(TIMEOUT_S),
    "TETHER_HEADER_TIMEOUT_S": "1",
    "TETHER_MAX_HEAVY_PER_KEY": "1",
    "TETHER_MAX_VERIFY_PAIRS": "100000000",  # the deadline, not the bound, stops verify here
}


@pytest.fixture(scope="module")
def server(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    db = tmp_path_factory.mktemp("deadlines") / "demo.db"
    shutil.copy(demo_db, db)
    with server_process(db, env=SETTINGS) as (url, _, proc):
        yield url, proc.pid


@pytest.fixture
def client(server: tuple[str, int]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server[0], timeout=60) as http:
        yield http


def settle_cpu(pid: int, *, after_s: float = 0.3, over_s: float = 1.0) -> float:
    """CPU seconds the server spends over ``over_s``, ``after_s`` after the response."""
    time.sleep(after_s)
    before = cpu_seconds(pid)
    time.sleep(over_s)
    return cpu_seconds(pid) - before


def long_verify() -> dict[str, Any]:
    # 12,000 different sentences of six words (~0.5 MB), none a copy of a passage: each
    # gets its full alignments, ~10 s of CPU on a fast core, far past the 4 s deadline.
    # (Sentences repeating verify_body's twelve texts are settled from caches: a fast
    # machine finished 12,000 of them inside the deadline.)
    words = ["flash", "point", "diesel", "lamp", "oil", "boils", "vapour", "pressure", "methanol",
             "cabinet", "store", "heavier", "valve", "pump", "seal", "gasket", "tank", "hose",
             "filter", "drain", "spark", "fume", "drum", "label"]
    rng = random.Random(20)
    body = verify_body(0, 400)
    body["sentences"] = [" ".join(rng.sample(words, 6)).capitalize() + "." for _ in range(12_000)]
    return body


def assert_problem(response: httpx.Response, status: int, *words: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    for word in words:
        assert word in body["detail"], body
    return body


def test_verify_past_its_deadline_answers_504_and_its_work_stops(client, server):
    before = descendants(server[1])  # the forkserver heavy work is forked from
    started = time.monotonic()
    response = client.post("/v1/verify", json=long_verify())
    took = time.monotonic() - started
    assert_problem(response, 504, f"longer than {TIMEOUT_S:g} s")
    assert took < TIMEOUT_S + SLACK_S, took  # the response waits for the work to stop
    # Before: the thread was abandoned and ran on for ~30 s (CPU 1 s per second); the
    # work now runs in a child process, counted here with the server (cpu_seconds).
    assert settle_cpu(server[1]) < 0.1
    assert descendants(server[1]) == before  # the child that verified was killed


def test_an_upload_past_its_deadline_answers_504_stores_nothing_and_stops(client, server):
    # 2,000 pages drawing one 150 KB text stream: ~0.3 s of parsing per page, ~10 min in all.
    pdf = shared_stream_pdf(2000, 150_000, text=True)
    started = time.monotonic()
    response = client.post("/v1/documents", files={"file": ("slow.pdf", pdf, "application/pdf")},
                           data={"source": "https://example.org/slow.pdf"}, headers=UPLOAD)
    took = time.monotonic() - started
    assert_problem(response, 504, "nothing was stored")
    assert took < TIMEOUT_S + SLACK_S, took
    assert settle_cpu(server[1]) < 0.1
    listed = client.get("/v1/documents", params={"limit": 500}).json()["documents"]
    assert "https://example.org/slow.pdf" not in [d["source"] for d in listed]


def test_a_second_heavy_request_of_the_same_key_gets_429_with_retry_after(client, server):
    first: dict[str, httpx.Response] = {}

    def run() -> None:
        with httpx.Client(base_url=server[0], timeout=60) as other:
            first["response"] = other.post("/v1/verify", json=long_verify())

    before = descendants(server[1])
    thread = threading.Thread(target=run)
    thread.start()
    try:
        # The first one holds the key's slot once its work runs in a child of its own
        # (a fixed sleep lost this race on a loaded machine).
        waited = time.monotonic()
        while len(descendants(server[1])) <= len(before) and time.monotonic() - waited < 60:
            time.sleep(0.05)
        response = client.post("/v1/verify", json=verify_body(2, 2))
        body = assert_problem(response, 429, "max_heavy_per_key")
        wait = int(response.headers["retry-after"])
        assert 1 <= wait <= TIMEOUT_S + 1
        assert body["type"] == "urn:tether:problem:too-many-requests"
        # Light requests of the same key are not capped.
        assert client.get("/healthz").status_code == 200
        assert client.post("/v1/answers", json={"question": "What is the flash point of diesel?"},
                           ).status_code == 200
    finally:
        thread.join(30)
    assert first["response"].status_code == 504
    # The slot is free again once the first request has ended (not 429; on a loaded
    # machine the small request may itself reach the deadline).
    assert client.post("/v1/verify", json=verify_body(2, 2)).status_code in (200, 504)


def test_trickled_headers_are_cut_with_408(server):
    address = urlsplit(server[0])
    head = b"POST /v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n"
    got, closed_after = trickle(address.hostname or "", address.port or 0, head, every_s=0.1)
    assert got.startswith(b"HTTP/1.1 408 "), got[:200]
    assert b"header_timeout_s" in got
    assert closed_after < 1 + 1.0, closed_after  # header_timeout_s is 1


def test_a_trickled_body_is_cut_with_408_at_the_request_timeout(server):
    address = urlsplit(server[0])
    body = json.dumps(verify_body(2, 2)).encode()
    head = (b"POST /v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body))
    got, closed_after = trickle(address.hostname or "", address.port or 0, head, body, every_s=0.1)
    assert got.startswith(b"HTTP/1.1 408 "), got[:200]
    assert b"request_timeout_s" in got and b"connection: close" in got.lower()
    assert closed_after < TIMEOUT_S + 1.0, closed_after


def test_a_trickled_upload_is_cut_too(server):
    address = urlsplit(server[0])
    body = (b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n'
            b"Content-Type: text/plain\r\n\r\n" + b"x" * 5000 + b"\r\n--b--\r\n")
    head = (b"POST /v1/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Tether-Request: 1\r\n"
            b"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n" % len(body))
    got, closed_after = trickle(address.hostname or "", address.port or 0, head, body, every_s=0.1)
    assert got.startswith(b"HTTP/1.1 408 "), got[:200]
    assert closed_after < TIMEOUT_S + 1.0, closed_after


def test_an_honest_slow_connection_within_the_timeouts_is_served(demo_db, tmp_path):
    # A server of its own whose request deadline a loaded machine cannot reach: what is
    # tested is that a body trickled within the timeouts is read, not how fast a niced
    # worker verifies.
    db = tmp_path / "demo.db"
    shutil.copy(demo_db, db)
    env = {**SETTINGS, "TETHER_REQUEST_TIMEOUT_S": "120"}
    body = b'{"passages": [{"id": "a", "text": "Water boils at 100 C."}], "sentences": ["Water boils at 100 C."]}'
    head = (b"POST /v1/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body))
    with server_process(db, env=env) as (url, _, _proc):
        address = urlsplit(url)
        # All of it within 1 s: the body trickles in one byte every 5 ms.
        got, _ = trickle(address.hostname or "", address.port or 0, head, body, every_s=0.005)
    assert got.startswith(b"HTTP/1.1 200 "), got[:300]


@pytest.mark.parametrize(("env", "pdf", "setting"), [
    ({"TETHER_MAX_PDF_PAGE_TOKENS": "20000"}, shared_stream_pdf(3, 100_000, text=True),
     "max_pdf_page_tokens"),
    ({"TETHER_MAX_PDF_TOKENS": "50000"}, shared_stream_pdf(40, 20_000, text=True), "max_pdf_tokens"),
])
def test_a_pdf_over_a_work_bound_is_refused_naming_the_setting(demo_db, tmp_path, env, pdf, setting):
    db = tmp_path / "demo.db"
    shutil.copy(demo_db, db)
    with server_process(db, env=env) as (url, _, _proc), httpx.Client(base_url=url, timeout=60) as http:
        response = http.post("/v1/documents", files={"file": ("big.pdf", pdf, "application/pdf")},
                             data={"source": "https://example.org/big.pdf"}, headers=UPLOAD)
    assert_problem(response, 413, setting)


def test_the_hostile_2000_page_pdf_is_refused_at_once(demo_db, tmp_path):
    # The file: 2,000 pages sharing one 8 MiB drawing stream (was 78 s of CPU,
    # then 422), under the default request_timeout_s.
    pdf = shared_stream_pdf(2000, 8 * 1024 * 1024)
    db = tmp_path / "demo.db"
    shutil.copy(demo_db, db)
    with server_process(db) as (url, _, proc), httpx.Client(base_url=url, timeout=60) as http:
        before = cpu_seconds(proc.pid)
        response = http.post("/v1/documents", files={"file": ("draw.pdf", pdf, "application/pdf")},
                             data={"source": "https://example.org/draw.pdf"}, headers=UPLOAD)
        spent = cpu_seconds(proc.pid) - before
    assert_problem(response, 422, "no text layer")
    assert spent < 3.0, spent  # ~0.5 s: the stream is scanned once, never parsed
