"""Errors are problem+json everywhere; body size limits bite while the body arrives."""

from __future__ import annotations

import json
import re

from tether import Tether, errors
from tether.config import Settings
from tether.service.problems import status_for


def _small(tmp_path) -> Tether:
    tether = Tether(tmp_path / "e.db", settings=Settings(max_request_bytes=1000))
    return tether


def test_declared_body_over_the_limit_is_refused_before_reading(tmp_path, client_for):
    with _small(tmp_path) as tether:
        response = client_for(tether).post("/v1/answers", json={"question": "q" * 2000})
        assert response.status_code == 413
        assert response.headers["content-type"] == "application/problem+json"
        assert "1000 bytes" in response.json()["detail"]


def test_chunked_body_over_the_limit_is_cut_off(tmp_path, client_for):
    def chunks():
        yield b'{"question": "'
        for _ in range(50):
            yield b"q" * 100
        yield b'"}'

    with _small(tmp_path) as tether:
        response = client_for(tether).post(
            "/v1/answers", content=chunks(), headers={"content-type": "application/json"})
        assert response.status_code == 413
        assert response.json()["type"] == "urn:tether:problem:limit-exceeded"


def test_a_body_under_the_limit_passes(tmp_path, client_for):
    with _small(tmp_path) as tether:
        response = client_for(tether).post("/v1/answers", json={"question": "anything at all?"})
        assert response.status_code == 200 and response.json()["refused"]


def test_unknown_routes_and_methods_are_problems(tmp_path, client_for):
    with _small(tmp_path) as tether:
        client = client_for(tether)
        for response, status in ((client.get("/v2/nothing"), 404), (client.get("/v1/answers"), 405)):
            assert response.status_code == status
            assert response.headers["content-type"] == "application/problem+json"
            assert response.json()["status"] == status


class Exploding(Tether):
    def stream(self, question, **options):  # type: ignore[override]
        events = super().stream(question, **options)
        yield next(events)  # the sources
        raise RuntimeError("secret internal detail")


def test_an_internal_failure_is_a_bare_500_problem(tmp_path, client_for):
    with Exploding(tmp_path / "x.db") as tether:
        response = client_for(tether).post("/v1/answers", json={"question": "anything?"})
        assert response.status_code == 500
        assert response.headers["content-type"] == "application/problem+json"
        assert "secret" not in response.text


def test_a_failure_mid_stream_is_an_error_event(tmp_path, client_for):
    with Exploding(tmp_path / "x.db") as tether:
        with client_for(tether).stream("POST", "/v1/answers",
                                       json={"question": "anything?", "stream": True}) as r:
            body = r.read().decode()
    events = [(k, json.loads(d)) for k, d in re.findall(r"event: (\w+)\ndata: (.*)\n\n", body)]
    assert [k for k, _ in events] == ["sources", "error"]
    assert events[-1][1]["status"] == 500 and "secret" not in body


def test_every_tether_error_maps_to_a_status():
    cases = {
        errors.InputError("x"): 400, errors.LimitExceeded("x"): 413,
        errors.UnsupportedInput("x"): 415, errors.ExtractionError("x"): 422,
        errors.ConfigError("x"): 400, errors.NotFound("x"): 404, errors.AccessDenied("x"): 404,
        errors.StoreError("x"): 503, errors.ProviderError("x"): 502,
        errors.MissingExtra("f", "e"): 501, errors.TetherError("x"): 500,
    }
    assert {type(e).__name__: status_for(e)[0] for e in cases} == {
        type(e).__name__: s for e, s in cases.items()}
