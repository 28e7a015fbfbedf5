"""Claude through the official ``anthropic`` SDK: the Messages API, streamed.

    >>> gen = AnthropicGenerator(model="claude-sonnet-4-5")                 # doctest: +SKIP
    >>> [d.text for d in gen.generate("Flash point of acetone?", hits)]     # doctest: +SKIP

The wire protocol (what counts as a finished stream, keys, base URLs) is in
``tether.providers.anthropic``. Needs the ``tether[anthropic]`` extra. Besides the
quote-bound and free-text answers of every LLM generator it answers with the API's
own citations (``answers="citations"``, ADR 0057; ``generate.citations``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from ..errors import ProviderError
from ..providers.anthropic import AnthropicChat, sdk
from ..records import Draft, Hit, Remark
from .citations import CitationPrompt, CitationReader
from .llm import LLMGenerator

__all__ = ["AnthropicGenerator"]


class AnthropicGenerator(LLMGenerator):
    """Answers drafted by Claude, verified sentence by sentence."""

    name = "anthropic"
    key_env = "ANTHROPIC_API_KEY"
    sdk = staticmethod(sdk)
    chat = AnthropicChat
    modes: Mapping[str, str] = {**LLMGenerator.modes, "citations": "_citations"}
    client: AnthropicChat

    def _citations(
        self, question: str, hits: Sequence[Hit], steering: str | None
    ) -> Iterator[Draft | Remark]:
        """Passages out as cited documents; each cited stored sentence back as soon as
        its citation arrives."""
        prompt = CitationPrompt.build(question, hits, steering=steering)
        reader = CitationReader(prompt)
        try:
            for part in self.client.cite(prompt.system, prompt.documents, prompt.question):
                yield from reader.feed(part)
        except ProviderError:
            yield from reader.close()  # the lead-in so far; every citation read is whole
            raise
        yield from reader.close()
