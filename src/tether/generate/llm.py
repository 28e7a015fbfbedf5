"""The generator over any provider, and its options from the settings.

A provider is a ``ChatClient`` from ``tether.providers``. ``LLMGenerator`` turns a client into
a ``Generator``: it builds the numbered prompt, feeds the stream to the sentence
assembler and yields each ``Draft`` the moment its sentence is complete, so the guard
verifies sentence one while the model writes sentence two.

Failures are sorted by what the user can do about them. A rejected key, an unknown
model or a missing setting is a ``ConfigError``: the run stops with a message that
names the fix. Everything transient — 429 or 5xx after the SDK's retries, a timeout,
a dropped connection, a malformed event, a stream that ends early — is a
``ProviderError``; ``Tether.stream`` records it in the answer and keeps whatever was
verified before it. An unfinished sentence is never released.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..config import Settings
from ..errors import ProviderError
from ..providers import ChatClient, ProviderConfig, provider_config, translate_error
from ..records import Draft, Hit
from .assemble import SentenceAssembler
from .prompt import Prompt

__all__ = [
    "LLM_GENERATORS",
    "ChatClient",
    "LLMGenerator",
    "ProviderConfig",
    "provider_config",
    "settings_options",
    "translate_error",
]

# Generators built on this module; ``Tether.generator`` fills their options from Settings.
LLM_GENERATORS = frozenset({"openai", "anthropic"})


def settings_options(settings: Settings, options: Mapping[str, Any]) -> dict[str, Any]:
    """Options for an LLM generator: explicit ``options`` over the ``generator_*`` settings."""
    merged: dict[str, Any] = {
        "model": settings.generator_model or None,
        "base_url": settings.generator_base_url or None,
        "timeout": settings.generator_timeout,
        "max_retries": settings.generator_max_retries,
        "max_tokens": settings.generator_max_tokens,
    }
    merged.update({k: v for k, v in options.items() if v is not None})
    return merged


class LLMGenerator:
    """A ``Generator`` over any ``ChatClient``: numbered prompt in, drafts out as they complete.

        >>> gen = OpenAIGenerator(model="gpt-4o-mini")              # doctest: +SKIP
        >>> for draft in gen.generate(question, hits):              # doctest: +SKIP
        ...     print(draft.text, draft.hints)
    """

    name = "llm"
    # Each provider names its key variable, its SDK loader (a missing extra must be
    # the first error a user sees) and its client.
    key_env = ""
    sdk: Callable[[], Any] = staticmethod(lambda: None)
    chat: Callable[[ProviderConfig], ChatClient]

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        max_tokens: int = 1024,
    ) -> None:
        self.sdk()
        config = provider_config(
            self.name,
            key_env=self.key_env,
            model=model,
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            max_tokens=max_tokens,
        )
        self.client = type(self).chat(config)
        self.model = self.client.model

    def generate(
        self, question: str, hits: Sequence[Hit], *, steering: str | None = None
    ) -> Iterator[Draft]:
        if not hits:
            return  # nothing to answer from: no call, no cost
        prompt = Prompt.build(question, hits, steering=steering)
        assembler = SentenceAssembler()
        try:
            for text in self.client.stream(prompt.system, prompt.user):
                for sentence in assembler.feed(text):
                    hints, ignored = prompt.hints(sentence.markers)
                    yield Draft(sentence.text, hints, ignored)
        except ProviderError as exc:
            tail = assembler.discard()
            if tail:
                raise ProviderError(
                    f"{exc}; the unfinished sentence after it was discarded ({len(tail)} characters)"
                ) from exc
            raise
        for sentence in assembler.close():
            hints, ignored = prompt.hints(sentence.markers)
            yield Draft(sentence.text, hints, ignored)
