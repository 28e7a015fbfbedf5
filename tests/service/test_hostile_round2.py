"""Hostile input, round two (issue 19, part 3), against a real ``python -m tether serve``
on loopback: JSON bodies with unpaired surrogates, deep nesting, huge numbers or bytes
that are not UTF-8 are 400 problems before any work (never a 500, never an ``error``
event mid-stream), and the trailing-slash redirect never echoes the ``Host`` header (a
keyless server answers no foreign ``Host`` at all)."""

from __future__ import annotations

import http.client
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .conftest import serve_process

JSON = {"content-type": "application/json"}
SURROGATE = {
    "/v1/answers": b'{"question": "What is the flash point of \\ud800 acetone?"}',
    "/v1/verify": b'{"passages": [{"id": "a", "text": "x \\ud800"}], "sentences": ["x \\ud800"]}',
    "/v1/citations/resolve": b'{"doc_id": "\\ud800", "version": "v", "start": 0, "end": 1, '
                             b'"quote": "q", "quote_hash": "h"}',
}


@pytest.fixture(scope="module")
def server(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    db = tmp_path_factory.mktemp("hostile") / "demo.db"
    shutil.copy(demo_db, db)
    with serve_process(db) as (url, lines):
        yield url, lines


@pytest.fixture
def client(server: tuple[str, list[str]]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server[0], timeout=30) as http:
        yield http


def assert_input_error(response: httpx.Response, *words: str) -> None:
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == "urn:tether:problem:input-error" and problem["status"] == 400
    for word in words:
        assert word in problem["detail"], problem


@pytest.mark.parametrize("path", SURROGATE, ids=list(SURROGATE))
def test_an_unpaired_surrogate_is_a_bad_request(client: httpx.Client, path: str):
    assert_input_error(client.post(path, content=SURROGATE[path], headers=JSON),
                       "unpaired surrogate \\ud800")


def test_a_streamed_question_with_a_surrogate_is_refused_before_the_stream(client: httpx.Client):
    body = b'{"question": "flash point \\udfff", "stream": true}'
    response = client.post("/v1/answers", content=body, headers=JSON)
    assert not response.headers["content-type"].startswith("text/event-stream")
    assert_input_error(response, "unpaired surrogate \\udfff")


def test_a_paired_surrogate_escape_is_an_ordinary_character(client: httpx.Client):
    body = (b'{"passages": [{"id": "a", "text": "Acetone boils at 56 C \\ud83d\\ude00."}], '
            b'"sentences": ["Acetone boils at 56 C \\ud83d\\ude00."]}')
    response = client.post("/v1/verify", content=body, headers=JSON)
    assert response.status_code == 200, response.text
    assert response.json()["sentences"][0]["outcome"] == "supported"


@pytest.mark.parametrize("body, words", [
    (b"[" * 200_000 + b"]" * 200_000, ("nested 200000 deep", "max_json_depth")),
    (b'{"passages": [], "sentences": [], "n": ' + b"9" * 100_000 + b"}",
     ("100000 characters", "max_json_number_chars")),
    (b'{"passages": [{"id": "a", "text": "\xff\xfe"}], "sentences": ["a"]}', ("not valid UTF-8",)),
], ids=["deep", "number", "not-utf8"])
def test_deep_huge_or_undecodable_bodies_are_bad_requests(client: httpx.Client, body: bytes,
                                                           words: tuple[str, ...]):
    for path in ("/v1/verify", "/v1/answers", "/v1/citations/resolve"):
        assert_input_error(client.post(path, content=body, headers=JSON), *words)


def test_json_that_is_not_json_stays_a_validation_problem(client: httpx.Client):
    response = client.post("/v1/answers", content=b'{"question": ', headers=JSON)
    assert response.status_code == 422 and response.json()["type"].endswith("validation-error")


def test_a_json_upload_with_a_surrogate_is_refused_not_stored(client: httpx.Client):
    body = b'{"source": "hostile-\\ud800", "text": "Acetone boils at 56 \\ud800 C."}'
    response = client.post("/v1/documents", content=body, headers=JSON)
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"] == "application/problem+json"
    listed = client.get("/v1/documents").json()
    assert not any("hostile" in str(doc) for doc in listed.get("documents", listed))


def test_the_trailing_slash_redirect_is_relative(client: httpx.Client):
    for method, path, target in [("POST", "/v1/answers/", "/v1/answers"),
                                 ("GET", "/healthz/?probe=1", "/healthz?probe=1")]:
        response = client.request(method, path, headers=JSON)
        assert response.status_code == 307, (path, response.text)
        assert response.headers["location"] == target
        # A keyless server does not answer another Host at all (ADR 0045).
        misdirected = client.request(method, path, headers={**JSON, "Host": "evil.example"})
        assert misdirected.status_code == 421 and "location" not in misdirected.headers
    # "//host/" must never become a redirect to another host (sent as is: httpx would
    # normalise the path).
    url = httpx.URL(str(client.base_url))
    raw = http.client.HTTPConnection(url.host, url.port, timeout=10)
    try:
        raw.request("GET", "//evil.example/")
        answer = raw.getresponse()
        assert answer.status == 404 and answer.getheader("location") is None
    finally:
        raw.close()


def test_no_hostile_body_left_an_internal_error_in_the_log(client: httpx.Client,
                                                           server: tuple[str, list[str]]):
    for path, body in SURROGATE.items():
        client.post(path, content=body, headers=JSON)
    assert client.get("/healthz").json() == {"status": "ok"}
    metrics = client.get("/metrics").text
    assert 'code="500"' not in metrics and 'status="500"' not in metrics
