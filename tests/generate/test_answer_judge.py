"""The answer check asks an LLM judge whether the cited sentences answer the question.

Every sentence below is verbatim and carries every word of the question, so the
lexical answer check lets it through; only a reader can see that "martial spirit …
Christian piety" does not answer "Christian spirit". The judge runs behind a local
server that speaks the provider's wire protocol, through the real client.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tether import Tether
from tether.config import Settings
from tether.guard.answercheck import judge_answers, judged_refusal
from tether.judges.base import Judgement
from tether.judges.llm import ANSWERS_SYSTEM, JUDGE_SYSTEM, llm_judge

from .conftest import PROVIDERS, base_url
from .fake_llm import (
    FakeLLMServer,
    Reply,
    Request,
    anthropic_message,
    openai_completion,
)

TEXT = (
    "The Normans were famed for their martial spirit and eventually for their Christian "
    "piety. Their dukes ruled Normandy from Rouen.\n"
)
QUESTION = "Who was famed for their Christian spirit?"


def _system(request: Request) -> str:
    body = request.json
    return body["messages"][0]["content"] if "messages" in body and "system" not in body else body["system"]


def judge_server(answers_label: str | None, provider: str = "openai") -> FakeLLMServer:
    """Claims are always entailed (the sentences are verbatim); answers get
    ``answers_label``, or a reply that is not JSON when it is None."""
    make = openai_completion if provider == "openai" else anthropic_message

    def reply(request: Request) -> Reply:
        if _system(request) == JUDGE_SYSTEM:
            return make(json.dumps({"label": "entailment", "confidence": 0.9}))
        assert _system(request) == ANSWERS_SYSTEM
        if answers_label is None:
            return make("I think it probably does.")
        return make(json.dumps({"label": answers_label, "confidence": 0.8}))

    return FakeLLMServer(reply)


def answers_asked(server: FakeLLMServer) -> list[Request]:
    return [r for r in server.requests if _system(r) == ANSWERS_SYSTEM]


@pytest.fixture
def ask(tmp_path: Path):
    doc = tmp_path / "normans.txt"
    doc.write_text(TEXT, encoding="utf-8")

    def run(server: FakeLLMServer, **modes: str):
        settings = Settings(judge="openai:judge-1", generator_base_url=base_url("openai", server))
        with Tether(tmp_path / "store.db", settings=settings) as tether:
            tether.ingest(doc)
            events = list(tether.stream(QUESTION, modes=modes or None))
            return events, tether.store.shadow_entries()

    return run


@pytest.mark.parametrize("provider", PROVIDERS)
def test_answers_asks_the_question_with_its_own_instructions(provider: str) -> None:
    with judge_server("neutral", provider) as server:
        judge = llm_judge(provider, model="judge-1", base_url=base_url(provider, server),
                          timeout=5.0, max_retries=0)
        judgement = judge.answers(TEXT, QUESTION)
    assert judgement.ok and judgement.label == "neutral"
    assert judgement.checker == f"llm:{provider}:judge-1"
    body = server.requests[0].json
    user = body["messages"][-1]["content"]
    assert f"Question:\n<<<\n{QUESTION}\n>>>" in user and TEXT.strip() in user


def test_a_neutral_reader_refuses_and_nothing_streams(ask) -> None:
    with judge_server("neutral") as server:
        events, shadow = ask(server)
    kinds = [e.kind for e in events]
    answer = events[-1].data
    assert kinds == ["sources", "done"]  # held back until the judge had read them all
    assert answer.refused and answer.refusal_layer == "guard"
    assert answer.refusal_reason == (
        "llm:openai:judge-1 finds that no supported sentence answers the question as asked"
    )
    assert answer.trace["answer_judge"] == {
        "checker": "llm:openai:judge-1", "label": "neutral", "error": None
    }
    premise = answers_asked(server)[0].json["messages"][-1]["content"]
    withheld = answer.trace["withheld"]  # what the judge read, and the user never saw
    assert withheld and all(sentence in premise for sentence in withheld)
    assert shadow == []


def test_a_contradiction_says_the_question_takes_something_false_for_granted(ask) -> None:
    with judge_server("contradiction") as server:
        events, _ = ask(server)
    assert "contradict what the question takes for granted" in events[-1].data.refusal_reason


def test_an_entailing_reader_lets_the_answer_stream(ask) -> None:
    with judge_server("entailment") as server:
        events, _ = ask(server)
    answer = events[-1].data
    assert not answer.refused
    assert [e.kind for e in events][:2] == ["sources", "sentence"]
    assert "Christian piety" in answer.sentences[0].text
    assert answer.trace["answer_judge"]["label"] == "entailment"


@pytest.mark.parametrize("modes", [{"judge": "shadow"}, {"abstain": "shadow"}])
def test_shadow_reader_logs_the_refusal_and_changes_nothing(ask, modes) -> None:
    with judge_server("neutral") as server:
        events, shadow = ask(server, **modes)
    answer = events[-1].data
    assert not answer.refused and answer.sentences
    logged = [e for e in shadow if e["gate"] == "abstain"]
    assert len(logged) == 1 and logged[0]["layer"] == "guard"
    assert "no supported sentence answers the question as asked" in logged[0]["reason"]


def test_off_reader_is_not_asked(ask) -> None:
    for modes in ({"judge": "off"}, {"abstain": "off"}):
        with judge_server("neutral") as server:
            events, _ = ask(server, **modes)
        assert not events[-1].data.refused
        assert answers_asked(server) == []


def test_a_failed_reader_leaves_the_lexical_decision_standing(ask) -> None:
    with judge_server(None) as server:
        events, _ = ask(server)
    answer = events[-1].data
    assert not answer.refused and answer.sentences
    assert answer.trace["answer_judge"]["error"].startswith("reply is not JSON")


class ClaimsOnly:
    """An NLI-style judge: it judges claims, and a question is not a claim."""

    def judge(self, premise: str, hypothesis: str) -> Judgement:
        raise AssertionError("a question must not be judged as a claim")


def test_a_judge_without_answers_is_not_asked() -> None:
    assert judge_answers(ClaimsOnly(), QUESTION, [(TEXT, "normans")]) is None
    assert judged_refusal(None) is None
    assert judged_refusal(Judgement.failed("nli:x", "boom")) is None
