"""The LLM judge: strict JSON through each provider; any failure leaves the lexical verdict."""

from __future__ import annotations

import json

import pytest

from tether.errors import ConfigError
from tether.judges.base import Judge, combine
from tether.judges.llm import (
    JUDGE_SCHEMA,
    LLMJudge,
    llm_judge,
    parse_judgement,
    premise_windows,
)

from .conftest import PROVIDERS, base_url, error
from .fake_llm import FakeLLMServer, Reply, anthropic_message, openai_completion

PASSAGE = "Alpha weighs 5 kg and is stored at 20 °C."
CLAIM = "Alpha weighs 5 kg."


def reply(provider: str, text: str) -> Reply:
    return (openai_completion if provider == "openai" else anthropic_message)(text)


def make(provider: str, server: FakeLLMServer, **options: object) -> LLMJudge:
    options.setdefault("timeout", 5.0)
    options.setdefault("max_retries", 0)
    return llm_judge(provider, model="judge-1", base_url=base_url(provider, server), **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("label", ["entailment", "neutral", "contradiction"])
def test_labels_come_back(provider: str, label: str) -> None:
    with FakeLLMServer(reply(provider, json.dumps({"label": label, "confidence": 0.9}))) as server:
        judge = make(provider, server)
        judgement = judge.judge(PASSAGE, CLAIM)
    assert isinstance(judge, Judge)
    assert judgement.ok and judgement.label == label
    assert judgement.probabilities == {label: 0.9}
    assert judgement.checker == f"llm:{provider}:judge-1"
    assert judgement.window == (0, len(PASSAGE))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_request_asks_for_strict_json(provider: str) -> None:
    with FakeLLMServer(reply(provider, '{"label": "entailment", "confidence": 1}')) as server:
        make(provider, server).judge(PASSAGE, CLAIM)
    body = server.requests[0].json
    assert body.get("stream") in (None, False)
    if provider == "openai":
        assert body["temperature"] == 0
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        assert fmt["json_schema"]["schema"] == JUDGE_SCHEMA
        user = body["messages"][1]["content"]
    else:
        assert body["output_config"]["format"] == {"type": "json_schema", "schema": JUDGE_SCHEMA}
        user = body["messages"][0]["content"]
    assert PASSAGE in user and CLAIM in user


BAD_REPLIES = [
    "entailment",
    '```json\n{"label": "entailment", "confidence": 0.9}\n```',
    '{"label": "entails", "confidence": 0.9}',
    '{"label": "entailment"}',
    '{"label": "entailment", "confidence": 1.5}',
    '{"label": "entailment", "confidence": true}',
    '{"label": "entailment", "confidence": 0.9, "why": "it says so"}',
    '["entailment", 0.9]',
]


@pytest.mark.parametrize("text", BAD_REPLIES)
def test_anything_but_the_exact_json_is_a_failure(text: str) -> None:
    with pytest.raises(ValueError):
        parse_judgement(text)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_malformed_reply_leaves_the_lexical_verdict(provider: str) -> None:
    with FakeLLMServer(reply(provider, "Sure! The label is entailment.")) as server:
        judgement = make(provider, server).judge(PASSAGE, "Alpha weighs 6 kg.")
    assert not judgement.ok and "not JSON" in (judgement.error or "")
    outcome, reason = combine("contradicted", judgement, accept_paraphrase=True)
    assert outcome == "contradicted"
    assert reason is not None and "failed" in reason and "stands" in reason


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [429, 500, 401])
def test_http_failures_are_failed_judgements(provider: str, status: int) -> None:
    with FakeLLMServer(error(provider, status, "no judging today")) as server:
        judgement = make(provider, server).judge(PASSAGE, CLAIM)
    assert not judgement.ok and f"HTTP {status}" in (judgement.error or "")
    assert combine("supported", judgement, accept_paraphrase=False)[0] == "supported"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_timeout_is_a_failed_judgement(provider: str) -> None:
    slow = reply(provider, '{"label": "contradiction", "confidence": 1}')
    slow.delay = 3.0
    with FakeLLMServer(slow) as server:
        judgement = make(provider, server, timeout=0.3).judge(PASSAGE, CLAIM)
    assert not judgement.ok and "within 0.3 s" in (judgement.error or "")


def test_long_premise_is_windowed_and_the_claim_never_cut() -> None:
    filler = "Gamma is unrelated to this question in every way. " * 30
    premise = filler + "Alpha weighs 5 kg. " + filler
    labels = iter(["neutral", "entailment", "neutral", "neutral", "neutral", "neutral"])

    def respond(request: object) -> Reply:
        return openai_completion(json.dumps({"label": next(labels), "confidence": 0.8}))

    with FakeLLMServer(respond) as server:
        judge = llm_judge("openai", model="j", base_url=server.url + "/v1", max_retries=0,
                          max_premise_chars=600, overlap=100)
        judgement = judge.judge(premise, CLAIM)
    assert len(server.requests) >= 3
    for request in server.requests:
        assert f"Claim:\n<<<\n{CLAIM}\n>>>" in request.json["messages"][1]["content"]
    assert judgement.label == "entailment"
    start, end = judgement.window
    assert 0 < start < end < len(premise)


def test_windows_cover_the_premise_with_overlap() -> None:
    text = "word " * 500
    windows = premise_windows(text, 400, 50)
    assert windows[0][0] == 0 and windows[-1][1] == len(text)
    for (s1, e1), (s2, e2) in zip(windows, windows[1:]):
        assert s2 < e1 and e2 > e1  # overlapping and advancing
    assert premise_windows("short", 400, 50) == [(0, 5)]


def test_unknown_provider_and_options() -> None:
    with pytest.raises(ConfigError, match="unknown judge provider"):
        llm_judge("cohere", model="x")
    with pytest.raises(ConfigError, match="needs a model name"):
        llm_judge("openai", model=None, base_url="http://127.0.0.1:9/v1")
