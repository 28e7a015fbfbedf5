"""Claude through the official ``anthropic`` SDK: the Messages API, streamed.

Reads the raw event stream (``message_start``, ``content_block_start``, ``ping``,
``content_block_delta`` with ``text_delta``, ``content_block_stop``,
``message_delta``, ``message_stop``) and yields the text deltas. The stream counts
as finished only at ``message_stop`` with a ``stop_reason`` of ``end_turn`` or
``stop_sequence``; a stream that ends before that, an ``error`` event, or
``max_tokens`` is a ``ProviderError``. The key is ``ANTHROPIC_API_KEY``; the base URL
is the API root (the SDK appends ``/v1/messages``). Needs the ``tether[anthropic]``
extra.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import MissingExtra, ProviderError
from . import ProviderConfig, translate_error

__all__ = ["AnthropicChat", "sdk"]

_FINISHED = ("end_turn", "stop_sequence")


def sdk() -> Any:
    try:
        return importlib.import_module("anthropic")
    except ImportError as exc:
        raise MissingExtra("the anthropic generator", "anthropic") from exc


class AnthropicChat:
    """A ``ChatClient`` for one Claude model behind the Messages API."""

    provider = "anthropic"

    def __init__(self, config: ProviderConfig) -> None:
        self._sdk = sdk()
        self.config = config
        self.model = config.model
        self._client = self._sdk.Anthropic(
            api_key=config.api_key,
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    def _request(self, system: str, user: str) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": self.config.max_tokens,
            "system": system,
            "messages": [{"role": "user", "content": user}],
        }

    def stream(self, system: str, user: str) -> Iterator[str]:
        stopped = False
        stop_reason: str | None = None
        try:
            stream = self._client.messages.create(**self._request(system, user), stream=True)
        except self._sdk.AnthropicError as exc:
            raise translate_error(exc, self._sdk, self.config) from exc
        try:
            for event in stream:
                kind = event.type
                if kind == "content_block_delta" and event.delta.type == "text_delta":
                    text = event.delta.text
                    if not isinstance(text, str):
                        raise TypeError(f"text_delta.text is {type(text).__name__}")
                    yield text
                elif kind == "message_delta":
                    stop_reason = event.delta.stop_reason or stop_reason
                elif kind == "message_stop":
                    stopped = True
        except Exception as exc:  # noqa: BLE001 - error events, JSON and transport failures
            raise translate_error(exc, self._sdk, self.config) from exc
        finally:
            stream.close()
        where = f"anthropic at {self.config.where}"
        if not stopped:
            raise ProviderError(f"{where}: the stream ended before message_stop")
        if stop_reason == "max_tokens":
            raise ProviderError(
                f"{where}: the answer reached max_tokens ({self.config.max_tokens}) before it finished"
            )
        if stop_reason not in _FINISHED:
            raise ProviderError(f"{where}: generation stopped ({stop_reason})")

    def complete(
        self, system: str, user: str, *, schema: Mapping[str, Any] | None = None
    ) -> str:
        extra: dict[str, Any] = {}
        if schema is not None:
            # Structured outputs; sent as body so older SDKs without the parameter work too.
            extra["extra_body"] = {
                "output_config": {"format": {"type": "json_schema", "schema": dict(schema)}}
            }
        try:
            reply = self._client.messages.create(**self._request(system, user), **extra)
        except self._sdk.AnthropicError as exc:
            raise translate_error(exc, self._sdk, self.config) from exc
        blocks = getattr(reply, "content", None) or []
        parts = [
            block.text
            for block in blocks
            if getattr(block, "type", None) == "text" and isinstance(getattr(block, "text", None), str)
        ]
        if not parts:
            raise ProviderError(f"anthropic at {self.config.where}: the reply has no text")
        return "".join(parts)
