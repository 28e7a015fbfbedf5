"""Acceptance against a real ``python -m tether serve`` process on loopback, read with a
real SSE client (httpx-sse)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
from httpx_sse import connect_sse

from tether import Tether

from .conftest import (
    FINANCE_DOC,
    FINANCE_SOURCE,
    add_key,
    bearer,
    build_acl_store,
    serve_process,
)

SECRET_MARKERS = ("osprey", "42 million", "ines varga", "march 2027", "kestrel acquisition memo",
                  FINANCE_SOURCE.lower())


def stream_answer(client: httpx.Client, question: str, **headers: str) -> tuple[list[tuple[str, dict]], str]:
    """The events of a streamed answer, and the raw body they came in."""
    raw = []
    with connect_sse(client, "POST", "/v1/answers", json={"question": question, "stream": True},
                     headers=headers) as source:
        assert source.response.status_code == 200
        assert source.response.headers["content-type"].startswith("text/event-stream")
        events = []
        for sse in source.iter_sse():
            raw.append(sse.data)
            events.append((sse.event, json.loads(sse.data)))
    return events, "\n".join(raw)


def test_demo_store_streams_sources_first_then_verified_sentences_then_done(demo_db: Path, tmp_path: Path):
    db = tmp_path / "demo.db"
    shutil.copy(demo_db, db)
    with serve_process(db) as (url, lines):
        assert any("anonymously" in line and "'public'" in line for line in lines)
        assert any(f"serving {db} on http://" in line for line in lines)  # names the store
        with httpx.Client(base_url=url, timeout=30) as client:
            questions = ["What is the flash point of acetone?", "How long should an eye be flushed?"]
            for question in questions:
                events, _ = stream_answer(client, question)
                kinds = [kind for kind, _ in events]
                assert kinds[0] == "sources" and kinds[-1] == "done"
                assert kinds[1:-1] and set(kinds[1:-1]) == {"sentence"}
                sources = events[0][1]["passages"]
                assert sources and all(p["text"] for p in sources)
                sentences = [data for kind, data in events if kind == "sentence"]
                done = events[-1][1]
                assert done["question"] == question and not done["refused"]
                assert done["sentences"] == sentences  # what streamed is exactly what was verified
                for sentence in sentences:
                    assert sentence["verdict"]["outcome"] == "supported"
                    assert sentence["citations"]
                    for citation in sentence["citations"]:
                        assert citation["doc_id"] in {p["doc_id"] for p in sources}
                        document = client.get(f"/v1/documents/{citation['doc_id']}").json()
                        assert document["version"] == citation["version"]
                        assert document["text"][citation["start"]:citation["end"]] == citation["quote"]
            metrics = client.get("/metrics").text
    assert 'tether_answers_total{refused="false",stream="true"} 2.0' in metrics
    assert "tether_time_to_sources_seconds_count 2.0" in metrics
    assert "tether_time_to_first_sentence_seconds_count 2.0" in metrics
    assert "tether_sentences_served_total" in metrics
    served = _metric(metrics, "tether_sentences_served_total")
    assert served >= 2 and _metric(metrics, "tether_sentences_grounded_total") == served


def _metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in metrics")


def test_hidden_document_leaves_no_trace_and_metrics_count_the_refusal(tmp_path: Path):
    build_acl_store(tmp_path / "acl.db").close()
    with serve_process(tmp_path / "acl.db") as (url, _), httpx.Client(base_url=url, timeout=30) as client:
        events, raw = stream_answer(client, "Tell me about Kestrel.")
        kinds = [kind for kind, _ in events]
        assert kinds == ["sources", "done"]
        assert events[0][1] == {"passages": []}
        done = events[-1][1]
        assert done["refused"] and done["sentences"] == [] and done["dropped"] == []
        # The reason reads as for a subject nobody ingested: nothing says "filtered".
        unknown, _ = stream_answer(client, "Tell me about Zanzibar.")
        # (Each reason names its own question: "no passage answers “Tell me about …”".)
        unknown_reason = unknown[-1][1]["refusal_reason"].replace("Zanzibar", "Kestrel")
        assert done["refusal_reason"] == unknown_reason
        assert done["refusal_layer"] == unknown[-1][1]["refusal_layer"] == "probe"
        with Tether(tmp_path / "acl.db", create=False) as tether:
            secret_id = next(d.doc_id for d in tether.store.documents() if d.source == FINANCE_SOURCE)
        for marker in (*SECRET_MARKERS, secret_id.lower()):
            assert marker not in raw.lower()
        metrics = client.get("/metrics").text
    assert 'tether_refusals_total{layer="probe"} 2.0' in metrics
    assert 'tether_answers_total{refused="true",stream="true"} 2.0' in metrics
    assert "kestrel" not in metrics.lower() and "zanzibar" not in metrics.lower()
    assert secret_id not in metrics


def test_api_keys_gate_every_request_and_select_principals(tmp_path: Path):
    db = tmp_path / "acl.db"
    with build_acl_store(db) as tether:
        finance = add_key(tether, "finance-team", "finance")
        staff = add_key(tether, "staff", "staff")
    with serve_process(db) as (url, lines), httpx.Client(base_url=url, timeout=30) as client:
        assert any("2 API key(s) configured" in line for line in lines)
        assert client.get("/healthz").json() == {"status": "ok"}
        for headers in ({}, bearer("tk_wrong"), {"Authorization": "Basic Zm9vOmJhcg=="}):
            response = client.post("/v1/answers", json={"question": "Tell me about Kestrel."},
                                   headers=headers)
            assert response.status_code == 401
            assert response.headers["content-type"] == "application/problem+json"
            assert response.headers["www-authenticate"].startswith("Bearer")
            assert response.json()["status"] == 401
            assert "kestrel" not in response.text.lower()
        assert client.get("/metrics").status_code == 401
        assert client.get("/openapi.json").status_code == 401

        seen = client.post("/v1/answers", json={"question": "What is the Kestrel budget?"},
                           headers=bearer(finance)).json()
        assert not seen["refused"]
        assert {c["source"] for s in seen["sentences"] for c in s["citations"]} == {FINANCE_SOURCE}
        assert any("42 million euros" in s["text"] for s in seen["sentences"])

        events, raw = stream_answer(client, "Tell me about Kestrel.", **bearer(staff))
        assert events[-1][1]["refused"] and "osprey" not in raw.lower()
        assert FINANCE_DOC[0].lower() not in raw.lower()

        with Tether(db, create=False) as tether:  # revoked in another process's connection
            assert tether.store.revoke_key("finance-team")
        revoked = client.post("/v1/answers", json={"question": "Tell me about Kestrel."},
                              headers=bearer(finance))
        assert revoked.status_code == 401
