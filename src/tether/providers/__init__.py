"""The wire clients of the model APIs, shared by the generators and the LLM judge.

A provider is a ``ChatClient`` with two methods — ``stream`` (text as it arrives, for
a generator) and ``complete`` (one reply, for the judge). ``provider_config``
validates its settings; ``translate_error`` sorts SDK and transport failures by what
the user can do about them: a rejected key, an unknown model or a missing setting is
a ``ConfigError`` (the message names the fix); everything transient — 429 or 5xx
after the SDK's retries, a timeout, a dropped connection, a malformed event, a
stream that ends early — is a ``ProviderError``. Nothing here knows about drafts,
verdicts or citations.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlparse

from ..errors import ConfigError, ProviderError, TetherError

__all__ = ["LOCAL_PLACEHOLDER_KEY", "ChatClient", "ProviderConfig", "model_text", "provider_config",
           "translate_error"]

# Sent to a server on this machine that wants no key (llama.cpp, vLLM, Ollama).
LOCAL_PLACEHOLDER_KEY = "local-no-key"


# A JSON string may escape half a surrogate pair ("\ud800"); decoded, it is a character
# no UTF-8 store, log or terminal can hold.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def model_text(text: str) -> str:
    """Text a model server sent, as Tether can keep it: a lone surrogate becomes U+FFFD,
    as ingest reads a document's (``ingest.extract.sniff.clean``). The guard then reads
    the sentence like any other."""
    return _LONE_SURROGATE.sub("\ufffd", text)


class ChatClient(Protocol):
    """One model behind one provider API."""

    provider: str
    model: str

    def stream(self, system: str, user: str) -> Iterator[str]:
        """Text deltas as they arrive. Raises ``ProviderError`` unless the model finished."""
        ...

    def complete(
        self, system: str, user: str, *, schema: Mapping[str, Any] | None = None
    ) -> str:
        """One whole reply; with ``schema``, ask the provider for JSON of that shape."""
        ...


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    provider: str
    model: str
    base_url: str | None
    api_key: str = ""
    timeout: float = 30.0
    max_retries: int = 2
    max_tokens: int = 1024

    @property
    def where(self) -> str:
        return self.base_url or f"the {self.provider} API"


def _is_loopback(base_url: str | None) -> bool:
    host = urlparse(base_url or "").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def provider_config(
    provider: str,
    *,
    key_env: str,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    timeout: float,
    max_retries: int,
    max_tokens: int,
    role: str = "generator",
) -> ProviderConfig:
    """Validated settings for one provider; the key comes from ``key_env`` unless given.

    A server on this machine (``127.0.0.1``, ``localhost``) may run without a key.
    """
    if not model:
        raise ConfigError(
            f"the {provider} {role} needs a model name",
            hint="pass --model NAME, or set generator_model in tether.toml "
            "(TETHER_GENERATOR_MODEL)"
            if role == "generator"
            else "pass model=NAME",
        )
    if base_url:
        parsed = urlparse(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ConfigError(
                f"base URL {base_url!r} is not an http(s) URL",
                hint="for example --base-url http://127.0.0.1:8000/v1",
            )
    key = api_key or os.environ.get(key_env, "")
    if not key:
        if not _is_loopback(base_url):
            raise ConfigError(
                f"{key_env} is not set; the {provider} {role} needs an API key",
                hint=f"export {key_env}=... (a server on 127.0.0.1 needs none)",
            )
        key = LOCAL_PLACEHOLDER_KEY
    if timeout <= 0:
        raise ConfigError("generator_timeout must be a positive number of seconds")
    if max_retries < 0:
        raise ConfigError("generator_max_retries must be 0 or more")
    if max_tokens < 1:
        raise ConfigError("generator_max_tokens must be at least 1")
    return ProviderConfig(
        provider, model, base_url or None, key, float(timeout), int(max_retries), int(max_tokens)
    )


def _body_message(exc: BaseException) -> str:
    """The provider's own words from an error body ({"error": {"message": …}}), if any."""
    body = getattr(exc, "body", None)
    error = body.get("error") if isinstance(body, dict) else None
    for holder in (error, body):
        if isinstance(holder, dict) and isinstance(holder.get("message"), str):
            return str(holder["message"])
    return str(getattr(exc, "message", "") or exc)


def _never_connected(exc: BaseException) -> bool:
    """Whether the transport failed before a connection was made (refused, no route, the
    name does not resolve), as opposed to one lost mid-request. The SDKs wrap httpx's
    ``ConnectError``, which wraps the socket's ``OSError``."""
    seen: BaseException | None = exc
    for _ in range(8):  # a bounded walk down the chain of causes
        if seen is None:
            return False
        if type(seen).__name__ == "ConnectError" or isinstance(
                seen, (ConnectionRefusedError, socket.gaierror)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def translate_error(exc: BaseException, sdk: Any, config: ProviderConfig) -> TetherError:
    """An SDK or transport exception as a ``ConfigError`` (fix a setting) or ``ProviderError``."""
    who = f"{config.provider} at {config.where}"
    status = getattr(exc, "status_code", None)
    if isinstance(exc, sdk.APIStatusError) and isinstance(status, int):
        message = _body_message(exc)
        if status < 400:  # an ``error`` event inside a stream that began with 200
            return ProviderError(f"{who} reported an error mid-stream: {message}")
        if status in (401, 403):
            key_env = "ANTHROPIC_API_KEY" if config.provider == "anthropic" else "OPENAI_API_KEY"
            return ConfigError(
                f"{who} refused the API key (HTTP {status}): {message}",
                hint=f"check {key_env}",
            )
        if status == 404:
            where_hint = (
                "the Anthropic API root, without /v1"
                if config.provider == "anthropic"
                else "OpenAI-compatible servers usually end in /v1"
            )
            return ConfigError(
                f"{who} has no model {config.model!r} or no such endpoint (HTTP 404): {message}",
                hint=f"check --model, and --base-url ({where_hint})",
            )
        retryable = status in (408, 409, 429) or status >= 500  # what the SDKs retry
        retried = f" after {config.max_retries} retries" if retryable and config.max_retries else ""
        return ProviderError(f"{who} answered HTTP {status}{retried}: {message}")
    if isinstance(exc, sdk.APITimeoutError):
        return ProviderError(f"{who} did not respond within {config.timeout:g} s")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f": {cause}" if cause else ""
        if _never_connected(exc):
            return ProviderError(f"cannot connect to {who}{detail}",
                                 hint="is the server running? check --base-url")
        return ProviderError(f"lost the connection to {who}{detail}")
    if type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "httpcore2"):
        # Some SDKs let transport errors raised mid-stream through untranslated.
        return ProviderError(f"lost the connection to {who}: {exc}")
    if isinstance(exc, sdk.APIError):  # an {"error": …} object inside the stream
        return ProviderError(f"{who} reported an error mid-stream: {getattr(exc, 'message', exc)}")
    return ProviderError(f"{who} sent a malformed response: {type(exc).__name__}: {exc}")
