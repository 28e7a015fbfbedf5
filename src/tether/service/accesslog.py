"""One access-log line per request (``tether serve --access-log``).

    POST /v1/answers 200 12.4ms key=finance-team

Method, path (never the query string), status, milliseconds to the last byte, and
the name of the API key that authenticated the request: ``key=-`` when none did
(anonymous servers, open paths, a rejected key). Never the key itself, nor its hash.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ACCESS_LOGGER", "AccessLogMiddleware", "access_line"]

ACCESS_LOGGER = "tether.access"


def access_line(method: str, path: str, status: int, seconds: float, key_name: str | None) -> str:
    return f"{method} {path} {status} {seconds * 1000:.1f}ms key={key_name or '-'}"


class AccessLogMiddleware:
    """Pure ASGI, outermost (streaming-safe): logs when the response has ended."""

    def __init__(self, app: ASGIApp, *, logger: logging.Logger | None = None) -> None:
        self.app = app
        self.log = logger or logging.getLogger(ACCESS_LOGGER)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        state = scope.setdefault("state", {})

        async def seen_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, seen_send)
        finally:
            self.log.info(access_line(scope.get("method", "-"), scope.get("path", "-"), status,
                                      time.perf_counter() - started, state.get("key_name")))
