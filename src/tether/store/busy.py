"""Several processes on one SQLite file: retry what SQLite refuses without waiting.

``busy_timeout`` makes SQLite wait for a lock, but not everywhere. Setting the journal
mode while another process closes its last connection (and checkpoints and resets the
WAL), or starting a transaction while another runs WAL recovery, answers SQLITE_BUSY
("database is locked") at once. Those statements are retried here with jittered
exponential backoff, so a user never sees a lock that would have cleared in
milliseconds; a lock held for longer than ``BUSY_DEADLINE_S`` is reported as a
``StoreError`` that says so.

Only statements that had no effect when refused are retried: a single statement
outside a transaction (SQLite applies it whole or not at all) and ``BEGIN``. Inside a
transaction a refusal propagates, and the transaction is rolled back by its owner.
"""

from __future__ import annotations

import random
import sqlite3
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["BUSY_DEADLINE_S", "RetryingConnection", "is_busy", "retry_busy"]

T = TypeVar("T")

# The same wait as busy_timeout: past it, the lock is held by a long writer (a huge
# document, a gc), and the user is told rather than kept waiting without end.
BUSY_DEADLINE_S = 30.0
_FIRST_DELAY_S = 0.002
_MAX_DELAY_S = 0.25


def is_busy(exc: BaseException) -> bool:
    """SQLITE_BUSY or SQLITE_LOCKED, as Python's sqlite3 reports them."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    message = str(exc).lower()
    return "database is locked" in message or "database is busy" in message or (
        "database table is locked" in message
    )


def retry_busy(
    action: Callable[[], T],
    *,
    deadline_s: float = BUSY_DEADLINE_S,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``action()``, retried while it fails with a busy error and ``deadline_s`` lasts."""
    started = time.monotonic()
    delay = _FIRST_DELAY_S
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() - started >= deadline_s:
                raise
        # Jitter: processes refused together must not all come back together.
        sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, _MAX_DELAY_S)


class RetryingConnection(sqlite3.Connection):
    """A connection whose statements outside a transaction are retried when busy."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if self.in_transaction:
            return super().execute(sql, parameters)
        return retry_busy(lambda: super(RetryingConnection, self).execute(sql, parameters))

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> sqlite3.Cursor:
        if self.in_transaction:
            return super().executemany(sql, parameters)
        rows = list(parameters)  # an iterator would be spent by a refused first try
        return retry_busy(lambda: super(RetryingConnection, self).executemany(sql, rows))
