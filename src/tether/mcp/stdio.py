"""The stdio transport, with an answer for every line: the SDK's own stdio loop drops a
line it cannot read (an unpaired surrogate escape, nesting past its parser's depth,
a message that is no JSON-RPC) without a reply, and the client then waits for ever.
Here such a line gets a JSON-RPC error (-32700 parse error, -32600 invalid request)
carrying the request's id where its top level names one, and the server reads on.
"""

from __future__ import annotations

import json
import re
from types import TracebackType
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

__all__ = ["AnswerUnreadable", "run_stdio", "top_level_id"]

_ID_VALUE = re.compile(r'\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.){0,256}")')
MAX_DETAIL = 200


def _string_end(line: str, start: int) -> int:
    """The index after the JSON string that opens at ``start``."""
    at = start + 1
    while at < len(line):
        if line[at] == "\\":
            at += 2
        elif line[at] == '"':
            return at + 1
        else:
            at += 1
    return len(line)


def top_level_id(line: str) -> int | str | None:
    """The ``id`` member of the line's outermost object, found without parsing the rest
    (which may be what could not be parsed); ``None`` when there is none to find.

    >>> top_level_id('{"jsonrpc": "2.0", "params": {"id": 9, "q": [[["x"]]]}, "id": 7}')
    7
    >>> top_level_id('{"id": "a\\\\ud800"}') is None
    True
    """
    depth, at = 0, 0
    while at < len(line):
        char = line[at]
        if char == '"':
            end = _string_end(line, at)
            found = _ID_VALUE.match(line, end) if depth == 1 and line[at:end] == '"id"' else None
            if found is not None:
                return _usable_id(json.loads(found.group(1)))
            at = end
            continue
        depth += (char in "{[") - (char in "}]")
        at += 1
    return None


def _usable_id(value: Any) -> int | str | None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None  # an id the reply could not carry
    return value if isinstance(value, int | str) else None


def error_for(exc: Exception) -> JSONRPCError:
    """The JSON-RPC error answering a line the transport could not read."""
    line, code, detail = None, INVALID_REQUEST, " ".join(str(exc).split())
    if isinstance(exc, ValidationError) and exc.errors():
        first = exc.errors()[0]
        code = PARSE_ERROR if first.get("type") == "json_invalid" else INVALID_REQUEST
        detail = str(first.get("msg", detail))
        line = first.get("input") if isinstance(first.get("input"), str) else None
    kind = "not JSON" if code == PARSE_ERROR else "not a JSON-RPC message"
    return JSONRPCError(
        jsonrpc="2.0", id=top_level_id(line) if line is not None else None,
        error=ErrorData(code=code, message=f"the message is {kind}: {detail[:MAX_DETAIL]}"),
    )


class AnswerUnreadable:
    """The transport's read stream, answering each unreadable line instead of passing
    the error on (where the SDK would drop it)."""

    def __init__(self, inner: Any, write: Any) -> None:
        self.inner = inner
        self.write = write

    @property
    def last_context(self) -> Any:  # the sender's context, as the SDK's streams keep it
        return getattr(self.inner, "last_context", None)

    async def receive(self) -> SessionMessage:
        while True:
            item = await self.inner.receive()
            if not isinstance(item, Exception):
                return item  # type: ignore[no-any-return]
            await self.write.send(SessionMessage(error_for(item)))

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self) -> AnswerUnreadable:
        return self

    async def __anext__(self) -> SessionMessage:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError) as exc:
            raise StopAsyncIteration from exc

    async def __aenter__(self) -> AnswerUnreadable:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


async def run_stdio(server: MCPServer) -> None:
    """``server.run_stdio_async`` with ``AnswerUnreadable`` on the read side. The SDK
    offers no hook for this, so the low-level server is driven as that method does."""
    lowlevel = server._lowlevel_server  # noqa: SLF001 - pinned SDK major version (pyproject)
    async with stdio_server() as (read, write):
        await lowlevel.run(AnswerUnreadable(read, write), write,
                           lowlevel.create_initialization_options())
