"""Helpers of the fuzz tests. Fuzzing with hypothesis: every input finishes under a time bound and ends in a defined
outcome (a result that satisfies the module's invariants, or a ``TetherError``).

The default run is bounded so CI stays fast (``DEFAULT_EXAMPLES`` per test, fewer for
the costly targets); ``TETHER_FUZZ_EXAMPLES=5000 python -m pytest tests/fuzz`` runs a
long campaign. The number of inputs each target was given is printed at the end of
the run ("fuzz inputs tried").
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

T = TypeVar("T")

LONG = os.environ.get("TETHER_FUZZ_EXAMPLES")
TRIED: Counter[str] = Counter()


def fuzz_settings(examples: int = 150) -> settings:
    """``examples`` inputs by default, or ``$TETHER_FUZZ_EXAMPLES`` for a long run. No
    hypothesis deadline: time is bounded per input by ``bounded`` instead, which does
    not flake on a busy machine the way a 200 ms deadline does."""
    return settings(
        max_examples=int(LONG) if LONG else examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.filter_too_much,
                               HealthCheck.function_scoped_fixture],
    )


class Hang(BaseException):
    """Raised inside code that ran past its time bound. A BaseException, so the code
    under test cannot swallow it in an ``except Exception``."""


def bounded(target: str, seconds: float, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)``, failing with ``Hang`` if it runs over ``seconds``."""
    TRIED[target] += 1

    def _alarm(signum: int, frame: Any) -> None:
        raise Hang(f"{target}: still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.perf_counter()
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        assert time.perf_counter() - started < seconds + 0.5
