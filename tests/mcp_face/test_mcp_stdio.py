"""``tether mcp`` over stdio, driven by the MCP SDK's own client: the server is a real
``python -m tether mcp`` subprocess on a store ingested here."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import jsonschema
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, PARSE_ERROR

from tether import Tether
from tether.config import Settings

from .conftest import FINANCE_MEMO, PUBLIC_NOTES, add_key, server_env

TOOLS = {"ask", "verify", "resolve", "search"}


def session_run(db: Path, scenario: Any, *extra: str, env: dict[str, str] | None = None) -> Any:
    """Run ``scenario(session)`` against a fresh stdio server; its result."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "tether", "mcp", "--db", str(db), *extra],
                                   env={**server_env(), **(env or {})})

    async def main() -> Any:
        with tempfile.TemporaryFile("w+") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await scenario(session)

    return anyio.run(main)


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


def test_tools_are_listed_with_valid_input_schemas(store_db: Path):
    async def scenario(session: ClientSession) -> Any:
        return (await session.list_tools()).tools

    tools = session_run(store_db, scenario)
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        assert tool.input_schema["type"] == "object" and tool.description
        assert tool.annotations is not None and tool.annotations.read_only_hint
    ask = next(tool for tool in tools if tool.name == "ask")
    assert ask.input_schema["required"] == ["question"]


def test_ask_answers_with_citations_streams_each_sentence_and_the_cited_range_reads_back(store_db: Path):
    async def scenario(session: ClientSession) -> Any:
        progress: list[str] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(message or "")

        result = await session.call_tool("ask", {"question": "What is the flash point of acetone?"},
                                         progress_callback=on_progress)
        ranges = []
        for cited in result.structured_content["citations"]:
            where = cited["range"]
            uri = (f"tether://documents/{cited['doc_id']}?version={cited['version']}"
                   f"&start={where['start']}&end={where['end']}")
            ranges.append((await session.read_resource(uri)).contents[0].text)
        whole = await session.read_resource(f"tether://documents/{cited['doc_id']}")
        resolved = await session.call_tool("resolve", {"citation": cited["citation"]})
        return result, progress, ranges, whole.contents[0].text, resolved

    result, progress, ranges, whole, resolved = session_run(store_db, scenario)
    assert not result.is_error
    data = result.structured_content
    assert not data["refused"] and data["sentences"] and data["citations"]
    assert "-20 °C" in data["answer"] and "[1]" in text_of(result)
    assert [c["index"] for c in data["citations"]] == list(range(1, len(data["citations"]) + 1))
    for cited, text in zip(data["citations"], ranges, strict=True):
        assert cited["quote"] == text  # the range a marker names holds the quoted words
        assert cited["source"].endswith("acetone.txt") and cited["title"]
    assert whole == PUBLIC_NOTES["acetone.txt"]
    # One progress notification per verified sentence, marked as in the final answer.
    assert len(progress) == len(data["sentences"])
    assert all(marked in data["answer"] for marked in progress)
    assert not resolved.is_error and resolved.structured_content["status"] == "exact"


def test_a_refusal_is_an_answer_that_carries_its_reason(store_db: Path):
    async def scenario(session: ClientSession) -> Any:
        return await session.call_tool("ask", {"question": "Who won the 1998 football world cup?"})

    result = session_run(store_db, scenario)
    assert not result.is_error
    data = result.structured_content
    assert data["refused"] and data["refusal_reason"]
    assert data["sentences"] == [] and data["citations"] == []
    assert text_of(result) == f"No answer: {data['refusal_reason']}."


def test_search_and_verify_work_through_the_facade(store_db: Path):
    async def scenario(session: ClientSession) -> Any:
        found = await session.call_tool("search", {"query": "methanol boiling point", "k": 2})
        checked = await session.call_tool("verify", {
            "passages": {"p1": PUBLIC_NOTES["methanol.txt"]},
            "sentences": ["Methanol boils at 64.7 °C at sea level.", "Methanol boils at 90 °C."]})
        return found, checked

    found, checked = session_run(store_db, scenario)
    passages = found.structured_content["passages"]
    assert 1 <= len(passages) <= 2 and passages[0]["source"].endswith("methanol.txt")
    assert all("Kestrel" not in p["text"] for p in passages)
    outcomes = [row["outcome"] for row in checked.structured_content["sentences"]]
    assert outcomes == ["supported", "contradicted"]
    assert checked.structured_content["sentences"][0]["quote"] == "Methanol boils at 64.7 °C at sea level."


def test_bad_input_is_an_error_result_and_the_server_keeps_serving(store_db: Path):
    nested: Any = "x"
    for _ in range(60):  # deep, yet within what the client can send
        nested = [nested]

    async def scenario(session: ClientSession) -> Any:
        results = [
            await session.call_tool("ask", {"question": ""}),
            await session.call_tool("ask", {"question": "   "}),
            await session.call_tool("ask", {"question": nested}),
            await session.call_tool("verify", {"passages": {"p": "x" * 10_000_000}, "sentences": ["x"]}),
            await session.call_tool("verify", {"passages": {"p": "Water boils."}}),
            await session.call_tool("search", {"query": "methanol", "k": 10_000}),
            await session.call_tool("resolve", {"citation": {"doc_id": 5}}),
        ]
        refused = []
        for uri in ("tether://documents/doc_nope", "tether://documents/x?start=9&end=2",
                    "tether://documents/x?start=x"):
            try:
                await session.read_resource(uri)
            except MCPError as exc:
                refused.append(exc.error.code)
        after = await session.call_tool("ask", {"question": "What is the flash point of acetone?"})
        return results, refused, after

    results, refused, after = session_run(store_db, scenario)
    for result in results:
        assert result.is_error
        message = text_of(result)
        assert message and "\n" not in message and "Traceback" not in message
    assert "empty" in text_of(results[0])
    assert "max_request_bytes" in text_of(results[3])
    assert "question: Input should be a valid string" in text_of(results[2])
    assert refused == [INVALID_PARAMS] * 3
    assert not after.is_error and after.structured_content["citations"]


def _raw_exchange(db: Path, lines: list[str]) -> list[dict[str, Any]]:
    """Write ``lines`` to a stdio server after the handshake; its replies, one per line
    (read before its input is closed, which would end the server mid-answer)."""
    handshake = [
        json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
    with tempfile.TemporaryFile("w+") as errlog:
        proc = subprocess.Popen([sys.executable, "-m", "tether", "mcp", "--db", str(db)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog,
                                text=True, env=server_env())
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write("\n".join(handshake + lines) + "\n")
            proc.stdin.flush()
            replies = [json.loads(proc.stdout.readline()) for _ in range(len(lines) + 1)]
            proc.stdin.close()
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        errlog.seek(0)
        assert "Traceback" not in errlog.read()
    return replies[1:]


def test_lines_the_sdk_cannot_read_get_a_json_rpc_error_with_their_id(store_db: Path):
    # Neither an unpaired surrogate nor nesting 100,000 deep can be sent by the SDK's
    # client, which encodes strictly: the lines are written as a client could send them.
    call = '{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "%s", "arguments": %s}}'
    lines = [
        call % (1, "ask", '{"question": "flash point \\ud800 of acetone"}'),
        call % (2, "verify", '{"passages": {"p\\udc80": "x"}, "sentences": ["x \\udfff"]}'),
        call % (3, "ask", '{"question": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        '{"jsonrpc": "2.0", "id": 4, "method": ',
        call % (5, "ask", json.dumps({"question": "What is the flash point of acetone?"})),
    ]
    replies = _raw_exchange(store_db, lines)
    by_id = {reply["id"]: reply for reply in replies}
    assert sorted(by_id) == [1, 2, 3, 4, 5]
    for request in (1, 2, 3, 4):
        assert by_id[request]["error"]["code"] == PARSE_ERROR
        assert "\n" not in by_id[request]["error"]["message"]
    assert not by_id[5]["result"].get("isError") and by_id[5]["result"]["structuredContent"]["citations"]


def test_acts_as_its_key_principals_and_a_revoked_key_stops_at_once(store_db: Path):
    finance = add_key(store_db, "fin", "finance")
    add_key(store_db, "pub", "public")
    question = {"question": "What is the Kestrel budget?"}

    async def as_finance(session: ClientSession) -> Any:
        answer = await session.call_tool("ask", question)
        listed = json.loads((await session.read_resource("tether://documents")).contents[0].text)
        with Tether(store_db, settings=Settings(), create=False) as tether:
            assert tether.store.revoke_key("fin")
        after = await session.call_tool("ask", question)
        return answer, listed, after

    answer, listed, after = session_run(store_db, as_finance, env={"TETHER_API_KEY": finance})
    assert not answer.is_error and "42 million euros" in answer.structured_content["answer"]
    assert answer.structured_content["citations"][0]["quote"] in FINANCE_MEMO
    assert any(doc["source"].endswith("kestrel.txt") for doc in listed["documents"])
    assert after.is_error and "revoked" in text_of(after)


def test_a_public_caller_never_sees_a_restricted_document(store_db: Path):
    async def scenario(session: ClientSession) -> Any:
        answer = await session.call_tool("ask", {"question": "What is the Kestrel budget?"})
        found = await session.call_tool("search", {"query": "Kestrel budget Osprey"})
        listed = json.loads((await session.read_resource("tether://documents")).contents[0].text)
        try:
            kestrel = next(d for d in listed["documents"] if "kestrel" in d["source"])
        except StopIteration:
            kestrel = None
        return answer, found, listed, kestrel

    answer, found, listed, kestrel = session_run(store_db, scenario)
    assert answer.structured_content["refused"]
    assert "42 million" not in json.dumps(answer.structured_content)
    assert all("Kestrel" not in p["text"] for p in found.structured_content["passages"])
    assert kestrel is None and len(listed["documents"]) == len(PUBLIC_NOTES)


def test_a_store_with_keys_refuses_to_start_without_one(store_db: Path):
    add_key(store_db, "fin", "finance")
    for env in ({}, {"TETHER_API_KEY": "tk_not_a_key"}):
        proc = subprocess.run([sys.executable, "-m", "tether", "mcp", "--db", str(store_db)],
                              input="", capture_output=True, text=True, timeout=120,
                              env={**server_env(), **env})
        assert proc.returncode == 2
        assert proc.stdout == ""  # nothing on the protocol's channel
        assert proc.stderr.startswith("error: ") and len(proc.stderr.strip().splitlines()) == 1
