"""``tether ask`` exit status, through the real CLI process: a script tells an answer
from a refusal, a failed generator, a failed store and bad input without ``--json``
(README: the ``ask`` exit table). None of them is 70, the internal-error status."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import cli_env, run_tether
from .unprivileged import run_unprivileged, unprivileged_prefix

ANSWERABLE = "What is the flash point of acetone?"
ABSENT = "What is the capital of Australia?"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("exit")
    (root / "acetone.md").write_text(
        "# Acetone\n\nAcetone has a flash point of -20 °C. It is not safe near open flames.\n"
    )
    db = root / "t.db"
    assert run_tether("ingest", str(root / "acetone.md"), "--db", str(db)).code == 0
    return db


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_answered_is_0_and_refused_is_1_with_or_without_json(store: Path) -> None:
    answered = run_tether("ask", ANSWERABLE, "--db", str(store))
    assert answered.code == 0 and "-20 °C" in answered.out
    refused = run_tether("ask", ABSENT, "--db", str(store))
    assert refused.code == 1 and refused.out.startswith("No answer [")
    as_json = run_tether("ask", ABSENT, "--db", str(store), "--json")
    assert as_json.code == 1 and json.loads(as_json.out)["refused"] is True
    assert run_tether("ask", ANSWERABLE, "--db", str(store), "--json").code == 0


def test_an_unreachable_generator_is_5_not_a_refusal_and_not_70(store: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    run = run_tether("ask", ANSWERABLE, "--db", str(store), "--generator", "openai",
                     "--base-url", url, "--model", "x", "--timeout", "5")
    assert run.code == 5, (run.out, run.err)
    assert run.out.startswith("No answer [generator]: the generator failed before any sentence")
    assert "Connection refused" in run.out and "Traceback" not in run.err
    as_json = run_tether("ask", ANSWERABLE, "--db", str(store), "--json", "--generator", "openai",
                         "--base-url", url, "--model", "x", "--timeout", "5")
    answer = json.loads(as_json.out)
    assert as_json.code == 5 and answer["refusal_layer"] == "generator"
    assert "generator_failure" in answer["trace"]


def test_a_batch_is_0_with_refusals_in_its_records_and_5_when_the_generator_failed(
    store: Path,
) -> None:
    lines = "\n".join(json.dumps({"id": i, "question": q}) for i, q in enumerate([ANSWERABLE, ABSENT]))
    batch = run_tether("ask", "--jsonl", "-", "--db", str(store), stdin=lines)
    assert batch.code == 0
    assert [json.loads(line)["refused"] for line in batch.out.splitlines()] == [False, True]
    url = f"http://127.0.0.1:{closed_port()}/v1"
    failed = run_tether("ask", "--jsonl", "-", "--db", str(store), "--generator", "openai",
                        "--base-url", url, "--model", "x", "--timeout", "5", stdin=lines)
    assert failed.code == 5 and len(failed.out.splitlines()) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ask", "   "], "error: the question is empty"),
        (["ask", ANSWERABLE, "--mode", "abstain=loud"], "error: "),
        (["ask", ANSWERABLE, "--model", "x"], "--model applies only to a model generator"),
        (["ask"], "give either a QUESTION or --jsonl FILE"),
    ],
)
def test_bad_input_is_2(store: Path, args: list[str], message: str) -> None:
    run = run_tether(*args, "--db", str(store))
    assert run.code == 2 and run.out == ""
    assert message in run.err and len(run.err.strip().splitlines()) == 1


def test_a_missing_or_broken_store_is_3(tmp_path: Path) -> None:
    missing = run_tether("ask", ANSWERABLE, "--db", str(tmp_path / "none.db"))
    assert missing.code == 3 and missing.err.startswith("error: no store at")
    junk = tmp_path / "junk.db"
    junk.write_text("not a database")
    broken = run_tether("ask", ANSWERABLE, "--db", str(junk))
    assert broken.code == 3 and len(broken.err.strip().splitlines()) == 1


def test_a_read_only_store_is_a_store_failure_not_an_internal_error(
    store: Path, tmp_path: Path
) -> None:
    prefix = unprivileged_prefix(tmp_path)
    # The answer is printed, then recording it in the audit log is refused.
    ro = tmp_path / "ro.db"
    ro.write_bytes(store.read_bytes())
    os.chmod(ro, 0o444)
    code, out, err = run_unprivileged(prefix, "ask", ANSWERABLE, "--db", str(ro))
    assert code == 3, (out, err)
    assert err.strip().splitlines()[-1].startswith("error: the store failed: ")
    assert "internal error" not in err and "Traceback" not in err


def _popen_tether(*args: str, **kwargs: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tether", *args], env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def test_a_reader_that_stops_reading_is_not_an_error(tmp_path: Path) -> None:
    # `tether verify ... | head -c 100`: ~2.7 MB of verdicts, more than a pipe holds,
    # so the writes after the reader has gone fail with EPIPE. click alone exits 1.
    request = {"passages": [{"id": "p", "text": "A man plays."}],
               "sentences": [f"A man plays number {i}." for i in range(5000)]}
    body = tmp_path / "request.json"
    body.write_text(json.dumps(request), encoding="utf-8")
    with body.open("rb") as stdin:
        process = _popen_tether("verify", stdin=stdin)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(100).startswith(b"{")
    process.stdout.close()
    err = process.stderr.read()
    assert process.wait(timeout=60) == 0
    assert err == b""


def test_a_reader_gone_before_the_answer_is_not_an_error(store: Path) -> None:
    process = _popen_tether("ask", ANSWERABLE, "--db", str(store))
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # nothing of the answer is read
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == b""


def test_a_broken_pipe_that_is_not_the_output_is_reported(tmp_path: Path) -> None:
    # A pipe to a worker or a server that broke is a failure, not a reader gone:
    # one line, the internal-error status, while stdout is still read.
    script = tmp_path / "pipe.py"
    script.write_text(
        "from tether.cli import main\n"
        "from tether.cli._common import cli\n"
        "@cli.command('pipe-breaks')\n"
        "def pipe_breaks():\n"
        "    raise BrokenPipeError(32, 'Broken pipe')\n"
        "main(['pipe-breaks'])\n", encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=cli_env(), timeout=60, check=False)
    assert run.returncode == 70, run
    assert run.stderr.strip() == ("error: internal error: BrokenPipeError: [Errno 32] Broken pipe "
                                  "(rerun with --debug for details)")
