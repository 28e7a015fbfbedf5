"""OpenAI-compatible chat models (OpenAI, vLLM, llama.cpp server, Ollama) through the official SDK.

    >>> gen = OpenAIGenerator(model="llama3", base_url="http://127.0.0.1:8080/v1")  # doctest: +SKIP
    >>> [d.text for d in gen.generate("Flash point of acetone?", hits)]             # doctest: +SKIP

The wire protocol (what counts as a finished stream, keys, base URLs) is in
``tether.providers.openai``. Needs the ``tether[openai]`` extra.
"""

from __future__ import annotations

from ..providers.openai import OpenAIChat, sdk
from .llm import LLMGenerator

__all__ = ["OpenAIGenerator"]


class OpenAIGenerator(LLMGenerator):
    """Answers drafted by an OpenAI-compatible chat model, verified sentence by sentence."""

    name = "openai"
    key_env = "OPENAI_API_KEY"
    sdk = staticmethod(sdk)
    chat = OpenAIChat
