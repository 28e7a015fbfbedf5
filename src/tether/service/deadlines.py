"""Time and concurrency bounds of a request: its deadline, its body's arrival, its
headers' arrival, and how many heavy requests one API key may run at once (ADR 0023).

- ``DeadlineMiddleware`` gives each request one deadline, ``request_timeout_s`` after
  its headers arrived (``scope["state"]["deadline"]``, ``time.monotonic``). Routes run
  their work under it (``tether.deadline.until``), so the work itself stops at the
  deadline, and the body must have arrived by then: a body still trickling in gets
  408 and the connection is closed.
- ``HeavyLimitMiddleware`` lets one key (anonymous callers share one) run at most
  ``max_heavy_per_key`` heavy requests (``POST /v1/verify``, ``POST /v1/documents``)
  at once; one more gets 429 with ``Retry-After``: the seconds until the earliest
  deadline among the key's running requests, by which a slot is sure to be free.
- ``header_timeout_protocol`` is uvicorn's h11 protocol with one more timer: a
  connection whose request line and headers are not complete ``header_timeout_s``
  after it opened (or after its previous response) gets 408 and is closed. uvicorn's
  keep-alive timer stops at the first byte, so without it a client trickling one
  header byte a second holds the connection for ever. The same protocol bounds the
  head's size (``heads``: 414, 431).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import anyio
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .heads import DRAIN_BYTES, MAX_HEAD_BYTES, head_refusal
from .problems import PROBLEM_JSON, encode, problem_body, send_problem

__all__ = [
    "HEAVY_ROUTES", "BodyTimeout", "DeadlineMiddleware", "HeavyLimitMiddleware",
    "header_timeout_protocol", "request_deadline",
]

HEAVY_ROUTES = frozenset({("POST", "/v1/verify"), ("POST", "/v1/documents")})


class BodyTimeout(HTTPException):
    """An HTTP error, so that FastAPI's body parsing lets it through unchanged."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            408, f"the request body did not arrive within {seconds:g} s (request_timeout_s)",
            headers={"Connection": "close"},
        )


def request_deadline(scope: Scope, timeout_s: float) -> float:
    """The request's deadline (monotonic): the one ``DeadlineMiddleware`` set, else
    ``timeout_s`` from when the request was first seen."""
    state = scope.get("state") or {}
    if "deadline" in state:
        return float(state["deadline"])
    started = float(state.get("started", time.perf_counter()))
    return time.monotonic() + timeout_s - (time.perf_counter() - started)


class DeadlineMiddleware:
    """Sets the request's deadline and cuts a body that is still arriving when it passes."""

    def __init__(self, app: ASGIApp, *, timeout_s: Callable[[], float]) -> None:
        self.app = app
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        seconds = self.timeout_s()
        at = request_deadline(scope, seconds)
        scope.setdefault("state", {})["deadline"] = at
        body_done = False

        async def timed() -> Message:
            nonlocal body_done
            if body_done:  # what follows the body is the client leaving: no deadline
                return await receive()
            try:
                with anyio.fail_after(max(0.0, at - time.monotonic())):
                    message = await receive()
            except TimeoutError:
                raise BodyTimeout(seconds) from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        await self.app(scope, timed, send)


class HeavyLimitMiddleware:
    """At most ``cap()`` heavy requests per API key at once; one more gets 429."""

    def __init__(self, app: ASGIApp, *, cap: Callable[[], int]) -> None:
        self.app = app
        self.cap = cap
        # key name ("" when anonymous) -> deadlines of its heavy requests in flight.
        # Touched only on the event loop, so no lock.
        self.running: dict[str, list[float]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (scope.get("method"), scope["path"]) not in HEAVY_ROUTES:
            await self.app(scope, receive, send)
            return
        state = scope.get("state") or {}
        key = state.get("key_name") or ""
        at = float(state.get("deadline", time.monotonic()))
        running = self.running.setdefault(key, [])
        if len(running) >= self.cap():
            await self._refuse(send, running)
            return
        running.append(at)
        try:
            await self.app(scope, receive, send)
        finally:
            running.remove(at)
            if not running:
                del self.running[key]

    async def _refuse(self, send: Send, running: list[float]) -> None:
        wait = max(1, math.ceil(min(running) - time.monotonic()))
        body = problem_body(
            429, "too-many-requests",
            f"this key already runs {len(running)} heavy requests (verify, document uploads), "
            "the max_heavy_per_key limit", hint=f"retry after {wait} s",
        )
        await send_problem(send, 429, body, {"Retry-After": str(wait), "Connection": "close"})


_REASONS = {400: "Bad Request", 408: "Request Timeout", 414: "URI Too Long",
            431: "Request Header Fields Too Large"}


def _raw_problem(status: int, slug: str, detail: str) -> bytes:
    """A whole problem+json response, written to the transport before any ASGI cycle."""
    body = encode(problem_body(status, slug, detail))
    head = (f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: {PROBLEM_JSON}\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode("ascii") + body


_MALFORMED = _raw_problem(400, "input-error", "the request is not valid HTTP/1.1")


def _over_bounds(head: bytes) -> bytes | None:
    """The answer to a head over the bounds of ``heads``, or ``None``."""
    over = head_refusal(head)
    return None if over is None else _raw_problem(over[0], "limit-exceeded", over[1])


def header_timeout_protocol(seconds: float) -> type[Any]:
    """uvicorn's h11 protocol class, cutting connections whose headers trickle in and
    refusing heads over the bounds of ``heads`` (414, 431; 400 for a malformed one)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    too_slow = _raw_problem(408, "request-timeout",
                            f"the request headers did not arrive within {seconds:g} s (header_timeout_s)")

    class HeaderTimeoutProtocol(H11Protocol):  # type: ignore[misc]
        _header_timer: Any = None
        _refused = False  # answered and draining: what arrives now is dropped
        _drained = 0

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # Its own bound agrees with ours, which is checked first (handle_events).
            self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._refused:
                self._drained += len(data)
                if self._drained > DRAIN_BYTES:
                    self.transport.close()
                return
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:  # the headers are all in
                self._disarm()

        def handle_events(self) -> None:
            arriving = not self._refused and self.conn.their_state is h11.IDLE
            over = _over_bounds(self.conn.trailing_data[0]) if arriving else None
            if over is not None:
                self._refuse(over)
            elif not self._refused:
                super().handle_events()

        def send_400_response(self, msg: str) -> None:
            self._refuse(_MALFORMED)  # h11 could not parse the head: the same draining close

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._arm()  # the next request's headers get the same time

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _refuse(self, response: bytes) -> None:
            # Answer, then close at the client's EOF, after DRAIN_BYTES or in `seconds`:
            # closing with its bytes unread would reset the connection before it reads this.
            self._disarm()
            self._refused = True
            self.transport.write(response)
            if self.transport.can_write_eof():
                self.transport.write_eof()
            self._header_timer = self.loop.call_later(seconds, self.transport.close)

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(seconds, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            self.transport.write(too_slow)
            self.transport.close()

    return HeaderTimeoutProtocol
