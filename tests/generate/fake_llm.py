"""A model server on 127.0.0.1 that speaks the OpenAI and Anthropic wire formats.

The real SDK clients talk to it over HTTP/1.1, so their request building, retry,
SSE decoding and error mapping all run. Streams are sent with chunked transfer
encoding, one SSE frame per chunk, exactly in the order the services send them:

- OpenAI ``POST /v1/chat/completions`` with ``stream: true``: ``data: {chunk}`` frames
  (``object: chat.completion.chunk``; the first delta carries the role, the last one
  an empty delta with ``finish_reason``), then ``data: [DONE]``.
- Anthropic ``POST /v1/messages`` with ``stream: true``: ``message_start``,
  ``content_block_start``, ``ping``, ``content_block_delta`` (``text_delta``) …,
  ``content_block_stop``, ``message_delta`` (``stop_reason``), ``message_stop``.
  With citations (``anthropic_cited_stream``) the reply is several text blocks, as the
  API splits it: a cited block starts with ``citations: []`` and carries one
  ``citations_delta`` per ``char_location`` citation before its ``text_delta``s; an
  uncited block has no ``citations``. ``anthropic_cited_message`` is the same reply
  unstreamed: text blocks, each cited one with its ``citations`` list.

Each request takes the next ``Reply`` from the queue (the last one repeats), so a
test can script "429, 429, then an answer". Run as a script it serves one fixed
answer until interrupted (used for the acceptance run and the benchmark)::

    python tests/generate/fake_llm.py --answer "Acetone is flammable. [1]" --rate 50
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeLLMServer",
    "Reply",
    "Request",
    "anthropic_cited_message",
    "anthropic_cited_stream",
    "anthropic_error",
    "anthropic_message",
    "char_citation",
    "anthropic_stream",
    "openai_completion",
    "openai_error",
    "openai_stream",
    "stream_for",
    "tokens",
]

_TOKEN = re.compile(r"\s*(?:\[\d+(?:,\s*\d+)*\]|\d+|[^\W\d_]{1,4}|\S)")


def tokens(text: str) -> list[str]:
    """Cut text the way a tokenizer might: short word pieces, digits apart from points."""
    out = [m.group(0) for m in _TOKEN.finditer(text)]
    assert "".join(out) == text.rstrip() or "".join(out) == text, "tokens must rejoin"
    return out


def _sse(data: Any, event: str | None = None) -> bytes:
    body = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {body}\n\n".encode()


def openai_stream(
    pieces: Iterable[str], *, model: str = "any", finish: str | None = "stop", done: bool = True
) -> list[bytes]:
    """The frames of a streamed chat completion (``finish=None``: no finish chunk)."""
    base = {
        "id": "chatcmpl-test0001",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
        "system_fingerprint": "fp_test",
    }

    def chunk(delta: dict[str, Any], reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}
        return _sse({**base, "choices": [choice]})

    frames = [chunk({"role": "assistant", "content": "", "refusal": None})]
    frames += [chunk({"content": piece}) for piece in pieces]
    if finish:
        frames.append(chunk({}, finish))
    if done:
        frames.append(_sse("[DONE]"))
    return frames


def anthropic_stream(
    pieces: Iterable[str],
    *,
    model: str = "any",
    stop_reason: str | None = "end_turn",
    stop: bool = True,
) -> list[bytes]:
    """The frames of a streamed Messages API response."""
    message: dict[str, Any] = {
        "id": "msg_test0001",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": model,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 1},
    }
    frames = [
        _sse({"type": "message_start", "message": message}, "message_start"),
        _sse(
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            "content_block_start",
        ),
        _sse({"type": "ping"}, "ping"),
    ]
    pieces = list(pieces)
    for piece in pieces:
        delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}
        frames.append(_sse(delta, "content_block_delta"))
    if stop:
        frames.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        frames.append(
            _sse(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": len(pieces)},
                },
                "message_delta",
            )
        )
        frames.append(_sse({"type": "message_stop"}, "message_stop"))
    return frames


# One text block of a cited reply: its text and its char_location citations (none: uncited).
Block = tuple[str, list[dict[str, Any]]]


def char_citation(
    cited_text: str, document_index: int, start: int, end: int, *, title: str | None = None
) -> dict[str, Any]:
    """A ``char_location`` citation as the Messages API writes it."""
    return {
        "type": "char_location",
        "cited_text": cited_text,
        "document_index": document_index,
        "document_title": title,
        "start_char_index": start,
        "end_char_index": end,
    }


def anthropic_cited_stream(
    blocks: Iterable[Block], *, model: str = "any", stop_reason: str = "end_turn"
) -> list[bytes]:
    """The frames of a streamed reply to documents sent with citations enabled."""
    message = {
        "id": "msg_test0003", "type": "message", "role": "assistant", "content": [], "model": model,
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 600, "output_tokens": 1},
    }
    frames = [_sse({"type": "message_start", "message": message}, "message_start")]
    for index, (text, citations) in enumerate(blocks):
        block: dict[str, Any] = {"type": "text", "text": ""}
        if citations:
            block["citations"] = []
        frames.append(_sse({"type": "content_block_start", "index": index, "content_block": block},
                           "content_block_start"))
        if index == 0:
            frames.append(_sse({"type": "ping"}, "ping"))
        deltas = [{"type": "citations_delta", "citation": c} for c in citations]
        deltas += [{"type": "text_delta", "text": piece} for piece in re.findall(r"\S+\s*|\s+", text)]
        frames += [_sse({"type": "content_block_delta", "index": index, "delta": d}, "content_block_delta")
                   for d in deltas]
        frames.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    frames.append(_sse({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                        "usage": {"output_tokens": 40}}, "message_delta"))
    frames.append(_sse({"type": "message_stop"}, "message_stop"))
    return frames


def anthropic_cited_message(blocks: Iterable[Block], *, model: str = "any") -> Reply:
    """The same reply unstreamed: one text block per block, cited ones with ``citations``."""
    content = [{"type": "text", "text": text, **({"citations": citations} if citations else {})}
               for text, citations in blocks]
    body = {
        "id": "msg_test0004", "type": "message", "role": "assistant", "content": content,
        "model": model, "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 600, "output_tokens": 40},
    }
    return Reply(body=json.dumps(body).encode())


def openai_error(status: int, message: str) -> Reply:
    kinds = {429: "rate_limit_exceeded", 401: "invalid_request_error", 404: "invalid_request_error"}
    body = {"error": {"message": message, "type": kinds.get(status, "server_error"), "param": None, "code": None}}
    return Reply(status=status, body=json.dumps(body).encode(), headers={"retry-after-ms": "5"})


def anthropic_error(status: int, message: str) -> Reply:
    kinds = {
        400: "invalid_request_error",
        401: "authentication_error",
        404: "not_found_error",
        429: "rate_limit_error",
        529: "overloaded_error",
    }
    body = {"type": "error", "error": {"type": kinds.get(status, "api_error"), "message": message}}
    return Reply(
        status=status,
        body=json.dumps(body).encode(),
        headers={"retry-after-ms": "5", "request-id": "req_test0001"},
    )


def openai_completion(text: str, *, model: str = "any") -> Reply:
    body = {
        "id": "chatcmpl-test0002",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }
    return Reply(body=json.dumps(body).encode())


def anthropic_message(text: str, *, model: str = "any") -> Reply:
    body = {
        "id": "msg_test0002",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "model": model,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 10},
    }
    return Reply(body=json.dumps(body).encode())


def stream_for(provider: str, pieces: Iterable[str], **options: Any) -> Reply:
    frames = (openai_stream if provider == "openai" else anthropic_stream)(pieces, **options)
    return Reply(frames=frames)


@dataclass
class Reply:
    """One scripted response.

    ``frames`` makes it a stream (chunked, ``text/event-stream``); otherwise ``body``
    is sent as JSON. ``delay`` waits before the status line; ``gap`` between frames;
    ``stall_after`` frames sent, the server goes silent for ``stall`` seconds, or until
    ``gate`` is set when there is one; ``cut`` drops the connection after the frames
    without ending the chunked body.
    """

    status: int = 200
    body: bytes = b""
    frames: list[bytes] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    gap: float = 0.0
    stall_after: int | None = None
    stall: float = 0.0
    gate: threading.Event | None = None
    cut: bool = False


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up (a timeout test) is expected, not news


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    json: Any


class FakeLLMServer:
    """``with FakeLLMServer(reply, ...) as server:`` then point a client at ``server.url``."""

    def __init__(self, *replies: Reply | Callable[[Request], Reply]) -> None:
        self.replies: list[Reply | Callable[[Request], Reply]] = list(replies)
        self.requests: list[Request] = []
        self.frame_times: list[float] = []  # perf_counter when each stream frame was sent
        self.aborted = threading.Event()  # set when a client hung up mid-stream
        self._released = threading.Event()
        self._lock = threading.Lock()
        self._served = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    payload = json.loads(raw) if raw else None
                except ValueError:
                    payload = None
                request = Request("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, payload)
                server._answer(self, request)

        self._http = _QuietServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._http.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._released.set()
        self._http.shutdown()
        self._http.server_close()

    def _next(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            index = min(self._served, len(self.replies) - 1)
            self._served += 1
            reply = self.replies[index]
        return reply(request) if callable(reply) else reply

    def _answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        reply = self._next(request)
        if reply.delay and self._released.wait(reply.delay):
            return
        try:
            handler.send_response(reply.status)
            for key, value in reply.headers.items():
                handler.send_header(key, value)
            if reply.frames is None:
                handler.send_header("content-type", "application/json")
                handler.send_header("content-length", str(len(reply.body)))
                handler.end_headers()
                handler.wfile.write(reply.body)
                handler.wfile.flush()
                return
            handler.send_header("content-type", "text/event-stream; charset=utf-8")
            handler.send_header("cache-control", "no-cache")
            handler.send_header("transfer-encoding", "chunked")
            handler.end_headers()
            for n, frame in enumerate(reply.frames):
                if n and reply.gap and self._released.wait(reply.gap):
                    return
                if reply.stall_after is not None and n == reply.stall_after:
                    if reply.gate is not None:
                        reply.gate.wait(reply.stall)
                    elif self._released.wait(reply.stall):
                        return
                handler.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
                handler.wfile.flush()
                self.frame_times.append(time.perf_counter())
            if reply.cut:
                handler.close_connection = True
                handler.connection.shutdown(socket.SHUT_RDWR)
                return
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            handler.close_connection = True  # the client went away: nothing to finish
            self.aborted.set()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answer", required=True, help="the text the model 'writes'")
    parser.add_argument("--provider", choices=("openai", "anthropic"), default="openai")
    parser.add_argument("--rate", type=float, default=0.0, help="tokens per second (0: at once)")
    args = parser.parse_args()
    gap = 1 / args.rate if args.rate else 0.0
    with FakeLLMServer(Reply(frames=stream_for(args.provider, tokens(args.answer)).frames, gap=gap)) as server:
        suffix = "/v1" if args.provider == "openai" else ""
        print(f"serving {args.provider} at {server.url}{suffix}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
