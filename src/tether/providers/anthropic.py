"""Claude through the official ``anthropic`` SDK: the Messages API, streamed.

Reads the raw event stream (``message_start``, ``content_block_start``, ``ping``,
``content_block_delta`` with ``text_delta``, ``content_block_stop``,
``message_delta``, ``message_stop``) and yields the text deltas. The stream counts
as finished only at ``message_stop`` with a ``stop_reason`` of ``end_turn`` or
``stop_sequence``; a stream that ends before that, an ``error`` event, or
``max_tokens`` is a ``ProviderError``. The key is ``ANTHROPIC_API_KEY``; the base URL
is the API root (the SDK appends ``/v1/messages``). Needs the ``tether[anthropic]``
extra.

``cite`` sends the passages as plain-text ``document`` blocks with citations enabled
and yields, besides the text, each ``char_location`` citation (``citations_delta``
events when streamed; a text block's ``citations`` otherwise) as a
``DocumentCitation``: where in which document the model says its words come from.
What those ranges are worth is decided above this layer (ADR 0057).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import MissingExtra, ProviderError
from . import ProviderConfig, model_text, translate_error

__all__ = ["AnthropicChat", "DocumentCitation", "SourceDocument", "sdk"]

_FINISHED = ("end_turn", "stop_sequence")


@dataclass(frozen=True, slots=True)
class SourceDocument:
    """A plain-text ``document`` content block sent with citations enabled."""

    title: str
    text: str


@dataclass(frozen=True, slots=True)
class DocumentCitation:
    """A ``char_location`` citation as the API gave it: ``[start, end)`` into the text
    of document ``document_index`` (0-based, in the order sent), and the words cited."""

    document_index: int
    cited_text: str
    start: int
    end: int


def _document_block(document: SourceDocument) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": document.text},
        "citations": {"enabled": True},
    }
    if document.title:
        block["title"] = document.title
    return block


def _text(text: Any) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text_delta.text is {type(text).__name__}")
    return model_text(text)


def _citations(citations: Sequence[Any]) -> Iterator[DocumentCitation]:
    for citation in citations:
        if getattr(citation, "type", None) != "char_location":
            continue
        fields = (citation.document_index, citation.start_char_index, citation.end_char_index)
        if not all(isinstance(n, int) for n in fields) or not isinstance(citation.cited_text, str):
            raise TypeError("a char_location citation without integer indices and cited_text")
        yield DocumentCitation(fields[0], model_text(citation.cited_text), fields[1], fields[2])


def _text_of(event: Any) -> list[str]:
    if event.type == "content_block_delta" and event.delta.type == "text_delta":
        return [_text(event.delta.text)]
    return []


def _cited_parts_of(event: Any) -> list[str | DocumentCitation]:
    if event.type == "content_block_start" and getattr(event.content_block, "type", None) == "text":
        return list(_block_parts(event.content_block))  # "" and [] on the wire, as a rule
    if event.type == "content_block_delta" and event.delta.type == "text_delta":
        return [_text(event.delta.text)]
    if event.type == "content_block_delta" and event.delta.type == "citations_delta":
        return list(_citations([event.delta.citation]))
    return []


def _block_parts(block: Any) -> Iterator[str | DocumentCitation]:
    """A text block's text (when it has any) and then its citations."""
    text = getattr(block, "text", "")
    if text:
        yield _text(text)
    yield from _citations(getattr(block, "citations", None) or ())


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
        for part in self._streamed(self._request(system, user), _text_of):
            yield str(part)

    def cite(
        self,
        system: str,
        documents: Sequence[SourceDocument],
        question: str,
        *,
        stream: bool = True,
    ) -> Iterator[str | DocumentCitation]:
        """The reply to ``question`` over ``documents`` sent with citations enabled:
        text and each ``char_location`` citation as they arrive (streamed
        ``text_delta`` and ``citations_delta`` events), or, with ``stream=False``, a
        whole reply's text blocks in order, each block's text before its citations. A
        citation of another kind (a page, a search result) is not one Tether asked for
        and is skipped."""
        request = self._request(system, question)
        blocks = [_document_block(d) for d in documents]
        request["messages"] = [
            {"role": "user", "content": [*blocks, {"type": "text", "text": question}]}
        ]
        if stream:
            yield from self._streamed(request, _cited_parts_of)
        else:
            yield from self._cited_reply(request)

    def _streamed(
        self, request: Mapping[str, Any], read: Callable[[Any], Iterable[str | DocumentCitation]]
    ) -> Iterator[str | DocumentCitation]:
        """What ``read`` takes from each stream event; a ``ProviderError`` unless the
        stream finished."""
        stopped = False
        stop_reason: str | None = None
        try:
            stream = self._client.messages.create(**request, stream=True)
        except self._sdk.AnthropicError as exc:
            raise translate_error(exc, self._sdk, self.config) from exc
        try:
            for event in stream:
                if event.type == "message_delta":
                    stop_reason = event.delta.stop_reason or stop_reason
                elif event.type == "message_stop":
                    stopped = True
                yield from read(event)
        except Exception as exc:  # noqa: BLE001 - error events, JSON and transport failures
            raise translate_error(exc, self._sdk, self.config) from exc
        finally:
            stream.close()
        self._finished(stopped, stop_reason)

    def _finished(self, stopped: bool, stop_reason: str | None) -> None:
        where = f"anthropic at {self.config.where}"
        if not stopped:
            raise ProviderError(f"{where}: the stream ended before message_stop")
        if stop_reason == "max_tokens":
            raise ProviderError(
                f"{where}: the answer reached max_tokens ({self.config.max_tokens}) before it finished"
            )
        if stop_reason not in _FINISHED:
            raise ProviderError(f"{where}: generation stopped ({stop_reason})")

    def _cited_reply(self, request: Mapping[str, Any]) -> Iterator[str | DocumentCitation]:
        try:
            reply = self._client.messages.create(**request)
        except self._sdk.AnthropicError as exc:
            raise translate_error(exc, self._sdk, self.config) from exc
        try:
            parts = [
                part
                for block in getattr(reply, "content", None) or []
                if getattr(block, "type", None) == "text"
                for part in _block_parts(block)
            ]
        except (TypeError, AttributeError) as exc:
            raise translate_error(exc, self._sdk, self.config) from exc
        self._finished(True, getattr(reply, "stop_reason", None))
        yield from parts

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
        return model_text("".join(parts))
