"""``POST /v1/chat/completions`` and ``GET /v1/models``: Tether behind OpenAI's chat API,
for the chat front ends and clients that speak it (Open WebUI, the ``openai`` library).

The reply is Tether's verified answer to the last user message, nothing else: each
sentence ends with numbered markers (``[1]``), the content closes with the numbered
sources, and the message carries them as data (``citations``: source, title, range,
quote and the whole citation record). A refusal is an ordinary assistant message that
gives the reason (``finish_reason: "stop"``). Earlier messages are not sent to any
model: an answer stands on the documents alone. ``model`` is taken as given.
``stream: true`` sends OpenAI's ``chat.completion.chunk`` events, one per verified
sentence as the guard passes it, and ends with ``data: [DONE]``.

Errors on these routes take OpenAI's shape (``{"error": {"message", "type", "param",
"code"}}``), whichever layer raised them (``OpenAIErrorShape`` rewrites the service's
problem details on the way out), with the same statuses as the rest of the service.
Access is the service's: the caller's key (or ``public`` on a keyless server) and the
cross-site rules of ADR 0045.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import deadline as deadlines
from ..errors import InputError, TetherError
from ..ops.footnotes import Footnotes, answer_text, refusal_text
from ..pipeline import Done, Sentence
from ..records import Answer
from .answers import deadline_of, count, start_answer, state_of, timeout_error, whole_answer
from .auth import principals_of
from .jsonbody import StrictJSONRoute
from .problems import PROBLEM_JSON, problem, problem_body
from .sse import EventStreamResponse

__all__ = ["CHAT_PATHS", "MODEL_ID", "OpenAIErrorShape", "router"]

log = logging.getLogger("tether.service")
router = APIRouter(route_class=StrictJSONRoute)  # surrogates, deep nesting: 400 (jsonbody)
MODEL_ID = "tether"
CHAT_PATHS = frozenset({"/v1/chat/completions", "/v1/models"})
# OpenAI's error ``type`` for each status the service answers; 5xx are ``api_error``.
ERROR_TYPES = {
    400: "invalid_request_error", 404: "invalid_request_error", 409: "invalid_request_error",
    413: "invalid_request_error", 415: "invalid_request_error", 422: "invalid_request_error",
    401: "authentication_error", 403: "permission_error", 421: "permission_error",
    408: "timeout", 429: "rate_limit_error", 504: "timeout",
}


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")  # image parts and the like: not text, skipped

    type: StrictStr
    text: StrictStr | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")  # name, tool_calls…: accepted, unused

    role: StrictStr
    content: StrictStr | list[ContentPart] | None = None


class ChatRequest(BaseModel):
    """OpenAI's chat request; sampling options (temperature, max_tokens…) are accepted
    and ignored: the answer is chosen by verification, not sampled."""

    model_config = ConfigDict(extra="allow")

    model: StrictStr = Field(description="Any model name; echoed back (`GET /v1/models` lists `tether`).")
    messages: list[ChatMessage] = Field(min_length=1, description="The last `user` message is the question.")
    stream: StrictBool = Field(False, description="true: `chat.completion.chunk` events, then `[DONE]`.")


class OpenAIError(BaseModel):
    """OpenAI's error body."""

    error: dict[str, Any] = Field(description="`message`, `type`, `param` and `code` (the problem's slug).")


def question_of(messages: list[ChatMessage]) -> str:
    """The text of the last ``user`` message (text parts joined); earlier turns are not read."""
    for message in reversed(messages):
        if message.role != "user":
            continue
        if isinstance(message.content, list):
            return "\n".join(part.text for part in message.content if part.type == "text" and part.text)
        return message.content or ""
    raise InputError("the conversation has no user message", hint='add {"role": "user", "content": QUESTION}')


def _message(answer: Answer) -> dict[str, Any]:
    notes = Footnotes()
    content = answer_text(answer, notes)
    return {"role": "assistant", "content": content, "refusal": None,
            "citations": notes.sources_json(), "tether": _outcome(answer)}


def _outcome(answer: Answer) -> dict[str, Any]:
    """What a client may want beside the text: whether Tether refused, why, the trace."""
    return {"refused": answer.refused, "refusal_reason": answer.refusal_reason,
            "refusal_layer": answer.refusal_layer, "trace_id": answer.trace_id}


def _chunk(answer_id: str, model: str, created: int, delta: dict[str, Any],
           finish: str | None = None) -> bytes:
    body = {"id": answer_id, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
    return b"data: " + json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def _error_chunk(exc: TetherError | None) -> bytes:
    body = problem(exc)[1] if exc is not None else problem_body(500, "internal", "internal error")
    return b"data: " + json.dumps(openai_error(body), ensure_ascii=False).encode() + b"\n\n"


_CHAT_DOC = """OpenAI's chat completions, answered by Tether: the reply is the verified answer to the
last user message with [n] markers, the numbered sources after it and `message.citations`
(source, title, range, quote, the citation record); a refusal is an assistant message
giving the reason. `stream: true` sends `chat.completion.chunk` events (one per verified
sentence) and `data: [DONE]`. Errors have OpenAI's shape."""


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    schema = {"$ref": "#/components/schemas/OpenAIError"}
    return {code: {"description": "OpenAI's error shape", "content": {"application/json": {"schema": schema}}}
            for code in codes}


@router.post(
    "/v1/chat/completions",
    summary="Chat completions (OpenAI-compatible): the verified answer to the last user message",
    description=_CHAT_DOC,
    tags=["openai"],
    responses={200: {"description": "A `chat.completion`, or its chunks as server-sent events",
                     "content": {"application/json": {"schema": {"type": "object"}},
                                 "text/event-stream": {"schema": {"type": "string"}}}},
               **_errors(400, 401, 403, 413, 421, 422, 504)},
)
async def post_chat(body: ChatRequest, request: Request) -> Response:
    service = state_of(request)
    principals = list(principals_of(request.scope))
    deadline, _ = deadline_of(request, service.settings)
    pump, _ = await start_answer(service, question_of(body.messages), principals=principals,
                                 deadline=deadline)
    created = int(time.time())
    if not body.stream:
        done = await whole_answer(request, service, pump, deadline)
        if done is None:
            return Response(status_code=499)
        answer = done.answer
        return JSONResponse({
            "id": f"chatcmpl-{answer.trace_id}", "object": "chat.completion", "created": created,
            "model": body.model, "choices": [{"index": 0, "message": _message(answer),
                                              "logprobs": None, "finish_reason": "stop"}],
            "usage": None,
        })

    answer_id = f"chatcmpl-{uuid.uuid4().hex}"  # the answer's trace id comes only at its end

    async def produce(emit: Any) -> None:
        await emit(_chunk(answer_id, body.model, created, {"role": "assistant", "content": ""}))
        notes, shown, done = Footnotes(), 0, None
        try:
            while (event := await pump.next(deadline)) is not None:
                if isinstance(event, Sentence):
                    text = ("" if not shown else " ") + notes.mark(event.sentence)
                    shown += 1
                    await emit(_chunk(answer_id, body.model, created, {"content": text}))
                elif isinstance(event, Done):
                    done = event
                    await emit(_closing(answer_id, body.model, created, event.answer, notes, shown))
        except (TimeoutError, deadlines.DeadlineExceeded):
            pump.stop()
            await emit(_error_chunk(timeout_error(service.settings)))
        except TetherError as exc:
            await emit(_error_chunk(exc))
        except Exception:
            log.exception("chat stream failed")
            await emit(_error_chunk(None))
        await emit(b"data: [DONE]\n\n")
        if done is not None:
            await count(service, done, stream=True)

    return EventStreamResponse(produce, on_close=pump.stop)


def _closing(answer_id: str, model: str, created: int, answer: Answer, notes: Footnotes,
             shown: int) -> bytes:
    """The last chunk: the sources (or the refusal and its reason), ``finish_reason: stop``."""
    if answer.refused:
        text = ("\n\n" if shown else "") + refusal_text(answer)
    else:
        text = "\n\n" + notes.sources_text()
    delta = {"content": text, "citations": notes.sources_json(), "tether": _outcome(answer)}
    return _chunk(answer_id, model, created, delta, finish="stop")


@router.get(
    "/v1/models",
    summary="Models (OpenAI-compatible): the one model, `tether`",
    tags=["openai"],
    responses={200: {"description": "OpenAI's model list",
                     "content": {"application/json": {"schema": {"type": "object"}}}},
               **_errors(401, 403, 421)},
)
async def get_models() -> JSONResponse:
    return JSONResponse({"object": "list", "data": [
        {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "tether"}]})


def openai_error(problem_json: dict[str, Any]) -> dict[str, Any]:
    """A problem-details body in OpenAI's error shape."""
    status = int(problem_json.get("status") or 500)
    slug = str(problem_json.get("type", "")).rpartition(":")[2] or None
    message = str(problem_json.get("detail") or problem_json.get("title") or "error")
    if problem_json.get("hint"):
        message += f" ({problem_json['hint']})"
    errors = problem_json.get("errors") or []
    where = [p for p in errors[0].get("loc", []) if p != "body"] if errors else []
    return {"error": {"message": message,
                      "type": ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error"),
                      "param": ".".join(str(p) for p in where) or None, "code": slug}}


class OpenAIErrorShape:
    """Pure ASGI, outside every other layer: on ``CHAT_PATHS`` a problem+json response,
    from whichever layer, goes out in OpenAI's error shape (same status and headers)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in CHAT_PATHS:
            await self.app(scope, receive, send)
            return
        held: Message | None = None
        parts: list[bytes] = []

        async def reshape(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", ()))
                if headers.get(b"content-type", b"").startswith(PROBLEM_JSON.encode()):
                    held = message  # sent with the rewritten body
                    return
            elif message["type"] == "http.response.body" and held is not None:
                parts.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                await _send_reshaped(send, held, b"".join(parts))
                return
            await send(message)

        await self.app(scope, receive, reshape)


async def _send_reshaped(send: Send, start: Message, raw: bytes) -> None:
    try:
        body = json.dumps(openai_error(json.loads(raw)), ensure_ascii=False).encode("utf-8")
    except ValueError:
        body = raw  # not the JSON it claimed to be: passed on unchanged
    headers = [(k, v) for k, v in start.get("headers", ()) if k not in (b"content-type", b"content-length")]
    headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({**start, "headers": headers})
    await send({"type": "http.response.body", "body": body})
