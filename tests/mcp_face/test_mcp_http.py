"""``tether mcp --http``: streamable HTTP on loopback, a real subprocess, the SDK's client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from .conftest import add_key, http_server, server_env


def http_run(url: str, scenario: Any) -> Any:
    async def main() -> Any:
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await scenario(session)

    return anyio.run(main)


def test_answers_with_citations_and_refusals_over_streamable_http(store_db: Path):
    async def scenario(session: ClientSession) -> Any:
        tools = {tool.name for tool in (await session.list_tools()).tools}
        progress: list[str] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append(message or "")

        answer = await session.call_tool("ask", {"question": "At what temperature does methanol boil?"},
                                         progress_callback=on_progress)
        refusal = await session.call_tool("ask", {"question": "Who won the 1998 football world cup?"})
        empty = await session.call_tool("ask", {"question": ""})
        failures = []
        try:  # over the transport's body limit: refused before any tool runs
            await session.call_tool("verify", {"passages": {"p": "x" * 10_000_000}, "sentences": ["x"]})
        except MCPError as exc:
            failures.append(exc.error.message)
        after = await session.call_tool("search", {"query": "acetone flash point", "k": 1})
        return tools, progress, answer, refusal, empty, failures, after

    with http_server(store_db) as (url, _):
        tools, progress, answer, refusal, empty, failures, after = http_run(url, scenario)
    assert tools == {"ask", "verify", "resolve", "search"}
    data = answer.structured_content
    assert not answer.is_error and not data["refused"] and "64.7 °C" in data["answer"]
    assert data["citations"][0]["source"].endswith("methanol.txt")
    assert progress and all(marked in data["answer"] for marked in progress)
    assert refusal.structured_content["refused"] and refusal.structured_content["refusal_reason"]
    assert empty.is_error and "empty" in empty.content[0].text
    assert len(failures) == 1 and failures[0]
    assert not after.is_error and after.structured_content["passages"][0]["source"].endswith("acetone.txt")


def test_http_refuses_another_host_and_a_page_from_another_origin(store_db: Path):
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    with http_server(store_db) as (url, _):
        rebinding = httpx.post(url, json=hello, headers={**accept, "Host": "attacker.example"}, timeout=30)
        cross_site = httpx.post(url, json=hello, headers={**accept, "Origin": "https://attacker.example"},
                                timeout=30)
        own = httpx.post(url, json=hello, headers=accept, timeout=30)
    assert rebinding.status_code == 421  # a DNS-rebinding page reaches it under its own name
    assert cross_site.status_code == 403
    assert own.status_code == 200


def test_http_acts_as_its_key_and_listens_on_loopback_only(store_db: Path):
    finance = add_key(store_db, "fin", "finance")

    async def scenario(session: ClientSession) -> Any:
        return await session.call_tool("ask", {"question": "What is the Kestrel budget?"})

    with http_server(store_db, env={"TETHER_API_KEY": finance}) as (url, _):
        answer = http_run(url, scenario)
    assert "42 million euros" in answer.structured_content["answer"]
    refused = subprocess.run(
        [sys.executable, "-m", "tether", "mcp", "--db", str(store_db), "--http", "--host", "0.0.0.0"],
        capture_output=True, text=True, env={**server_env(), "TETHER_API_KEY": finance}, timeout=120)
    assert refused.returncode == 2 and "loopback" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1


def test_bodies_the_sdk_client_cannot_send_get_a_parse_error_and_the_session_goes_on(store_db: Path):
    # An unpaired surrogate escape and nesting 100,000 deep, written as a client could.
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    call = b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": "ask", "arguments": %s}}'
    with http_server(store_db) as (url, _), httpx.Client(timeout=120) as http:
        opened = http.post(url, json=hello, headers=accept)
        session = {**accept, "mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-06-18"}
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
        refused = [http.post(url, headers=session, content=call % (n, arguments)) for n, arguments in (
            (2, b'{"question": "flash point \\ud800"}'),
            (3, b'{"question": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"))]
        after = http.post(url, headers=session, content=call % (4, b'{"question": "What is the flash point of acetone?"}'))
    for response in refused:
        assert response.status_code == 400
        assert response.json()["error"]["code"] == -32700
    assert after.status_code == 200 and '"id":4' in after.text and "-20 °C" in after.text
