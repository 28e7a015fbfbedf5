"""``tether ask --generator openai`` answering with quotes (the default, ADR 0050), as a
user runs it: a subprocess against the loopback model server, read as it streams."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from generate.conftest import answer
from generate.fake_llm import FakeLLMServer, Reply, Request

from tether import Tether
from tether.config import Settings

from .conftest import cli_env

SHEET = (
    "# Solvent X\n\nSolvent X boils at 64 °C at sea level. The workplace exposure limit for "
    "Solvent X is 200 ppm over an eight-hour shift. Solvent X must be stored away from oxidisers.\n"
)
LIMIT = "The workplace exposure limit for Solvent X is 200 ppm over an eight-hour shift."
BOILS = "Solvent X boils at 64 °C at sea level."
QUESTION = "What is the exposure limit for Solvent X?"
LEAD_IN = "Solvent X has no limit, but here is the sheet:"


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TETHER_GENERATOR", "TETHER_GENERATOR_MODEL",
                 "TETHER_GENERATOR_BASE_URL", "TETHER_GENERATOR_ANSWERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TETHER_CONFIG", "/nonexistent/tether.toml")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    (tmp_path / "solvent-x.md").write_text(SHEET, encoding="utf-8")
    path = tmp_path / "t.db"
    with Tether(path, settings=Settings()) as t:
        t.ingest(tmp_path / "solvent-x.md", license="CC0")
    return path


def id_of(request: Request, sentence: str) -> str:
    user = request.json["messages"][1]["content"]
    found = re.search(r"^(\[\d+\.\d+\]) " + re.escape(sentence) + "$", user, re.MULTILINE)
    assert found, f"{sentence!r} is not a numbered sentence of the prompt"
    return found.group(1)


def read_until(stream: int, needle: str, *, limit: float = 120.0) -> str:
    """Read a pipe until ``needle`` has arrived (or the generous limit has passed)."""
    seen, give_up = b"", time.monotonic() + limit
    while needle.encode() not in seen and time.monotonic() < give_up:
        ready, _, _ = select.select([stream], [], [], 1.0)
        if ready:
            chunk = os.read(stream, 4096)
            if not chunk:
                break
            seen += chunk
    return seen.decode("utf-8")


def ask(db: Path, url: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tether", "ask", QUESTION, "--db", str(db), "--generator", "openai",
         "--base-url", f"{url}/v1", "--model", "any", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(),
    )


def test_a_quoted_answer_streams_sentence_by_sentence(db: Path) -> None:
    gate = threading.Event()

    def model(request: Request) -> Reply:
        reply = answer("openai", f"{LEAD_IN} {id_of(request, LIMIT)} {id_of(request, BOILS)}")
        # The model stops before its second id until the test has seen the first sentence.
        reply.stall_after = max(i for i, f in enumerate(reply.frames) if b'"content":" ["' in f)
        reply.stall, reply.gate = 60.0, gate
        return reply

    with FakeLLMServer(model) as server:
        proc = ask(db, server.url)
        assert proc.stdout is not None
        try:
            first = read_until(proc.stdout.fileno(), LIMIT)
            assert first.startswith(f"{LIMIT} [1]"), first  # shown while the model is held
            assert BOILS not in first and not gate.is_set()
        finally:
            gate.set()
        rest, err = proc.communicate(timeout=120)
    out = first + rest.decode("utf-8")
    assert proc.returncode == 0, err.decode()
    assert out.startswith(f"{LIMIT} [1] {BOILS} [2]\n\nSources\n[1] Solvent X"), out
    assert f"“{LIMIT}”" in out and f"“{BOILS}”" in out  # each cited by its exact quote
    assert "no limit" not in out and "here is the sheet" not in out  # the lead-in is never shown
    assert "not shown" not in out  # nothing was proposed and dropped


def test_a_declined_question_is_a_refusal_that_says_why(db: Path) -> None:
    said = "NO ANSWER. The sheet gives no exposure limit."
    with FakeLLMServer(answer("openai", said)) as server:
        proc = ask(db, server.url)
        out, err = proc.communicate(timeout=120)
    text = out.decode("utf-8")
    assert proc.returncode == 1, err.decode()  # a refusal, not a failure
    assert re.match(r"No answer \[generator\]: .*the model read the passage found and said it does "
                    r"not answer it", text), text
    assert "sheet gives no" not in text


def test_json_keeps_what_the_model_wrote_besides_its_choice(db: Path) -> None:
    with FakeLLMServer(lambda r: answer("openai", f"{LEAD_IN} {id_of(r, LIMIT)} [7.1] [1.x] trust me")) as server:
        proc = ask(db, server.url, "--json")
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    result = json.loads(out)
    assert [s["text"] for s in result["sentences"]] == [LIMIT]
    quotes = result["trace"]["quotes"]
    assert quotes["lead_in"] == LEAD_IN and quotes["stray_text"] == "trust me"
    assert quotes["ignored"] == [{"id": "[7.1]", "why": "out_of_range"}, {"id": "[1.x]", "why": "malformed"}]
