from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tether.generate.anthropic import AnthropicGenerator
from tether.generate.llm import LLMGenerator
from tether.generate.openai import OpenAIGenerator
from tether.records import Document, Hit, Passage

from .fake_llm import (
    FakeLLMServer,
    Reply,
    anthropic_error,
    anthropic_stream,
    openai_error,
    openai_stream,
    tokens,
)

PROVIDERS = ("openai", "anthropic")


@pytest.fixture(autouse=True)
def _no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # The suite never reaches a real provider, whatever the developer's shell holds.
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                 "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(name, raising=False)


def base_url(provider: str, server: FakeLLMServer) -> str:
    # OpenAI-compatible servers are addressed at /v1; the Anthropic SDK appends /v1/messages.
    return server.url + ("/v1" if provider == "openai" else "")


def generator(provider: str, server: FakeLLMServer, **options: Any) -> LLMGenerator:
    options.setdefault("timeout", 5.0)
    options.setdefault("max_retries", 0)
    # Most tests here script the model's own sentences (free text); the quote-bound
    # tests, the default mode (ADR 0050), say answers="quotes".
    options.setdefault("answers", "free")
    cls = OpenAIGenerator if provider == "openai" else AnthropicGenerator
    return cls(model="any", base_url=base_url(provider, server), **options)


def answer(provider: str, text: str, *, end: str = "stop", **reply: Any) -> Reply:
    """A streamed reply writing ``text``; ``end``: stop | length | none (no finish at all)."""
    pieces = tokens(text)
    if provider == "openai":
        finish = {"stop": "stop", "length": "length", "none": None}[end]
        frames = openai_stream(pieces, finish=finish, done=end != "none")
    else:
        stop_reason = {"stop": "end_turn", "length": "max_tokens", "none": None}[end]
        frames = anthropic_stream(pieces, stop_reason=stop_reason, stop=end != "none")
    return Reply(frames=frames, **reply)


def error(provider: str, status: int, message: str = "try later") -> Reply:
    return (openai_error if provider == "openai" else anthropic_error)(status, message)


def make_hit(n: int, text: str, *, title: str = "Sheet") -> Hit:
    doc = Document(f"doc{n}", f"file:///docs/sheet{n}.md", f"{title} {n}", "CC0", "2026-01-01", "text/markdown")
    passage = Passage(f"p{n}", doc.doc_id, "sha256:v", 0, len(text), text)
    return Hit(passage, doc, 1.0 / n, n - 1)


@pytest.fixture
def hits() -> list[Hit]:
    return [make_hit(1, "Alpha weighs 5 kg."), make_hit(2, "Beta weighs 7 kg.")]


Factory = Callable[..., LLMGenerator]
