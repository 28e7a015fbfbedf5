"""The generator over any provider, and its options from the settings.

A provider is a ``ChatClient`` from ``tether.providers``. ``LLMGenerator`` turns a client into
a ``Generator`` that answers in one of these ways (``answers``):

- ``"quotes"`` (the default, ADR 0050): the model sees each passage sentence under an id
  (``[3.2]``) and answers by choosing ids; each chosen sentence is yielded, as stored,
  the moment its id is complete (``quotes``).
- ``"free"``: the model writes its own sentences with ``[n]`` markers; the sentence
  assembler yields each ``Draft`` the moment its sentence is complete.
- ``"citations"`` (the Anthropic generator only, ADR 0057): the passages go out as
  documents with the API's citations on; each stored sentence a citation covers is
  yielded the moment the citation arrives (``citations``).

Either way the guard verifies sentence one while the model writes the next.

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

from ..config import ANSWER_MODES, Settings
from ..errors import ProviderError
from ..providers import ChatClient, ProviderConfig, provider_config, translate_error
from ..errors import ConfigError
from ..records import Draft, Hit, Remark
from .assemble import SentenceAssembler
from .prompt import Prompt
from .quotes import SHORTLIST, QuotePrompt, QuoteReader

__all__ = [
    "ANSWER_MODES",
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
        "answers": settings.generator_answers,
        "shortlist": settings.generator_shortlist,
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
    # The ``answers`` modes this generator implements, each by the method named.
    modes: Mapping[str, str] = {"quotes": "_quotes", "free": "_free"}

    def __init__(
        self,
        *,
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        max_tokens: int = 1024,
        answers: str = "quotes",
        shortlist: int = SHORTLIST,
    ) -> None:
        if answers not in ANSWER_MODES:
            raise ConfigError(f"answers must be one of {', '.join(ANSWER_MODES)}, got {answers!r}")
        if answers not in self.modes:
            raise ConfigError(
                f"the {self.name} generator cannot answer with {answers!r}",
                hint=f"use one of {', '.join(self.modes)} (citations need --generator anthropic)",
            )
        if shortlist < 0:
            raise ConfigError(f"generator_shortlist must be 0 (every sentence) or more, got {shortlist}")
        self.answers = answers
        self.shortlist = shortlist
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
    ) -> Iterator[Draft | Remark]:
        if not hits:
            return  # nothing to answer from: no call, no cost
        answer = getattr(self, self.modes[self.answers])
        yield from answer(question, hits, steering)

    def _quotes(
        self, question: str, hits: Sequence[Hit], steering: str | None
    ) -> Iterator[Draft | Remark]:
        """Ids in, the chosen stored sentences out, each as soon as its id is complete."""
        prompt = QuotePrompt.build(question, hits, steering=steering, shortlist=self.shortlist)
        reader = QuoteReader(prompt)
        try:
            for text in self.client.stream(prompt.system, prompt.user):
                yield from reader.feed(text)
        except ProviderError as exc:
            remarks, tail = reader.abandon()
            yield from (r for r in remarks if isinstance(r, Remark))
            if tail:
                raise ProviderError(
                    f"{exc}; the unfinished id after it was discarded ({len(tail)} characters)"
                ) from exc
            raise
        yield from reader.close()

    def _free(self, question: str, hits: Sequence[Hit], steering: str | None) -> Iterator[Draft]:
        """The model's own sentences, each as soon as its end is certain."""
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
