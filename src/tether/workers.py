"""Worker processes: how many cores there are, how a worker starts, one forked map.

Three start methods, one per constraint (measured in docs/adr/0061). Ingest *spawns*
its workers (``ingest.parallel``): its process may hold store connections and threads,
which a fork would copy, its pool recycles workers (which ``ProcessPoolExecutor``
refuses with fork), and the workers of a forkserver would outlive a killed ingest.
``tether verify`` *forks* them (``forked_map``): that process holds neither, and a fork
hands each worker what the parent already built (the passages' index, the prepared
passages, WordNet's maps) instead of building it again in every worker. The service
forks a request's child from a *forkserver* (``service.isolate``): its process holds
threads, and a spawn per request would cost about three times the start.

Ctrl-C is the parent's to handle: it reaches the whole foreground process group, and a
worker interrupted too would print a traceback of its own. So a worker is started with
SIGINT blocked (``interrupts_held`` around the fork or spawn) and ignores it before
anything else it does (``start_worker``): no window in which an interrupt meant for the
parent can reach one (docs/adr/0051).

>>> forked_map(abs, [-1, 2, -3], workers=2)
[1, 2, 3]
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from .config import batch_collector
from .errors import TetherError

__all__ = ["default_workers", "forked_map", "ignore_interrupts", "interrupts_held", "start_worker"]

T = TypeVar("T")
R = TypeVar("R")


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


_MASKABLE = hasattr(signal, "pthread_sigmask")  # POSIX


@contextmanager
def interrupts_held(*, spawning: bool = False) -> Iterator[None]:
    """SIGINT held back from this thread while it starts processes or threads. A
    process forked or spawned meanwhile starts with SIGINT blocked, so no Ctrl-C reaches
    it before it ignores them (``ignore_interrupts``); a thread started meanwhile keeps
    it blocked for good (the worker processes a pool's thread starts later inherit its
    mask). An interrupt that arrives meanwhile is raised as the block ends, not inside
    a fork's at-fork hooks (which print it and drop it: the command would go on and
    exit 0) nor between a spawn and its first words to the child (which would read
    nothing and print a traceback). In the main thread the interrupt is also held back
    from Python's handler, which another thread that does not block SIGINT would run
    there. ``spawning``: the start is a spawn or a forkserver's, which needs
    multiprocessing's resource tracker; it is started first, as starting it unblocks
    SIGINT in this thread."""
    if not _MASKABLE:  # pragma: no cover - not POSIX
        yield
        return
    if spawning:
        resource_tracker.ensure_running()
    handler = signal.getsignal(signal.SIGINT)
    held: list[tuple[int, Any]] = []
    defer = callable(handler) and threading.current_thread() is threading.main_thread()
    if defer:
        signal.signal(signal.SIGINT, lambda signum, frame: held.append((signum, frame)))
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if defer:
            signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)  # one pending runs ``handler`` now
        if held and callable(handler):
            handler(*held[0])  # Python's own raises KeyboardInterrupt


def ignore_interrupts() -> None:
    """In a worker started under ``interrupts_held``: SIGINT ignored from now on (one
    already pending is dropped with it), then no longer blocked."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _MASKABLE:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def start_worker(parent: int) -> None:
    """A worker leaves Ctrl-C to its parent (``ignore_interrupts``), collects garbage
    as the CLI does (``batch_collector``), and ends when the process that started it
    does, even by SIGKILL: left behind, it would keep working for no one and hold the
    terminal's pipes open. (Linux: the kernel's parent-death signal; elsewhere the
    parent's own clean-up.)"""
    ignore_interrupts()
    batch_collector()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() != parent:  # it died before the signal was armed (while importing)
        os._exit(1)


def forked_map(fn: Callable[[T], R], items: Sequence[T], *, workers: int) -> list[R]:
    """``[fn(x) for x in items]``, the items dealt out among ``workers`` forked
    processes (item ``i`` to worker ``i % workers``: neighbouring items often cost
    alike) and the results put back in order: the same list as in one process when
    ``fn``'s result depends on its item alone. One process where fork is not
    available, for one worker or one item. An error in a worker is raised here (a
    ``TetherError`` as it was raised); a worker that dies without a result (killed,
    out of memory) raises ``TetherError``; when a worker cannot be started at all, this
    process does the work. On any error or interrupt here the workers are killed: none
    outlives the call."""
    workers = min(workers, len(items))
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [fn(x) for x in items]
    context = multiprocessing.get_context("fork")
    for stream in (sys.stdout, sys.stderr):  # a child must not flush a copy of their buffers
        stream.flush()
    started: list[tuple[Any, Connection]] = []  # (the fork context's Process, its pipe end)
    shares: list[list[Any]] | None = None
    try:
        for k in range(workers):
            receiver, sender = context.Pipe(duplex=False)
            child = context.Process(target=_work, args=(fn, items[k::workers], sender, os.getpid()),
                                    daemon=True)
            with interrupts_held():  # an interrupt meanwhile is raised once it is in ``started``
                try:
                    child.start()
                except OSError:  # no process to be had (a process limit, no memory): all here
                    receiver.close()
                    break
                finally:
                    sender.close()  # the parent keeps only its end: EOF once the child is gone
                started.append((child, receiver))
        else:
            shares = [_result(receiver) for _, receiver in started]
    finally:
        for child, receiver in started:
            if child.is_alive():
                child.kill()
            child.join()
            receiver.close()
    if shares is None:
        return [fn(x) for x in items]
    out: list[Any] = [None] * len(items)
    for k, share in enumerate(shares):
        out[k::workers] = share
    return out


def _work(fn: Callable[[Any], Any], share: Sequence[Any], sender: Connection, parent: int) -> None:
    """A forked worker: its share of the items, sent back as one list (or the error).
    Ctrl-C is the parent's to handle (it stops the workers)."""
    start_worker(parent)
    try:
        sender.send(("ok", [fn(x) for x in share]))
    except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
        sender.send(("error", exc if _round_trips(exc) else TetherError(f"{type(exc).__name__}: {exc}")))
    finally:
        sender.close()


def _round_trips(exc: BaseException) -> bool:
    """Whether the parent can rebuild ``exc`` (one whose constructor wants other
    arguments than it keeps would fail there, in ``recv``); else it goes as text."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any failure means: send the text instead
        return False
    return True


def _result(receiver: Connection) -> list[Any]:
    try:
        kind, value = receiver.recv()
    except EOFError:
        raise TetherError("a worker process ended without a result (killed or out of memory)",
                          hint="run again, or with fewer workers") from None
    if kind == "error":
        raise value
    share: list[Any] = value
    return share
