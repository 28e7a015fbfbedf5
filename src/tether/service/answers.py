"""``/v1/answers``, ``/v1/verify`` and ``/v1/citations/resolve``: the core as a service.

A streamed answer is the core's ``stream`` sent as it happens: ``sources`` first
(only passages the caller may read), then each ``sentence`` the guard verified, then
``done`` with the whole Answer. The first step (retrieval) runs before the response
starts, so a bad question is an ordinary problem+json error, not a broken stream;
anything that fails later arrives as an ``error`` event carrying the problem.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import anyio
from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from .. import deadline as deadlines
from .. import modes as gates
from ..config import Settings
from ..errors import ConfigError, InputError, TetherError
from ..facade import Tether
from ..pipeline import Done, Event, Sentence, Sources
from ..records import Hit, to_json
from .auth import principals_of
from .deadlines import request_deadline
from .isolate import run_isolated, verify_request
from .jsonbody import StrictJSONRoute
from .metrics import Metrics
from .problems import NotAvailable, RequestTimeout, problem, problem_body
from .schemas import AnswerRequest, problem_responses
from .sse import EventStreamResponse, Pump, StoppableGenerator, format_event

__all__ = ["ServiceState", "count", "deadline_of", "parse_modes", "router", "source_payload",
           "start_answer", "timeout_error",
           "whole_answer"]

log = logging.getLogger("tether.service")
router = APIRouter(route_class=StrictJSONRoute)  # JSON bodies decoded strictly (jsonbody)

@dataclass
class ServiceState:
    tether: Tether
    settings: Settings
    metrics: Metrics


def state_of(request: Request) -> ServiceState:
    return cast(ServiceState, request.app.state.service)


def parse_modes(mode: str | dict[str, str] | None) -> dict[str, str] | None:
    """``"shadow"`` → every gate in shadow; ``{"figures": "off"}`` → that gate only
    (the others keep the server's setting). A bad gate or mode is the caller's error."""
    if mode is None:
        return None
    try:
        return gates.parse_modes(mode)
    except ConfigError as exc:
        raise InputError(str(exc)) from exc


def source_payload(hits: Sequence[Hit]) -> dict[str, Any]:
    """The ``sources`` event: each passage with the target a citation of it would have.

    No retrieval score: BM25 statistics span the whole index, unreadable documents
    included, so a raw score would carry a trace of them.
    """
    return {
        "passages": [
            {
                "rank": hit.rank,
                "passage_id": hit.passage.passage_id,
                "doc_id": hit.passage.doc_id,
                "version": hit.passage.version,
                "start": hit.passage.start,
                "end": hit.passage.end,
                "text": hit.passage.text,
                "kind": hit.passage.kind,
                "region": hit.passage.region,
                "process": hit.passage.process,
                "flags": list(hit.passage.flags),
                "heading": list(hit.passage.heading),
                "source": hit.document.source,
                "title": hit.document.title,
                "license": hit.document.license,
                "fetched_at": hit.document.fetched_at,
                "media_type": hit.document.media_type,
                "also": list(hit.also),
            }
            for hit in hits
        ]
    }


def deadline_of(request: Request, settings: Settings) -> tuple[float, float]:
    """(monotonic deadline, perf_counter start) of this request."""
    started = float(request.scope.get("state", {}).get("started", time.perf_counter()))
    return request_deadline(request.scope, settings.request_timeout_s), started


def timeout_error(settings: Settings) -> RequestTimeout:
    return RequestTimeout(
        f"the request took longer than {settings.request_timeout_s:g} s and was stopped",
        hint="ask a narrower question or raise request_timeout_s",
    )


async def start_answer(
    service: ServiceState, question: str, *, principals: list[str], deadline: float,
    modes: dict[str, str] | None = None, generator: str | None = None,
) -> tuple[Pump, Sequence[Hit]]:
    """The answer's pump, run up to its ``Sources`` (retrieval), and those hits: a bad
    question fails here, before any response starts, as an ordinary error."""
    tether = service.tether
    pump = Pump(deadline=deadline)

    def begin() -> Iterator[Event]:
        inner = tether.generator(generator) if generator else tether.generator()
        return tether.stream(question, principals=principals, modes=modes,
                             generator=StoppableGenerator(inner, pump.stopping))

    pump.start(await anyio.to_thread.run_sync(begin))
    try:
        first = await pump.next(deadline)
    except (TimeoutError, deadlines.DeadlineExceeded):
        pump.stop()
        raise timeout_error(service.settings) from None
    except BaseException:
        pump.stop()
        raise
    if not isinstance(first, Sources):  # the contract: sources come first
        pump.stop()
        raise TetherError("the answer stream did not start with its sources")
    service.metrics.sources(first.hits)
    return pump, first.hits


_ANSWER_DOC = """Answer a question from the documents the caller may read.

`stream: false` returns the Answer JSON (as `tether ask --json` prints it).
`stream: true` returns `text/event-stream` with, in this order: one `sources` event
(the retrieved passages and their citation targets, before any answer text), one
`sentence` event per verified sentence (an AnswerSentence, sent as soon as it is
verified; never unverified text), and one `done` event (the whole Answer, refusals
included). A failure after the stream started arrives as an `error` event holding
problem details. Closing the connection stops the work for the request."""


@router.post(
    "/v1/answers",
    summary="Answer a question",
    description=_ANSWER_DOC,
    responses={
        200: {
            "description": "The Answer, or its event stream",
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Answer"}},
                "text/event-stream": {"schema": {"type": "string"}},
            },
        },
        **problem_responses(400, 401, 413, 422, 504),
    },
)
async def post_answer(body: AnswerRequest, request: Request) -> Response:
    service = state_of(request)
    settings = service.settings
    principals = list(principals_of(request.scope))
    modes = parse_modes(body.mode)
    deadline, started = deadline_of(request, settings)
    pump, hits = await start_answer(service, body.question, principals=principals, modes=modes,
                                    generator=body.generator, deadline=deadline)
    if not body.stream:
        return await _whole_answer(request, service, pump, deadline)

    async def produce(emit: Any) -> None:
        await emit(format_event("sources", source_payload(hits)))
        service.metrics.to_sources.observe(time.perf_counter() - started)
        done: Done | None = None
        first_sentence = True
        try:
            while (event := await pump.next(deadline)) is not None:
                if isinstance(event, Sentence):
                    await emit(format_event("sentence", to_json(event.sentence)))
                    if first_sentence:
                        service.metrics.to_first_sentence.observe(time.perf_counter() - started)
                        first_sentence = False
                elif isinstance(event, Done):
                    done = event
                    await emit(format_event("done", to_json(event.answer)))
                else:  # a kind this service does not know yet: pass it on as JSON
                    await emit(format_event(event.kind, to_json(event.data)))
        except (TimeoutError, deadlines.DeadlineExceeded):
            pump.stop()
            await emit(format_event("error", problem(timeout_error(settings))[1]))
        except TetherError as exc:
            await emit(format_event("error", problem(exc)[1]))
        except Exception:
            log.exception("answer stream failed")
            await emit(format_event("error", problem_body(500, "internal", "internal error")))
        if done is not None:
            await count(service, done, stream=True)

    return EventStreamResponse(produce, on_close=pump.stop)


async def count(service: ServiceState, done: Done, *, stream: bool) -> None:
    """The served answer in the metrics. Its groundedness comes from the re-check made
    when it was recorded; an answer that was not recorded is re-checked here."""
    service.metrics.answer(done.answer, stream=stream)
    if done.rechecks is not None:
        service.metrics.grounding(done.answer, done.rechecks)
    else:
        await anyio.to_thread.run_sync(
            service.metrics.recheck, done.answer, service.tether.store, service.settings
        )


async def whole_answer(
    request: Request, service: ServiceState, pump: Pump, deadline: float
) -> Done | None:
    """The rest of the answer, counted in the metrics; ``None`` when the client left."""
    events: list[Event] | None = None
    try:
        with anyio.fail_after(max(0.0, deadline - time.monotonic())):
            async with anyio.create_task_group() as group:

                async def watch_disconnect() -> None:
                    # The body is read: the next message is the client leaving.
                    while (await request.receive())["type"] != "http.disconnect":
                        pass
                    pump.stop()
                    group.cancel_scope.cancel()

                group.start_soon(watch_disconnect)
                events = await anyio.to_thread.run_sync(pump.drain, abandon_on_cancel=True)
                group.cancel_scope.cancel()
    except (TimeoutError, deadlines.DeadlineExceeded):
        pump.stop()
        raise timeout_error(service.settings) from None
    if events is None:  # the client left; nobody reads this
        return None
    done = next((e for e in events if isinstance(e, Done)), None)
    if done is None:
        raise TetherError("the answer stream ended without an answer")
    await count(service, done, stream=False)
    return done


async def _whole_answer(
    request: Request, service: ServiceState, pump: Pump, deadline: float
) -> Response:
    done = await whole_answer(request, service, pump, deadline)
    if done is None:
        return Response(status_code=499)
    return JSONResponse(to_json(done.answer))


@router.post(
    "/v1/verify",
    summary="Check sentences against passages (the guard on its own)",
    description="Same contract as `tether verify`: per-sentence outcome, passage, span and quote. "
    "At most `max_verify_pairs` sentences x passages (413 beyond).",
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/VerifyRequest"}}}}},
    responses={
        200: {"description": "One verdict per sentence",
              "content": {"application/json": {"schema": {"$ref": "#/components/schemas/VerifyOut"}}}},
        **problem_responses(400, 401, 408, 413, 422, 429, 504),
    },
)
async def post_verify(request: Request) -> JSONResponse:
    service = state_of(request)
    deadline, _ = deadline_of(request, service.settings)
    raw = await request.body()
    try:
        # Decoded, bounded and verified in a child process killed at the deadline
        # (isolate): neither the decoding of a large body nor the guard's loop may hold
        # the interpreter lock that the event loop and every other request need.
        kind, result = await run_isolated(verify_request, raw, service.settings,
                                          deadline=deadline)
    except deadlines.DeadlineExceeded:
        raise timeout_error(service.settings) from None
    if kind == "invalid":
        raise RequestValidationError(result)
    return JSONResponse({"sentences": result})


@router.post(
    "/v1/citations/resolve",
    summary="Resolve a stored citation against today's store",
    description="Same contract as `tether resolve`: the body is one citation as `ask --json` "
    "prints it. A citation of a document the caller cannot read resolves as if the "
    "document did not exist.",
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/Citation"}}}}},
    responses={200: {"description": "The resolution (status exact | relocated | changed | missing)",
                     "content": {"application/json": {"schema": {"type": "object"}}}},
               **problem_responses(400, 401, 413, 422, 501)},
)
async def post_resolve(citation: dict[str, Any], request: Request) -> JSONResponse:
    service = state_of(request)
    resolve = getattr(service.tether, "resolve", None)
    if resolve is None:
        raise NotAvailable("citation resolution is not available in this build")
    principals = list(principals_of(request.scope))
    result = await anyio.to_thread.run_sync(lambda: resolve(citation, principals=principals))
    return JSONResponse(to_json(result))
