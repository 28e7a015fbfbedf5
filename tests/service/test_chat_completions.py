"""``/v1/chat/completions`` and ``/v1/models`` driven by the official ``openai`` client
against a real ``python -m tether serve`` process on loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai import OpenAI

from .conftest import FINANCE_SOURCE, add_key, build_acl_store, serve_process

SECRETS = ("osprey", "42 million", "ines varga", "kestrel acquisition memo", FINANCE_SOURCE)
METHANOL = "At what temperature does methanol boil?"


@pytest.fixture
def acl_db(tmp_path: Path) -> Path:
    build_acl_store(tmp_path / "acl.db").close()
    return tmp_path / "acl.db"


def client(url: str, key: str = "any-key-a-keyless-server-ignores") -> OpenAI:
    return OpenAI(base_url=url + "/v1", api_key=key, max_retries=0, timeout=60)


def extra(model: Any) -> dict[str, Any]:
    """The fields OpenAI's records do not define (``citations``, ``tether``)."""
    return dict(model.model_extra or {})


def test_models_and_an_answer_with_numbered_citations(acl_db: Path):
    with serve_process(acl_db) as (url, _):
        chat = client(url)
        models = [model.id for model in chat.models.list()]
        reply = chat.chat.completions.create(
            model="gpt-whatever", messages=[{"role": "system", "content": "Be brief."},
                                            {"role": "user", "content": METHANOL}])
        documents = {}
        message = reply.choices[0].message
        for cited in extra(message)["citations"]:
            documents[cited["doc_id"]] = httpx.get(f"{url}/v1/documents/{cited['doc_id']}", timeout=30).json()
    assert models == ["tether"]
    assert reply.object == "chat.completion" and reply.model == "gpt-whatever"
    assert reply.choices[0].finish_reason == "stop"
    assert message.role == "assistant" and "64.7 °C" in message.content
    answer, _, sources = message.content.partition("\n\nSources:\n")
    assert answer.endswith("[1]") and sources.startswith("[1] Methanol — https://example.org/methanol")
    citations = extra(message)["citations"]
    assert [c["index"] for c in citations] == list(range(1, len(citations) + 1))
    for cited in citations:
        assert cited["source"] == "https://example.org/methanol" and cited["title"] == "Methanol"
        text = documents[cited["doc_id"]]["text"]
        assert text[cited["range"]["start"]:cited["range"]["end"]] == cited["quote"]
        assert cited["citation"]["quote_hash"].startswith("sha256:")
    assert extra(message)["tether"]["refused"] is False


def test_streaming_sends_each_sentence_then_the_sources_and_done(acl_db: Path):
    with serve_process(acl_db) as (url, _):
        chat = client(url)
        whole = chat.chat.completions.create(model="tether", messages=[{"role": "user", "content": METHANOL}])
        chunks = list(chat.chat.completions.create(
            model="tether", messages=[{"role": "user", "content": METHANOL}], stream=True))
        with httpx.stream("POST", f"{url}/v1/chat/completions", timeout=60, json={
                "model": "tether", "stream": True, "messages": [{"role": "user", "content": METHANOL}]}) as raw:
            assert raw.headers["content-type"].startswith("text/event-stream")
            frames = [line for line in raw.iter_lines() if line]
    assert all(chunk.object == "chat.completion.chunk" for chunk in chunks)
    assert len({chunk.id for chunk in chunks}) == 1 and chunks[0].choices[0].delta.role == "assistant"
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in chunks)
    assert streamed == whole.choices[0].message.content  # the same answer, the same numbers
    sentences = [c for c in chunks[1:-1] if c.choices[0].delta.content]
    assert sentences and all(c.choices[0].finish_reason is None for c in chunks[:-1])
    last = chunks[-1].choices[0]
    assert last.finish_reason == "stop"
    assert extra(last.delta)["citations"] == extra(whole.choices[0].message)["citations"]
    assert frames[-1] == "data: [DONE]"
    assert all(frame.startswith("data: ") for frame in frames)


def test_a_refusal_is_an_assistant_message_with_its_reason(acl_db: Path):
    question = [{"role": "user", "content": "Who won the 1998 football world cup?"}]
    with serve_process(acl_db) as (url, _):
        chat = client(url)
        reply = chat.chat.completions.create(model="tether", messages=question)
        chunks = list(chat.chat.completions.create(model="tether", messages=question, stream=True))
    message = reply.choices[0].message
    outcome = extra(message)["tether"]
    assert outcome["refused"] and outcome["refusal_reason"]
    assert message.content == f"No answer: {outcome['refusal_reason']}."
    assert reply.choices[0].finish_reason == "stop" and extra(message)["citations"] == []
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == message.content
    assert chunks[-1].choices[0].finish_reason == "stop"


BAD_BODIES: list[tuple[str, bytes, int]] = [
    ("no messages", b'{"model": "tether", "messages": []}', 422),
    ("no model", b'{"messages": [{"role": "user", "content": "methanol"}]}', 422),
    ("messages not a list", b'{"model": "tether", "messages": "methanol"}', 422),
    ("stream not a boolean", b'{"model": "t", "stream": "yes", "messages": [{"role": "user", "content": "x"}]}', 422),
    ("empty question", b'{"model": "tether", "messages": [{"role": "user", "content": "  "}]}', 400),
    ("no user message", b'{"model": "tether", "messages": [{"role": "system", "content": "hi"}]}', 400),
    ("unpaired surrogate", b'{"model": "t", "messages": [{"role": "user", "content": "boil \\ud800"}]}', 400),
    ("deep nesting", b'{"model": "t", "messages": ' + b"[" * 10_000 + b"]" * 10_000 + b"}", 400),
    ("not JSON", b'{"model": "t", "messages": [', 422),
    ("invalid UTF-8", b'{"model": "t", "messages": [{"role": "user", "content": "\xff\xfe"}]}', 400),
    ("over max_request_bytes", b'{"model": "t", "messages": [{"role": "user", "content": "'
     + b"a" * 2_000_000 + b'"}]}', 413),
]


def test_bad_input_is_a_4xx_in_openai_error_shape_and_the_server_keeps_serving(acl_db: Path):
    seen = []
    with serve_process(acl_db) as (url, _):
        for name, body, status in BAD_BODIES:
            response = httpx.post(f"{url}/v1/chat/completions", content=body, timeout=60,
                                  headers={"Content-Type": "application/json"})
            seen.append((name, response.status_code, response.headers["content-type"], response.json()))
        with pytest.raises(openai.BadRequestError) as refused:
            client(url).chat.completions.create(model="t", messages=[{"role": "user", "content": ""}])
        after = client(url).chat.completions.create(model="t", messages=[{"role": "user", "content": METHANOL}])
    for (name, status, content_type, body), (_, _, wanted) in zip(seen, BAD_BODIES, strict=True):
        assert status == wanted, (name, status, body)
        assert content_type.startswith("application/json"), name
        error = body["error"]
        assert set(error) == {"message", "type", "param", "code"}, name
        assert error["type"] == "invalid_request_error" and error["message"] and "\n" not in error["message"]
    assert dict((name, body["error"]["param"]) for name, _, _, body in seen)["no messages"] == "messages"
    assert refused.value.status_code == 400 and "empty" in refused.value.message
    assert "64.7 °C" in after.choices[0].message.content


def test_keys_decide_what_a_chat_client_may_read(tmp_path: Path):
    with build_acl_store(tmp_path / "acl.db") as tether:
        finance = add_key(tether, "fin", "finance")
        public = add_key(tether, "pub", "public")
    question = [{"role": "user", "content": "What is the Kestrel budget?"}]
    with serve_process(tmp_path / "acl.db") as (url, _):
        with pytest.raises(openai.AuthenticationError) as denied:
            client(url, "tk_not_a_key").chat.completions.create(model="t", messages=question)
        with pytest.raises(openai.AuthenticationError):
            client(url, "tk_not_a_key").models.list()
        allowed = client(url, finance).chat.completions.create(model="t", messages=question)
        hidden = client(url, public).chat.completions.create(model="t", messages=question)
        streamed = list(client(url, public).chat.completions.create(model="t", messages=question, stream=True))
    assert denied.value.status_code == 401
    assert denied.value.body["type"] == "authentication_error" and denied.value.body["code"] == "unauthorized"
    assert "42 million euros" in allowed.choices[0].message.content
    assert extra(allowed.choices[0].message)["citations"][0]["source"] == FINANCE_SOURCE
    leaked = json.dumps([hidden.model_dump(), [c.model_dump() for c in streamed]]).lower()
    assert extra(hidden.choices[0].message)["tether"]["refused"]
    assert not [secret for secret in SECRETS if secret.lower() in leaked]


def test_a_keyless_server_refuses_other_sites_in_openai_error_shape(acl_db: Path):
    body = {"model": "t", "messages": [{"role": "user", "content": METHANOL}]}
    with serve_process(acl_db) as (url, _):
        cross = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30,
                           headers={"Origin": "https://attacker.example"})
        form = httpx.post(f"{url}/v1/chat/completions", data={"model": "t"}, timeout=30)
        rebound = httpx.get(f"{url}/v1/models", headers={"Host": "attacker.example"}, timeout=30)
    assert cross.status_code == 403 and cross.json()["error"]["type"] == "permission_error"
    assert form.status_code == 403 and form.json()["error"]["code"] == "cross-site-request"
    assert rebound.status_code == 421 and rebound.json()["error"]["code"] == "misdirected-request"
