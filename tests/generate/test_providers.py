"""Both providers through their real SDKs against a local server speaking their wire format."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Sequence

import pytest

from tether.errors import ConfigError, MissingExtra, ProviderError
from tether.generate import load_generator
from tether.generate.anthropic import AnthropicGenerator
from tether.generate.llm import LLMGenerator
from tether.generate.openai import OpenAIGenerator
from tether.generate.prompt import SYSTEM_PROMPT
from tether.records import Draft, Hit

from .conftest import PROVIDERS, answer, base_url, error, generator
from .fake_llm import FakeLLMServer, Reply

pytestmark = pytest.mark.parametrize("provider", PROVIDERS)


def run(gen: LLMGenerator, hits: Sequence[Hit]) -> tuple[list[Draft], ProviderError | None]:
    drafts: list[Draft] = []
    try:
        for draft in gen.generate("How heavy is Alpha?", hits):
            drafts.append(draft)
    except ProviderError as exc:
        return drafts, exc
    return drafts, None


def test_streams_drafts_with_hints(provider: str, hits: list[Hit]) -> None:
    text = "Alpha weighs 5 kg. [1] Beta weighs 7 kg. [2] Both are heavy [1, 2, 9]."
    with FakeLLMServer(answer(provider, text)) as server:
        drafts, failure = run(generator(provider, server), hits)
    assert failure is None
    assert drafts == [
        Draft("Alpha weighs 5 kg.", ("p1",)),
        Draft("Beta weighs 7 kg.", ("p2",)),
        Draft("Both are heavy.", ("p1", "p2"), (9,)),
    ]
    (request,) = server.requests
    body = request.json
    assert body["model"] == "any" and body["stream"] is True and body["max_tokens"] == 1024
    if provider == "openai":
        assert request.path == "/v1/chat/completions"
        assert body["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
        user = body["messages"][1]["content"]
    else:
        assert request.path == "/v1/messages"
        assert body["system"] == SYSTEM_PROMPT
        user = body["messages"][0]["content"]
    assert "[1] sheet1.md\nAlpha weighs 5 kg." in user and "[2] sheet2.md\nBeta weighs 7 kg." in user
    assert user.endswith("Question: How heavy is Alpha?")


def test_a_lone_surrogate_in_the_reply_becomes_a_replacement_character(
    provider: str, hits: list[Hit]
) -> None:
    # JSON lets a server escape half a surrogate pair; no UTF-8 store could keep it.
    with FakeLLMServer(answer(provider, "Alpha weighs \ud800 5 kg. [1]")) as server:
        drafts, failure = run(generator(provider, server), hits)
    assert failure is None and drafts == [Draft("Alpha weighs \ufffd 5 kg.", ("p1",))]


def test_key_comes_from_the_environment(
    provider: str, hits: list[Hit], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"{provider.upper()}_API_KEY", "sk-test-123")
    with FakeLLMServer(answer(provider, "Alpha weighs 5 kg. [1]")) as server:
        run(generator(provider, server), hits)
    headers = server.requests[0].headers
    assert "sk-test-123" in headers.get("authorization", "") + headers.get("x-api-key", "")


def test_no_hits_no_call(provider: str) -> None:
    with FakeLLMServer(answer(provider, "Alpha weighs 5 kg.")) as server:
        assert run(generator(provider, server), []) == ([], None)
    assert server.requests == []


def test_429_is_retried_then_answered(provider: str, hits: list[Hit]) -> None:
    replies = [error(provider, 429), error(provider, 429), answer(provider, "Alpha weighs 5 kg. [1]")]
    with FakeLLMServer(*replies) as server:
        drafts, failure = run(generator(provider, server, max_retries=2), hits)
    assert failure is None and [d.text for d in drafts] == ["Alpha weighs 5 kg."]
    assert len(server.requests) == 3


@pytest.mark.parametrize("status", [429, 500, 503])
def test_refusal_after_retries_is_a_provider_error(provider: str, hits: list[Hit], status: int) -> None:
    with FakeLLMServer(error(provider, status, "busy, come back")) as server:
        drafts, failure = run(generator(provider, server, max_retries=1), hits)
    assert drafts == [] and failure is not None
    assert f"HTTP {status} after 1 retries" in str(failure) and "busy, come back" in str(failure)
    assert len(server.requests) == 2


@pytest.mark.parametrize(("status", "fix"), [(401, "_API_KEY"), (403, "_API_KEY"), (404, "--model")])
def test_configuration_refusals_name_the_fix(provider: str, hits: list[Hit], status: int, fix: str) -> None:
    with FakeLLMServer(error(provider, status, "nope")) as server:
        with pytest.raises(ConfigError) as caught:
            run(generator(provider, server, max_retries=2), hits)
    assert fix in str(caught.value) and f"HTTP {status}" in str(caught.value)
    assert len(server.requests) == 1  # not retried: waiting will not fix a key


def test_timeout_before_first_byte(provider: str, hits: list[Hit]) -> None:
    with FakeLLMServer(answer(provider, "Alpha weighs 5 kg. [1]", delay=3.0)) as server:
        started = time.perf_counter()
        drafts, failure = run(generator(provider, server, timeout=0.3), hits)
        elapsed = time.perf_counter() - started
    assert drafts == [] and failure is not None
    assert "did not respond within 0.3 s" in str(failure)
    assert elapsed < 3.0  # it gave up before the reply came, however busy the machine


def test_stall_mid_stream_keeps_the_finished_sentences(provider: str, hits: list[Hit]) -> None:
    reply = answer(provider, "Alpha weighs 5 kg. [1] Beta weighs 7 kg. [2]")
    reply.stall_after = len(reply.frames) - 6  # inside the second sentence
    reply.stall = 3.0
    with FakeLLMServer(reply) as server:
        drafts, failure = run(generator(provider, server, timeout=0.3), hits)
    assert [d.text for d in drafts] == ["Alpha weighs 5 kg."]
    assert failure is not None and "discarded" in str(failure)


def test_stream_cut_mid_sentence(provider: str, hits: list[Hit]) -> None:
    reply = answer(provider, "Alpha weighs 5 kg. [1] Beta does not weigh 7 kg. [2]")
    # Keep the frames up to "Beta does not" and drop the connection there.
    cut_at = next(i for i, f in enumerate(reply.frames) if b'" not"' in f)
    reply.frames = reply.frames[: cut_at + 1]
    reply.cut = True
    with FakeLLMServer(reply) as server:
        drafts, failure = run(generator(provider, server), hits)
    assert [d.text for d in drafts] == ["Alpha weighs 5 kg."]
    assert failure is not None
    assert "lost the connection" in str(failure) and "unfinished sentence" in str(failure)


def test_stream_that_ends_without_finishing(provider: str, hits: list[Hit]) -> None:
    with FakeLLMServer(answer(provider, "Alpha weighs 5 kg. [1] Beta weighs", end="none")) as server:
        drafts, failure = run(generator(provider, server), hits)
    assert [d.text for d in drafts] == ["Alpha weighs 5 kg."]
    assert failure is not None and "ended before" in str(failure)
    assert "(11 characters)" in str(failure)  # "Beta weighs" was never shown


def test_max_tokens_cut_is_recorded(provider: str, hits: list[Hit]) -> None:
    with FakeLLMServer(answer(provider, "Alpha weighs 5 kg. [1] Beta", end="length")) as server:
        drafts, failure = run(generator(provider, server, max_tokens=9), hits)
    assert [d.text for d in drafts] == ["Alpha weighs 5 kg."]
    assert failure is not None and "max_tokens (9)" in str(failure)


def test_malformed_event(provider: str, hits: list[Hit]) -> None:
    reply = answer(provider, "Alpha weighs 5 kg. [1] Beta weighs 7 kg. [2]")
    bad = b"data: {\"choices\": [{not json\n\n" if provider == "openai" else (
        b"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", oops\n\n"
    )
    reply.frames.insert(len(reply.frames) - 8, bad)
    with FakeLLMServer(reply) as server:
        drafts, failure = run(generator(provider, server), hits)
    assert [d.text for d in drafts] == ["Alpha weighs 5 kg."]
    assert failure is not None and "malformed" in str(failure)


def test_missing_model(provider: str) -> None:
    cls = OpenAIGenerator if provider == "openai" else AnthropicGenerator
    with pytest.raises(ConfigError, match="needs a model name") as caught:
        cls(base_url="http://127.0.0.1:9/v1")
    assert "--model" in str(caught.value)


def test_missing_key_for_a_remote_server(provider: str) -> None:
    cls = OpenAIGenerator if provider == "openai" else AnthropicGenerator
    with pytest.raises(ConfigError) as caught:
        cls(model="any", base_url="https://models.example.com/v1")
    assert f"export {provider.upper()}_API_KEY" in str(caught.value)
    with pytest.raises(ConfigError, match="_API_KEY is not set"):
        cls(model="any")  # the provider's public API


def test_bad_base_url(provider: str) -> None:
    with pytest.raises(ConfigError, match="not an http"):
        load_generator(provider, model="any", base_url="127.0.0.1:8000")


def test_missing_extra(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, provider, None)  # import now raises ImportError
    with pytest.raises(MissingExtra) as caught:
        load_generator(provider, model="any", base_url="http://127.0.0.1:9")
    assert f"pip install 'tether[{provider}]'" in str(caught.value)


def test_registered_like_the_builtin(provider: str) -> None:
    with FakeLLMServer(Reply()) as server:
        gen = load_generator(provider, model="m1", base_url=base_url(provider, server))
    assert gen.name == provider and isinstance(gen, LLMGenerator) and gen.model == "m1"


def test_error_reported_inside_the_stream(provider: str, hits: list[Hit]) -> None:
    reply = answer(provider, "Alpha weighs 5 kg. [1] Beta weighs 7 kg. [2]")
    if provider == "openai":
        bad = b'data: {"error": {"message": "The server had an error while processing your request.", "type": "server_error", "param": null, "code": null}}\n\n'
    else:
        bad = b'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    reply.frames[len(reply.frames) - 8 :] = [bad]
    with FakeLLMServer(reply) as server:
        drafts, failure = run(generator(provider, server), hits)
    assert [d.text for d in drafts] == ["Alpha weighs 5 kg."]
    assert failure is not None and "reported an error mid-stream" in str(failure)
    assert ("Overloaded" if provider == "anthropic" else "processing your request") in str(failure)


def test_a_server_that_is_not_there_is_named_as_unreachable_not_as_a_lost_connection(
        provider: str, hits: list[Hit]) -> None:
    with socket.socket() as sock:  # a loopback port that was free a moment ago: nobody listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cls = OpenAIGenerator if provider == "openai" else AnthropicGenerator
    gen = cls(model="any", base_url=f"http://127.0.0.1:{port}" + ("/v1" if provider == "openai" else ""),
              timeout=5.0, max_retries=0)
    drafts, failure = run(gen, hits)
    assert drafts == [] and isinstance(failure, ProviderError)
    assert str(failure).startswith(f"cannot connect to {provider} at http://127.0.0.1:{port}"), str(failure)
    assert "check --base-url" in str(failure) and "lost the connection" not in str(failure)
