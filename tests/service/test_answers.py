"""``/v1/answers``, ``/v1/verify`` and ``/v1/citations/resolve`` through the ASGI client."""

from __future__ import annotations

import json
import re

import pytest

from tether import Tether, verify_answer
from tether.cli.render import answer_json
from tether.modes import GATES

from .conftest import FINANCE_SOURCE, add_key, bearer


def _events(body: str) -> list[tuple[str, dict]]:
    return [(k, json.loads(d)) for k, d in re.findall(r"event: (\w+)\ndata: (.*)\n\n", body)]


def _without_run_ids(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k not in ("trace_id", "timings_ms")}


def test_plain_answer_is_the_ask_json_record(demo_tether, client_for):
    question = "What is the boiling point of methanol?"
    response = client_for(demo_tether).post("/v1/answers", json={"question": question})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    expected = json.loads(answer_json(demo_tether.ask(question, principals=["public"])))
    assert _without_run_ids(response.json()) == _without_run_ids(expected)
    assert any("64.7" in s["text"] for s in response.json()["sentences"])


def test_stream_sources_carry_citation_targets_of_every_sentence(demo_tether, client_for):
    client = client_for(demo_tether)
    with client.stream("POST", "/v1/answers",
                       json={"question": "How long should an eye be flushed?", "stream": True}) as r:
        assert r.headers["cache-control"] == "no-store"
        events = _events(r.read().decode())
    sources = events[0][1]["passages"]
    assert [p["rank"] for p in sources] == list(range(len(sources)))
    assert "score" not in sources[0]  # corpus-wide statistics stay server-side
    for p in sources:
        version = demo_tether.store.version(p["doc_id"], p["version"])
        assert version.text[p["start"]:p["end"]] == p["text"]
        assert {"source", "title", "license", "fetched_at", "kind", "region", "process",
                "passage_id"} <= p.keys()
    done = events[-1][1]
    assert done["trace"]["retrieved"] == [p["passage_id"] for p in sources]
    for sentence in done["sentences"]:
        for citation in sentence["citations"]:
            assert (citation["doc_id"], citation["version"]) in {(p["doc_id"], p["version"]) for p in sources}
    assert demo_tether.store.answer_record(done["trace_id"])["question"] == done["question"]


def test_a_refusal_streams_sources_then_done(demo_tether, client_for):
    with client_for(demo_tether).stream(
        "POST", "/v1/answers", json={"question": "Who won the 1998 World Cup?", "stream": True}
    ) as r:
        events = _events(r.read().decode())
    kinds = [k for k, _ in events]
    assert kinds[0] == "sources" and kinds[-1] == "done" and "sentence" not in kinds
    done = events[-1][1]
    assert done["refused"] and done["refusal_reason"] and done["sentences"] == []


@pytest.mark.parametrize("mode, expected", [
    ("shadow", {gate: "shadow" for gate in GATES}),
    ({"figures": "off"}, {gate: "off" if gate == "figures" else "on" for gate in GATES}),
])
def test_mode_string_or_object_reaches_the_core(demo_tether, client_for, mode, expected):
    answer = client_for(demo_tether).post(
        "/v1/answers", json={"question": "What is the flash point of acetone?", "mode": mode}).json()
    assert answer["modes"] == expected


@pytest.mark.parametrize("body, status, words", [
    ({"question": "x", "mode": "loud"}, 400, "is not one of"),
    ({"question": "x", "mode": {"figures": "maybe"}}, 400, "is not one of"),
    ({"question": "x", "generator": "nope"}, 400, "unknown generator"),
    ({"question": "   "}, 400, "empty"),
    ({"question": "q" * 2001}, 400, "limit is 2000"),
    ({"question": "q" * 2001, "stream": True}, 400, "limit is 2000"),
    ({"question": 12}, 422, "question"),
    ({}, 422, "question"),
])
def test_bad_requests_are_problem_json(demo_tether, client_for, body, status, words):
    response = client_for(demo_tether).post("/v1/answers", json=body)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == status and problem["type"].startswith("urn:tether:problem:")
    assert words in problem["detail"]


def test_malformed_json_is_a_problem(demo_tether, client_for):
    response = client_for(demo_tether).post(
        "/v1/answers", content=b'{"question": ', headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"


def test_verify_has_the_cli_contract(demo_tether, client_for):
    request = {"passages": [{"id": "a", "text": "Water boils at 100 °C at sea level."}, {"id": 7, "text": "Ice melts at 0 °C."}],
               "sentences": ["Water boils at 100 °C at sea level.", "Water boils at 50 °C.", "Ice melts at 0 °C."]}
    response = client_for(demo_tether).post("/v1/verify", json=request)
    assert response.status_code == 200
    expected = verify_answer(passages={"a": request["passages"][0]["text"], "7": request["passages"][1]["text"]},
                             sentences=request["sentences"])
    assert response.json() == {"sentences": expected}
    assert [s["outcome"] for s in expected] == ["supported", "contradicted", "supported"]
    free = client_for(demo_tether).post("/v1/verify", json={
        "passages": request["passages"], "answer": "Water boils at 100 °C at sea level. Ice melts at 0 °C."})
    assert [s["outcome"] for s in free.json()["sentences"]] == ["supported", "supported"]


@pytest.mark.parametrize("body, status", [
    ({"passages": [{"id": "a", "text": "t"}]}, 400),
    ({"passages": [{"id": True, "text": "t"}], "sentences": ["t"]}, 422),
    ({"passages": [{"text": "t"}], "sentences": ["t"]}, 422),
    ({"passages": "a", "sentences": ["t"]}, 422),
    ({"passages": [], "sentences": [1]}, 422),
])
def test_verify_rejects_bad_input(demo_tether, client_for, body, status):
    response = client_for(demo_tether).post("/v1/verify", json=body)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"


@pytest.mark.skipif(hasattr(Tether, "resolve"), reason="this build has Tether.resolve")
def test_resolve_without_durable_citations_is_501(demo_tether, client_for):
    response = client_for(demo_tether).post("/v1/citations/resolve", json={"doc_id": "doc_x"})
    assert response.status_code == 501
    assert response.headers["content-type"] == "application/problem+json"


@pytest.mark.skipif(not hasattr(Tether, "resolve"), reason="needs durable citations (issue 5)")
def test_resolve_answers_for_readable_documents_only(acl_tether, client_for):
    finance = bearer(add_key(acl_tether, "f", "finance"))
    staff = bearer(add_key(acl_tether, "s", "staff"))
    client = client_for(acl_tether)
    answer = client.post("/v1/answers", json={"question": "What is the Kestrel budget?"},
                         headers=finance).json()
    citation = next(c for s in answer["sentences"] for c in s["citations"] if c["source"] == FINANCE_SOURCE)
    seen = client.post("/v1/citations/resolve", json=citation, headers=finance)
    assert seen.status_code == 200 and seen.json()["status"] == "exact"
    hidden = client.post("/v1/citations/resolve", json=citation, headers=staff)
    ghost = client.post("/v1/citations/resolve", headers=staff,
                        json={**citation, "doc_id": "doc_" + "0" * 20})
    # A citation of an unreadable document resolves exactly like one of a document
    # that never existed.
    assert hidden.status_code == ghost.status_code
    hidden_body, ghost_body = hidden.json(), ghost.json()
    if hidden.status_code == 200:
        assert hidden_body["status"] == "missing"
    assert "Osprey" not in hidden.text  # text of the document beyond the caller's own quote
    # (the note names the doc_id the caller sent, nothing else)
    def same(body, doc_id):
        return {k: str(v).replace(doc_id, "DOC") for k, v in body.items() if k != "doc_id"}
    assert same(hidden_body, citation["doc_id"]) == same(ghost_body, "doc_" + "0" * 20)
