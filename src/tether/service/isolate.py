"""Heavy work in a child process: at a lower CPU priority, killed at its deadline.

The service's threads share one interpreter lock: a CPU-bound verify or PDF
extraction in a worker thread takes the lock from the event loop and from every
honest request, however well it checks its deadline. ``run_isolated`` runs such a
function in a process forked from a forkserver (which has imported the extractors
and the guard once, so a fork costs milliseconds), under ``nice`` so the kernel
serves the server's own process first, and kills it when the request's deadline
passes: the work stops there whatever it is doing, even inside pypdf's parser.
A ``TetherError`` raised in the child is raised again in the caller, same class,
message and hint. Ctrl-C is the server's to handle: the forkserver is started with
SIGINT blocked, so it and every child forked from it start so, and a child ignores it
(``workers.ignore_interrupts``); the server stops them as it shuts down.

>>> import time                                                 # doctest: +SKIP
>>> await run_isolated(sum, [1, 2], deadline=time.monotonic() + 5)   # doctest: +SKIP
3
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import anyio

from ..config import Settings
from ..deadline import DeadlineExceeded
from ..errors import InputError, LimitExceeded, TetherError
from ..workers import ignore_interrupts, interrupts_held

__all__ = ["check_pairs", "extract_upload", "run_isolated", "verify_request", "warm"]

NICE = 10  # the child's niceness: the server and its light requests come first
_PRELOAD = ["tether.service.isolate", "tether.ingest.extract", "tether.facade"]
_context: Any = None


def _ctx() -> Any:
    global _context
    if _context is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        _context = ctx
    return _context


def warm() -> None:
    """Start the forkserver now (it imports the heavy modules once, ~1 s), not on the
    first heavy request."""
    run = _ctx().Process(target=len, args=((),), daemon=True)
    _start(run)
    run.join()


def _start(process: Any) -> None:
    """``process.start()``, and the forkserver with it when none runs (the first
    time, or after it died), with SIGINT held back (``interrupts_held``)."""
    with interrupts_held(spawning=True):
        process.start()


def _child(conn: Connection, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    ignore_interrupts()
    os.nice(NICE)
    try:
        conn.send(("ok", fn(*args)))
    except TetherError as exc:
        conn.send(("error", type(exc), exc.args[0] if exc.args else str(exc), exc.hint))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which logs it
        conn.send(("crash", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _raise_from(message: tuple[Any, ...]) -> Any:
    if message[0] == "ok":
        return message[1]
    if message[0] == "error":
        _, kind, text, hint = message
        try:
            error = kind(text, hint=hint)
        except TypeError:  # a subclass with its own signature: the root keeps the words
            error = TetherError(text, hint=hint)
        raise error
    raise RuntimeError(f"isolated work failed: {message[1]}")


async def run_isolated(fn: Callable[..., Any], *args: Any, deadline: float) -> Any:
    """``fn(*args)`` in a child process; ``DeadlineExceeded`` (the child killed) once
    ``deadline`` (``time.monotonic``) passes first. ``fn`` and its arguments and result
    must pickle."""
    ctx = _ctx()
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(sender, fn, args), daemon=True)
    try:
        await anyio.to_thread.run_sync(_start, child)
        sender.close()
        with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
            await anyio.wait_readable(receiver.fileno())
        if not receiver.poll():
            child.kill()
            raise DeadlineExceeded("the work ran past its deadline and was stopped")
        try:
            message = await anyio.to_thread.run_sync(receiver.recv)
        except EOFError:  # the child died without a word (killed, out of memory)
            raise RuntimeError("isolated work ended without a result") from None
        return _raise_from(message)
    finally:
        if child.is_alive():
            child.kill()
        if child.pid is not None:
            await anyio.to_thread.run_sync(child.join)
        receiver.close()


def verify_request(raw: bytes, settings: Settings) -> tuple[str, Any]:
    """The child's side of POST /v1/verify, from the raw body on: strict JSON decoding,
    validation, the ``max_verify_pairs`` bound, then ``facade.verify_answer``. Decoding
    a large body costs tens of milliseconds, so a flood of oversized requests would
    otherwise stall the event loop before any bound could refuse them. Returns
    ``("ok", verdicts)`` or ``("invalid", errors)`` (FastAPI's validation errors, as
    plain data)."""
    from pydantic import ValidationError

    from ..facade import verify_answer
    from ..text.jsonin import loads_strict
    from ..text.sentences import split_sentences
    from .schemas import VerifyRequest

    try:
        data = loads_strict(raw, where="body", max_depth=settings.max_json_depth,
                            max_number_chars=settings.max_json_number_chars)
    except InputError as exc:
        cause = exc.__cause__
        if not isinstance(cause, json.JSONDecodeError):
            raise
        return "invalid", [{"type": "json_invalid", "loc": ["body", cause.pos],
                            "msg": "JSON decode error", "ctx": {"error": cause.msg}}]
    try:
        body = VerifyRequest.model_validate(data)
    except ValidationError as exc:
        return "invalid", json.loads(exc.json(include_url=False, include_input=False))
    if body.sentences is None and body.answer is None:
        raise InputError("needs 'sentences' (a list) or 'answer' (free text)")
    passages = {str(p.id): p.text for p in body.passages}
    sentences = body.sentences if body.sentences is not None else split_sentences(body.answer or "")
    check_pairs(len(sentences), len(passages), settings)
    return "ok", verify_answer(passages=passages, sentences=sentences, settings=settings)


def check_pairs(sentences: int, passages: int, settings: Settings) -> None:
    pairs = sentences * passages
    if pairs > settings.max_verify_pairs:
        raise LimitExceeded(
            f"{sentences} sentences x {passages} passages = {pairs} pairs is over the "
            f"max_verify_pairs limit of {settings.max_verify_pairs}",
            hint="send fewer sentences or passages per request, or raise max_verify_pairs",
        )


def extract_upload(data: bytes, media_type: str, name: str, settings: Settings) -> int:
    """Extract an upload as ingesting it would, and return its text's length: the
    child's side of the pre-flight check of POST /v1/documents (a document that fails
    here, or runs past the deadline, is refused before the server's process spends
    anything on it)."""
    from ..ingest.extract import extract_bytes

    return len(extract_bytes(data, media_type=media_type, settings=settings, name=name).text)
