"""OpenAI-compatible chat models (OpenAI, vLLM, llama.cpp server, Ollama) through the official SDK.

Streams ``chat.completions`` and reads each chunk's ``delta.content``. The stream
counts as finished only when a choice carries ``finish_reason == "stop"``; ending
without one (a cut connection, a proxy that drops ``[DONE]``) or with ``length`` is
a ``ProviderError``, so an answer cut mid-sentence never loses its last words
silently. The key is ``OPENAI_API_KEY``; a server on 127.0.0.1 may run without one.
Needs the ``tether[openai]`` extra.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import MissingExtra, ProviderError
from . import ProviderConfig, model_text, translate_error

__all__ = ["OpenAIChat", "sdk"]


def sdk() -> Any:
    try:
        return importlib.import_module("openai")
    except ImportError as exc:
        raise MissingExtra("the openai generator", "openai") from exc


class OpenAIChat:
    """A ``ChatClient`` for one model behind an OpenAI-compatible ``/chat/completions``."""

    provider = "openai"

    def __init__(self, config: ProviderConfig) -> None:
        self._sdk = sdk()
        self.config = config
        self.model = config.model
        self._client = self._sdk.OpenAI(
            api_key=config.api_key,
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    def _messages(self, system: str, user: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def stream(self, system: str, user: str) -> Iterator[str]:
        finish: str | None = None
        try:
            stream = self._client.chat.completions.create(
                model=self.model,
                messages=self._messages(system, user),
                max_tokens=self.config.max_tokens,
                stream=True,
            )
        except self._sdk.OpenAIError as exc:
            raise translate_error(exc, self._sdk, self.config) from exc
        try:
            for chunk in stream:
                for choice in chunk.choices or ():
                    if getattr(choice, "index", 0) != 0:
                        continue  # we asked for one choice; a server sending more is ignored
                    content = choice.delta.content if choice.delta is not None else None
                    if content:
                        if not isinstance(content, str):
                            raise TypeError(f"delta.content is {type(content).__name__}")
                        yield model_text(content)
                    finish = choice.finish_reason or finish
        except Exception as exc:  # noqa: BLE001 - includes JSON errors from a malformed event
            raise translate_error(exc, self._sdk, self.config) from exc
        finally:
            stream.close()
        if finish is None:
            raise ProviderError(
                f"openai at {self.config.where}: the stream ended before the model finished"
            )
        if finish == "length":
            raise ProviderError(
                f"openai at {self.config.where}: the answer reached max_tokens "
                f"({self.config.max_tokens}) before it finished"
            )
        if finish != "stop":
            raise ProviderError(f"openai at {self.config.where}: generation stopped ({finish})")

    def complete(
        self, system: str, user: str, *, schema: Mapping[str, Any] | None = None
    ) -> str:
        extra: dict[str, Any] = {}
        if schema is not None:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "strict": True, "schema": dict(schema)},
            }
        try:
            reply = self._client.chat.completions.create(
                model=self.model,
                messages=self._messages(system, user),
                max_tokens=self.config.max_tokens,
                temperature=0,  # the same pair should get the same word every time
                **extra,
            )
        except self._sdk.OpenAIError as exc:
            raise translate_error(exc, self._sdk, self.config) from exc
        choices = getattr(reply, "choices", None) or [None]
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if not isinstance(content, str):
            raise ProviderError(f"openai at {self.config.where}: the reply has no text")
        return model_text(content)
