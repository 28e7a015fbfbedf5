"""A client that goes away mid-stream, or a request past its timeout, stops the work."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator, Sequence

import httpx
from httpx_sse import connect_sse

from tether import Tether
from tether.config import Settings
from tether.records import Draft, Hit
from tether.service import create_app

from .conftest import build_acl_store, uvicorn_thread

QUESTION = "At what temperature does methanol boil?"
SUPPORTED = "Methanol boils at 64.7 °C at sea level."


class SlowGenerator:
    """One verifiable draft, then slow unsupported drafts for up to ``steps`` × 50 ms."""

    name = "slow"

    def __init__(self, steps: int = 200) -> None:
        self.steps = steps
        self.proposed = 0
        self.first_sent = threading.Event()
        self.closed = threading.Event()

    def generate(self, question: str, hits: Sequence[Hit], *, steering: str | None = None) -> Iterator[Draft]:
        try:
            yield Draft(SUPPORTED)
            self.first_sent.set()
            for n in range(self.steps):
                time.sleep(0.05)
                self.proposed += 1
                yield Draft(f"Methanol is sold in {n + 2} colours.")
        finally:
            self.closed.set()


class SlowTether(Tether):
    def __init__(self, *args: object, slow: SlowGenerator, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.slow = slow

    def generator(self, name: str = "extractive", **options: object):  # type: ignore[override]
        return self.slow if name == "slow" else super().generator(name, **options)


def slow_tether(tmp_path, slow: SlowGenerator, settings: Settings | None = None) -> SlowTether:
    build_acl_store(tmp_path / "s.db").close()
    return SlowTether(tmp_path / "s.db", slow=slow, settings=settings or Settings(), create=False)


def test_client_disconnect_mid_stream_closes_the_generator(tmp_path):
    slow = SlowGenerator()
    tether = slow_tether(tmp_path, slow)
    answers_before = tether.store.counts()["answers"]
    with uvicorn_thread(create_app(tether)) as url, httpx.Client(base_url=url, timeout=30) as client:
        with connect_sse(client, "POST", "/v1/answers",
                         json={"question": QUESTION, "stream": True, "generator": "slow"}) as source:
            events = source.iter_sse()
            assert next(events).event == "sources"
            first = next(events)
            assert first.event == "sentence" and json.loads(first.data)["text"] == SUPPORTED
        # The connection is closed here, long before the generator's 10 s of drafts.
        assert slow.closed.wait(5), "the generator kept running after the client left"
        assert slow.proposed < slow.steps / 2
        # The cut-short answer was neither finished nor recorded as if complete.
        assert tether.store.counts()["answers"] == answers_before
        metrics = client.get("/metrics").text
        assert 'tether_answers_total{refused="false",stream="true"}' not in metrics
    tether.close()


def test_a_completed_stream_also_finishes_its_generator(tmp_path):
    slow = SlowGenerator(steps=2)
    tether = slow_tether(tmp_path, slow)
    with uvicorn_thread(create_app(tether)) as url, httpx.Client(base_url=url, timeout=30) as client:
        with connect_sse(client, "POST", "/v1/answers",
                         json={"question": QUESTION, "stream": True, "generator": "slow"}) as source:
            kinds = [sse.event for sse in source.iter_sse()]
    assert kinds == ["sources", "sentence", "done"]
    assert slow.closed.is_set() and slow.proposed == 2
    tether.close()


def test_request_timeout_answers_504_and_stops_the_generator(tmp_path, client_for):
    slow = SlowGenerator()
    tether = slow_tether(tmp_path, slow, Settings(request_timeout_s=0.5))
    client = client_for(tether)
    started = time.monotonic()
    response = client.post("/v1/answers", json={"question": QUESTION, "generator": "slow"})
    assert time.monotonic() - started < 5
    assert response.status_code == 504
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == "urn:tether:problem:timeout"
    assert slow.closed.wait(5) and slow.proposed < slow.steps / 2
    tether.close()


def test_stream_past_its_timeout_ends_with_an_error_event(tmp_path):
    slow = SlowGenerator()
    tether = slow_tether(tmp_path, slow, Settings(request_timeout_s=0.5))
    with uvicorn_thread(create_app(tether)) as url, httpx.Client(base_url=url, timeout=30) as client:
        with connect_sse(client, "POST", "/v1/answers",
                         json={"question": QUESTION, "stream": True, "generator": "slow"}) as source:
            events = [(sse.event, json.loads(sse.data)) for sse in source.iter_sse()]
    assert [kind for kind, _ in events] == ["sources", "sentence", "error"]
    assert events[-1][1]["status"] == 504
    assert slow.closed.wait(5) and slow.proposed < slow.steps / 2
    tether.close()


def test_client_leaving_a_plain_answer_stops_the_generator(tmp_path):
    slow = SlowGenerator()
    tether = slow_tether(tmp_path, slow)
    body = json.dumps({"question": QUESTION, "generator": "slow"}).encode()
    with uvicorn_thread(create_app(tether)) as url:
        address = url.removeprefix("http://")
        host, port = address.rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=30) as conn:
            conn.sendall(b"POST /v1/answers HTTP/1.1\r\nHost: " + address.encode()
                         + b"\r\nContent-Type: application/json\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\n\r\n" + body)
            # The client leaves once the answer is under way (not after a time, which a
            # busy machine may need just to retrieve): the socket closes here.
            assert slow.first_sent.wait(30), "the answer never started"
        assert slow.closed.wait(5), "the generator kept running after the client left"
        assert slow.proposed < slow.steps / 2
    tether.close()
