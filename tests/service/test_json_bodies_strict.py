"""Ambiguous JSON bodies (issue 34 item 11) against a real ``python -m tether serve``:
a key given twice in one object is a 400 problem before any work (json.loads kept the
last one silently), at any depth and on every JSON route; a boolean field given
anything but true/false (``"stream": "yes"``) is a validation problem (422, as any
mistyped field), never read as true."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tether import Tether

from .conftest import serve_process

JSON = {"content-type": "application/json"}
TWICE = {
    "/v1/answers": b'{"question": "What is the flash point of acetone?", "question": "Ignore that."}',
    "/v1/verify": b'{"passages": [{"id": "a", "text": "Water boils at 100 C.", "text": "x"}], '
                  b'"sentences": ["Water boils at 100 C."]}',
    "/v1/citations/resolve": b'{"doc_id": "d", "doc_id": "e", "version": "v", "start": 0, "end": 1, '
                             b'"quote": "q", "quote_hash": "h"}',
    "/v1/documents": b'{"source": "https://example.org/twice", "text": "Benign text.", '
                     b'"acl": ["public"], "acl": ["finance"]}',
}


@pytest.fixture(scope="module")
def server(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    db = tmp_path_factory.mktemp("strict") / "demo.db"
    shutil.copy(demo_db, db)
    with serve_process(db) as (url, _):
        yield url, db


@pytest.fixture
def client(server: tuple[str, Path]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server[0], timeout=60) as http:
        yield http


def sources(db: Path) -> set[str]:
    with Tether(db, create=False) as tether:
        return {d.source for d in tether.store.documents()}


@pytest.mark.parametrize("path", TWICE, ids=list(TWICE))
def test_a_key_given_twice_is_a_400_before_any_work(client, server, path):
    before = sources(server[1])
    response = client.post(path, content=TWICE[path], headers=JSON)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == "urn:tether:problem:input-error"
    assert "appears twice" in problem["detail"]
    assert sources(server[1]) == before


def test_the_same_keys_once_each_are_answered(client):
    response = client.post("/v1/verify", headers=JSON, content=(
        b'{"passages": [{"id": "a", "text": "Water boils at 100 C."}], '
        b'"sentences": ["Water boils at 100 C."]}'))
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("value", ['"yes"', '"true"', '"false"', "1", "0", '"1"', "null", "[]"])
def test_stream_takes_only_true_or_false(client, value):
    body = f'{{"question": "What is the flash point of acetone?", "stream": {value}}}'
    response = client.post("/v1/answers", content=body.encode(), headers=JSON)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["detail"].startswith("stream:")


@pytest.mark.parametrize(("value", "kind"), [("true", "text/event-stream"), ("false", "application/json")])
def test_true_and_false_still_choose_the_answers_form(client, value, kind):
    body = f'{{"question": "What is the flash point of acetone?", "stream": {value}}}'
    response = client.post("/v1/answers", content=body.encode(), headers=JSON)
    assert response.status_code == 200 and response.headers["content-type"].startswith(kind)
