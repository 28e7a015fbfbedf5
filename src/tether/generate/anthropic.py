"""Claude through the official ``anthropic`` SDK: the Messages API, streamed.

    >>> gen = AnthropicGenerator(model="claude-sonnet-4-5")                 # doctest: +SKIP
    >>> [d.text for d in gen.generate("Flash point of acetone?", hits)]     # doctest: +SKIP

The wire protocol (what counts as a finished stream, keys, base URLs) is in
``tether.providers.anthropic``. Needs the ``tether[anthropic]`` extra.
"""

from __future__ import annotations

from ..providers.anthropic import AnthropicChat, sdk
from .llm import LLMGenerator

__all__ = ["AnthropicGenerator"]


class AnthropicGenerator(LLMGenerator):
    """Answers drafted by Claude, verified sentence by sentence."""

    name = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    sdk = staticmethod(sdk)
    chat = AnthropicChat
