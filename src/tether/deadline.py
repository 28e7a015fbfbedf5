"""Deadlines that stop work cooperatively: the loops that cost CPU ask ``check()``.

A face (the HTTP service) sets a deadline around the work of one request with
``until``; the loops whose cost a caller can steer — the guard's sentence x unit
loop, the PDF extractor's pages and content-stream operators — call ``check()``,
which raises ``DeadlineExceeded`` once it has passed. Without a deadline (the CLI,
a library call) ``check()`` does nothing. The deadline lives in a context variable,
so it follows the work into the worker thread that runs it (``until`` is entered
there) and never leaks into another request's thread.

>>> import time
>>> with until(time.monotonic() - 1):
...     check()
Traceback (most recent call last):
...
tether.deadline.DeadlineExceeded: the work ran past its deadline and was stopped
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .errors import TetherError

__all__ = ["DeadlineExceeded", "check", "remaining", "until"]

_AT: ContextVar[float | None] = ContextVar("tether_deadline", default=None)


class DeadlineExceeded(TetherError):
    """Work ran past the deadline set with ``until`` and stopped where it was
    (the service answers 504; nothing half-done is written, since no check sits
    inside a store write)."""

    exit_code = 1


@contextmanager
def until(at: float | None) -> Iterator[None]:
    """Work inside the block stops at ``at`` (``time.monotonic()``); ``None``: no deadline."""
    token = _AT.set(at)
    try:
        yield
    finally:
        _AT.reset(token)


def check() -> None:
    """Raise ``DeadlineExceeded`` once the current deadline has passed (~0.1 µs otherwise)."""
    at = _AT.get()
    if at is not None and time.monotonic() >= at:
        raise DeadlineExceeded("the work ran past its deadline and was stopped")


def remaining() -> float | None:
    """Seconds left before the current deadline, or ``None`` without one."""
    at = _AT.get()
    return None if at is None else at - time.monotonic()
