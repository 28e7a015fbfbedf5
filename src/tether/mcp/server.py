"""The MCP server: Tether's answers, verdicts, citations and documents as MCP tools and
resources, built on the official SDK (``mcp``) and served over stdio or streamable HTTP.

Tools (all read-only): ``ask`` (a verified answer with numbered citations, or a refusal
and its reason; each verified sentence is also sent as a progress notification the
moment the guard passes it), ``verify`` (sentences x passages → verdicts), ``resolve``
(a stored citation → where it points today) and ``search`` (the passages retrieval
ranks first). Resources: ``tether://documents`` (the documents the caller may read)
and ``tether://documents/{doc_id}`` (a document's current text; ``?start=&end=`` for a
cited range, ``&version=`` for the version a citation names).

Everything goes through the ``Tether`` facade as one caller (``access``). Bad input is
a tool result with ``isError`` (a tool) or a JSON-RPC error (a resource), one line
each; the server keeps serving.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ..deadline import DeadlineExceeded, until
from ..errors import InputError, LimitExceeded, TetherError
from ..facade import Tether, verify_answer
from ..ops.footnotes import Footnotes, answer_text
from ..pipeline import Done, Event, Sentence
from ..records import Hit, to_json
from ..text.sentences import split_sentences
from .access import Caller

__all__ = ["DOCUMENTS_URI", "build_server"]

DOCUMENTS_URI = "tether://documents"
DOCUMENT_TEMPLATE = DOCUMENTS_URI + "/{doc_id}{?version,start,end}"
MAX_SEARCH_HITS = 50
_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
INSTRUCTIONS = (
    "Tether answers questions from a document collection. Every sentence it returns is "
    "tied to the exact passage that supports it, or it is not returned. Quote its "
    "answers with their [n] markers and sources; when it refuses, say so and give its "
    "reason rather than answering from elsewhere."
)


def _version() -> str:
    try:
        return version("tether")
    except PackageNotFoundError:
        return "0+unknown"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


@contextmanager
def tool_errors() -> Iterator[None]:
    """Tether's own errors (bad input, a limit, a refused key) as the tool's error result."""
    try:
        yield
    except TetherError as exc:
        raise ToolError(_one_line(exc)) from exc


def _text_size(*texts: str) -> int:
    return sum(len(text.encode("utf-8", "surrogatepass")) for text in texts)


def _check_text(where: str, text: str) -> None:
    """Strings a client sent: an unpaired surrogate is no text any store or reply can carry."""
    if any("\ud800" <= c <= "\udfff" for c in text):
        raise InputError(f"{where} is not valid text (an unpaired surrogate)",
                         hint="send UTF-8 text")


def _hit_json(hit: Hit) -> dict[str, Any]:
    """A retrieved passage with the range a citation of it would have (no score: BM25
    statistics span unreadable documents too)."""
    p, d = hit.passage, hit.document
    return {"rank": hit.rank, "doc_id": p.doc_id, "version": p.version, "start": p.start,
            "end": p.end, "text": p.text, "heading": list(p.heading), "source": d.source,
            "title": d.title, "license": d.license,
            "uri": f"{DOCUMENTS_URI}/{p.doc_id}?version={p.version}&start={p.start}&end={p.end}"}


def _result(text: str, data: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


async def _stepped(events: Iterator[Event], deadline: float) -> AsyncIterator[Event]:
    """The core's events one worker-thread step at a time, each under the deadline, so
    the event loop keeps serving while the guard works."""

    def step() -> Event | None:
        with until(deadline):
            return next(events, None)

    try:
        while (event := await anyio.to_thread.run_sync(step)) is not None:
            yield event
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            await anyio.to_thread.run_sync(close)


class Tools:
    """The tools and resources of one server, acting as ``caller`` on ``tether``."""

    def __init__(self, tether: Tether, caller: Caller) -> None:
        self.tether = tether
        self.caller = caller
        self.settings = tether.settings

    def _deadline(self) -> float:
        return time.monotonic() + self.settings.request_timeout_s

    async def ask(
        self,
        question: Annotated[str, Field(description="The question, in the documents' words where possible.")],
        ctx: Context,
    ) -> CallToolResult:
        """Answer a question from the documents. Every sentence carries [n] markers for the
        sources it quotes (listed after the answer and in `citations`); when nothing in
        the documents supports an answer, the reply says so and why (`refused`)."""
        with tool_errors():
            _check_text("question", question)
            principals = list(self.caller.principals())
            events = self.tether.stream(question, principals=principals)
            answer, notes, shown = None, Footnotes(), 0
            try:
                async for event in _stepped(events, self._deadline()):
                    if isinstance(event, Sentence):
                        shown += 1  # each verified sentence, as soon as it passed
                        await ctx.report_progress(shown, None, notes.mark(event.sentence))
                    elif isinstance(event, Done):
                        answer = event.answer
            except DeadlineExceeded:
                raise LimitExceeded(f"the answer took longer than {self.settings.request_timeout_s:g} s "
                                    "and was stopped", hint="ask a narrower question") from None
            if answer is None:
                raise TetherError("the answer stream ended without an answer")
            final = Footnotes()
            text = answer_text(answer, final)
            return _result(text, {
                "answer": text, "refused": answer.refused, "refusal_reason": answer.refusal_reason,
                "sentences": [{"text": s.text, "sources": final.numbers(s)} for s in answer.sentences],
                "citations": final.sources_json(), "trace_id": answer.trace_id,
            })

    async def verify(
        self,
        passages: Annotated[dict[str, str], Field(description="Passage id → passage text.")],
        sentences: Annotated[list[str] | None, Field(description="Sentences to check.")] = None,
        answer: Annotated[str | None, Field(description="Free text, split into sentences (instead of `sentences`).")] = None,
    ) -> CallToolResult:
        """Check sentences against passages you give (the guard on its own): per sentence the
        outcome (supported, contradicted, mentioned, unsupported), the passage and the
        exact span that supports it."""
        with tool_errors():
            items = self._verify_items(passages, sentences, answer)
            rows = await anyio.to_thread.run_sync(lambda: self._verify(passages, items))
            lines = [f"{row['outcome']}: {row['text']}" for row in rows]
            return _result("\n".join(lines) or "no sentences", {"sentences": rows})

    def _verify_items(self, passages: Mapping[str, str], sentences: list[str] | None,
                      answer: str | None) -> list[str]:
        """The sentences to check, after the service's bounds: ``max_request_bytes`` of
        text in all, ``max_verify_pairs`` sentences x passages."""
        if (sentences is None) == (answer is None):
            raise InputError("give 'sentences' (a list) or 'answer' (free text), exactly one")
        texts = [*passages.keys(), *passages.values(), *(sentences or []), answer or ""]
        size = _text_size(*texts)
        if size > self.settings.max_request_bytes:
            raise LimitExceeded(f"{size} bytes of text is over the limit of "
                                f"{self.settings.max_request_bytes} (max_request_bytes)",
                                hint="send fewer or shorter passages")
        for where, text in [("a passage id", k) for k in passages] + [("a text", t) for t in texts]:
            _check_text(where, text)
        items = list(sentences) if sentences is not None else split_sentences(answer or "")
        pairs = len(items) * len(passages)
        if pairs > self.settings.max_verify_pairs:
            raise LimitExceeded(f"{len(items)} sentences x {len(passages)} passages is over the "
                                f"max_verify_pairs limit of {self.settings.max_verify_pairs}")
        return items

    def _verify(self, passages: Mapping[str, str], items: list[str]) -> list[dict[str, Any]]:
        with until(self._deadline()):
            return verify_answer(passages=passages, sentences=items, settings=self.settings,
                                 judge=self.tether.judge())

    async def resolve(
        self,
        citation: Annotated[dict[str, Any], Field(description="A citation record as `ask` gave it (`citations[].citation`) "
                                                              "or `tether ask --json` prints it.")],
    ) -> CallToolResult:
        """Where a stored citation points today: exact, relocated (same text elsewhere),
        changed or missing, with today's range and text."""
        with tool_errors():
            principals = list(self.caller.principals())
            found = await anyio.to_thread.run_sync(
                lambda: self.tether.resolve(citation, principals=principals))
            data = to_json(found)
            return _result(f"{found.status}: {found.note}" + (f" “{found.quote}”" if found.quote else ""), data)

    async def search(
        self,
        query: Annotated[str, Field(description="What to look for.")],
        k: Annotated[int, Field(ge=1, le=MAX_SEARCH_HITS, description="How many passages.")] = 8,
    ) -> CallToolResult:
        """The passages retrieval ranks first for a query (no answer, no verification), each
        with its document and the exact range to cite or read."""
        with tool_errors():
            _check_text("query", query)
            principals = list(self.caller.principals())
            hits = await anyio.to_thread.run_sync(
                lambda: self.tether.search(query, principals=principals, k=k))
            rows = [_hit_json(hit) for hit in hits]
            text = "\n\n".join(f"{n}. {r['title']} — {r['uri']}\n{r['text']}"
                                 for n, r in enumerate(rows, start=1))
            return _result(text or "no passages found", {"passages": rows})

    # -- resources ---------------------------------------------------------------

    def _principals_for_resource(self) -> list[str]:
        try:
            return list(self.caller.principals())
        except TetherError as exc:
            raise MCPError(code=INVALID_PARAMS, message=_one_line(exc)) from exc

    async def document_list(self) -> str:
        """The documents this server may read: id, title, source, current version."""
        principals = self._principals_for_resource()
        found = await anyio.to_thread.run_sync(lambda: self.tether.documents(principals=principals))
        rows = [{"uri": f"{DOCUMENTS_URI}/{e.document.doc_id}", "doc_id": e.document.doc_id,
                 "title": e.document.title, "source": e.document.source,
                 "version": e.current_version} for e in found]
        return json.dumps({"documents": rows}, ensure_ascii=False)

    async def document(self, doc_id: str, version: str | None = None,
                       start: str | None = None, end: str | None = None) -> str:
        """A document's text (its current version, or ``version``); ``start``/``end``
        (characters) for the range a citation names."""
        principals = self._principals_for_resource()
        found = await anyio.to_thread.run_sync(
            lambda: self.tether.read(doc_id, version=version or None, principals=principals))
        if found is None:
            raise ResourceNotFoundError("no such document")  # unreadable looks the same
        text = found[1].text
        lo, hi = _bounds(start, 0), _bounds(end, len(text))
        if not 0 <= lo <= hi <= len(text):
            raise MCPError(code=INVALID_PARAMS,
                           message=f"the range {lo}–{hi} is not within the text (0–{len(text)})")
        return text[lo:hi]


def _bounds(value: str | None, default: int) -> int:
    if value is None or value == "":
        return default
    if not value.isascii() or not value.isdigit() or len(value) > 12:
        raise MCPError(code=INVALID_PARAMS, message=f"not a character offset: {value[:40]!r}")
    return int(value)


# Pydantic's pointer to its docs, which the SDK leaves in a rejected argument's message.
# (?<!\s): a match starts where its whitespace run starts, so a long run is read once,
# not once per position.
_DOCS_LINE = re.compile(r"(?<!\s)\s*For further information visit \S+")


def one_line(text: str) -> str:
    """An error message on one line (the SDK's argument errors span several).

    >>> one_line("1 validation error for askArguments\\nquestion\\n  Input should be a valid string")
    '1 validation error for askArguments: question: Input should be a valid string'
    """
    lines = [" ".join(line.split()) for line in _DOCS_LINE.sub("", text).splitlines()]
    return ": ".join(line for line in lines if line)


async def one_line_errors(ctx: Any, call_next: Any) -> Any:
    """Middleware: a tool's error result says what went wrong on one line. What the
    chain returns here is the result as it goes on the wire (a dict)."""
    result = await call_next(ctx)
    if isinstance(result, dict) and result.get("isError") and isinstance(result.get("content"), list):
        content = [{**block, "text": one_line(block["text"])}
                   if isinstance(block, dict) and isinstance(block.get("text"), str) else block
                   for block in result["content"]]
        return {**result, "content": content}
    return result


def build_server(tether: Tether, caller: Caller) -> MCPServer:
    """The server: its tools and resources on ``tether``, acting as ``caller``."""
    server: MCPServer = MCPServer("tether", title="Tether", version=_version(),
                                  instructions=INSTRUCTIONS, log_level="WARNING",
                                  middleware=[one_line_errors])
    tools = Tools(tether, caller)
    for tool in (tools.ask, tools.verify, tools.resolve, tools.search):
        server.add_tool(tool, annotations=_READ_ONLY, structured_output=False)
    server.resource(DOCUMENTS_URI, name="documents", mime_type="application/json",
                    description="The documents this server may read.")(tools.document_list)
    server.resource(DOCUMENT_TEMPLATE, name="document", mime_type="text/plain",
                    description="A document's text; ?start=&end= for a cited range, "
                                "&version= for the version a citation names.")(tools.document)
    return server
