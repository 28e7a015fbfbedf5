"""Server-sent events from the synchronous core, and stopping the core when nobody listens.

The core's ``Tether.stream`` is a plain generator. ``Pump`` drives it from the event
loop one step per worker-thread hop, so the loop never blocks on retrieval, a model
or the verifier, and each event goes out the moment the core yields it. ``stop``
ends the work for good: the generator is closed right away when idle, or by the
worker thread as soon as its current step returns — never while it runs, which a
generator does not allow. ``EventStreamResponse`` watches for the client's
disconnect and stops the pump, so a closed tab stops retrieval and generation for
that request instead of letting them run to the end.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

import anyio
import anyio.lowlevel
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from ..deadline import until
from ..generate import Generator
from ..pipeline import Event
from ..records import Draft, Hit, Remark

__all__ = ["EventStreamResponse", "Pump", "StoppableGenerator", "Stopped", "format_event"]

log = logging.getLogger("tether.service")


def format_event(kind: str, data: Any) -> bytes:
    """One SSE frame. ``json.dumps`` escapes newlines, so ``data`` is one line."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {kind}\ndata: {payload}\n\n".encode("utf-8")


class Stopped(Exception):
    """Raised inside the core's generator loop once its request is gone."""


class StoppableGenerator:
    """A generator that gives up between drafts once ``stopped`` is set.

    The core yields an event only when a sentence passes the guard, so a step can
    run through many dropped drafts; checking between drafts stops a slow model
    there rather than at the next verified sentence. It raises rather than ending
    early: an answer cut short must not be finished and recorded as if complete.
    """

    def __init__(self, inner: Generator, stopped: threading.Event) -> None:
        self.inner = inner
        self.name = inner.name
        self.stopped = stopped

    def generate(
        self, question: str, hits: Sequence[Hit], *, steering: str | None = None
    ) -> Iterator[Draft | Remark]:
        drafts = self.inner.generate(question, hits, steering=steering)
        try:
            for draft in drafts:
                if self.stopped.is_set():
                    raise Stopped("the request was stopped")
                yield draft
        finally:
            close = getattr(drafts, "close", None)
            if close is not None:
                close()


class Pump:
    """Steps a synchronous event iterator in worker threads; ``stop`` ends it for good."""

    def __init__(self, events: Iterator[Event] | None = None, *,
                 deadline: float | None = None) -> None:
        self._events: Iterator[Event] = events if events is not None else iter(())
        # Each step runs under it (``tether.deadline``): the guard's loops stop there.
        self.deadline = deadline
        self._state = threading.Lock()
        self._running = False
        self._stopped = False
        # Set by ``stop``: a StoppableGenerator watching it gives up between drafts.
        self.stopping = threading.Event()
        # Set once the iterator is exhausted, has raised, or has been closed.
        self.finished = threading.Event()

    def start(self, events: Iterator[Event]) -> None:
        """Attach the events (when they are made after the pump, to watch ``stopping``)."""
        self._events = events

    def _close(self) -> None:
        close = getattr(self._events, "close", None)
        try:
            if close is not None:
                close()
        except Exception:  # noqa: BLE001 - a failing cleanup must not mask the request's fate
            log.exception("closing an answer stream failed")
        finally:
            self.finished.set()

    def step(self) -> Event | None:
        """The next event, or ``None`` when the stream is over or stopped (worker thread)."""
        with self._state:
            if self._stopped:
                return None
            self._running = True
        try:
            with until(self.deadline):
                event: Event | None = next(self._events)
        except StopIteration:
            event = None
        except BaseException:
            with self._state:
                self._running, self._stopped = False, True
            self.finished.set()
            raise
        with self._state:
            self._running = False
            close_now = self._stopped and event is not None
            if event is None:
                self._stopped = True
        if event is None:
            self.finished.set()
            return None
        if close_now:  # stop() came while this step ran; it left the closing to us
            self._close()
            return None
        return event

    def stop(self) -> None:
        """No more steps; close the iterator now, or after the step in flight returns."""
        self.stopping.set()
        with self._state:
            self._stopped = True
            close_now = not self._running
        if close_now:
            self._close()

    async def next(self, deadline: float) -> Event | None:
        """``step`` in a worker thread; ``TimeoutError`` once ``deadline`` (monotonic) passes.

        On timeout the thread is abandoned, not waited for: the caller stops the pump
        and the thread closes the generator when its step returns.
        """
        with anyio.fail_after(max(0.0, deadline - time.monotonic())):
            return await anyio.to_thread.run_sync(self.step, abandon_on_cancel=True)

    def drain(self) -> list[Event]:
        """Every remaining event (worker thread); stops early once ``stop`` is called."""
        events = []
        while (event := self.step()) is not None:
            events.append(event)
        return events


Produce = Callable[[Callable[[bytes], Awaitable[None]]], Awaitable[None]]


class EventStreamResponse(Response):
    """``text/event-stream`` whose body ``produce`` writes through ``emit``.

    A client disconnect cancels ``produce`` at its next await; ``on_close`` runs in
    every case (finished, failed, disconnected) to stop the work behind the stream.
    """

    media_type = "text/event-stream"

    def __init__(
        self,
        produce: Produce,
        *,
        on_close: Callable[[], None],
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.produce = produce
        self.on_close = on_close
        self.status_code = 200
        self.background = None
        # no-store: an answer is per caller; X-Accel-Buffering: a buffering proxy
        # would hold verified sentences back until the end, defeating the stream.
        self.init_headers(
            {"Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})}
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as group:

                async def watch_disconnect() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                async def emit(chunk: bytes) -> None:
                    try:
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    except OSError:  # ASGI 2.4 servers report a gone client on send
                        group.cancel_scope.cancel()
                        await anyio.lowlevel.checkpoint()

                group.start_soon(watch_disconnect)
                await send(
                    {"type": "http.response.start", "status": self.status_code,
                     "headers": self.raw_headers}
                )
                await self.produce(emit)
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self.on_close)
