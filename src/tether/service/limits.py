"""Request body size limit, enforced while the body arrives (not after it is buffered).

A declared ``Content-Length`` over the limit is refused before a byte is read; a
chunked body is counted as it streams in and cut off at the limit. Uploads to
``POST /v1/documents`` may carry a whole document (``max_file_bytes``) on top of the
ordinary limit; everything else is small JSON.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..config import Settings
from .problems import problem_body, send_problem

__all__ = ["BodyLimitMiddleware", "BodyTooLarge", "body_limit_for"]


class BodyTooLarge(HTTPException):
    """An HTTP error so that FastAPI's body parsing lets it through unchanged."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            413, f"the request body is larger than the limit of {limit} bytes (max_request_bytes)"
        )
        self.limit = limit


def body_limit_for(settings: Settings) -> Callable[[Scope], int]:
    def limit(scope: Scope) -> int:
        if scope["path"] == "/v1/documents" and scope["method"] == "POST":
            return settings.max_file_bytes + settings.max_request_bytes
        return settings.max_request_bytes

    return limit


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, *, limit_for: Callable[[Scope], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None:
            try:
                too_large = int(declared) > limit
            except ValueError:
                await send_problem(send, 400, problem_body(400, "input-error",
                                                           "Content-Length is not a number"))
                return
            if too_large:
                error = BodyTooLarge(limit)
                await send_problem(send, 413, problem_body(413, "limit-exceeded", error.detail))
                return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, counted, send)
