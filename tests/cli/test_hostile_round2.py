"""Hostile input, round two (issue 19, part 3), through the real ``python -m tether``:
JSON that json.loads accepts but nothing after it can handle (unpaired surrogates, deep
nesting, huge numbers), bytes that are not UTF-8, files swapped or removed mid-ingest,
and HTML nested past libxml2's default depth. Bad input is exit 2 with one ``error:``
line and nothing on stdout; never the internal error 70, never a hang."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tether.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
VERIFY = b'{"passages": [{"id": "a", "text": "Acetone boils at 56 C."}], "sentences": ["Acetone boils at 56 C."]}'


def tether(*args: str, stdin: bytes = b"", env: dict[str, str] | None = None,
           timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "tether", *args], input=stdin,
                          capture_output=True, env={**ENV, **(env or {})}, timeout=timeout)


def assert_bad_input(proc: subprocess.CompletedProcess[bytes], *words: str) -> None:
    """Exit 2, nothing on stdout, one ``error:`` line on stderr that says what was wrong."""
    err = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:300], err)
    assert proc.stdout == b"", proc.stdout[:300]
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("note:")]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "internal error" not in err and "Traceback" not in err
    for word in words:
        assert word in lines[0], err


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tether.cli.demo import build_demo_store

    path = tmp_path_factory.mktemp("demo") / "demo.db"
    build_demo_store(path).close()
    return path


SURROGATE = b'{"passages": [{"id": "a", "text": "x \\ud800"}], "sentences": ["x \\ud800"]}'
HOSTILE = {
    "surrogate": (SURROGATE, "unpaired surrogate \\ud800"),
    "deep": (b"[" * 200_000 + b"]" * 200_000, "max_json_depth"),
    "number": (b'{"passages": [], "sentences": [], "n": ' + b"1" * 100_000 + b"}",
               "max_json_number_chars"),
    "not-utf8": (b'{"passages": [{"id": "a", "text": "\xff\xfe"}], "sentences": ["a"]}',
                 "not valid UTF-8"),
}


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_verify_refuses_hostile_json_as_bad_input(case: str):
    data, words = HOSTILE[case]
    assert_bad_input(tether("verify", stdin=data), "stdin:", words)


def test_verify_jsonl_refuses_a_surrogate_on_its_line():
    proc = tether("verify", "--jsonl", stdin=b'{"id": 1, ' + VERIFY[1:] + b"\n" + b'{"id": 2, '
                  + SURROGATE[1:] + b"\n")
    assert_bad_input(proc, "line 2:", "unpaired surrogate")


def test_a_paired_surrogate_escape_is_an_ordinary_character():
    emoji = VERIFY.replace(b"C.", b"C \\ud83d\\ude00.")
    proc = tether("verify", stdin=emoji)
    assert proc.returncode == 0, proc.stderr
    assert "\U0001f600" in proc.stdout.decode()


def test_json_limits_are_settings():
    # The ordinary verify request is 3 levels deep: a limit of 2 refuses it, by name.
    proc = tether("verify", stdin=VERIFY, env={"TETHER_MAX_JSON_DEPTH": "2"})
    assert_bad_input(proc, "nested 3 deep", "max_json_depth")
    assert tether("verify", stdin=VERIFY).returncode == 0
    number = VERIFY[:-1] + b', "n": 123456}'
    assert_bad_input(tether("verify", stdin=number, env={"TETHER_MAX_JSON_NUMBER_CHARS": "5"}),
                     "max_json_number_chars")


def test_resolve_refuses_a_surrogate_and_deep_lines(demo_db: Path):
    citation = b'{"doc_id": "\\ud800", "version": "v", "start": 0, "end": 1, "quote": "q", "quote_hash": "h"}'
    assert_bad_input(tether("resolve", "--db", str(demo_db), stdin=citation), "unpaired surrogate")
    deep = b'{"id": 1, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    assert_bad_input(tether("resolve", "--db", str(demo_db), "--jsonl", stdin=deep),
                     "line 1:", "max_json_depth")


def test_ask_jsonl_refuses_a_surrogate_and_invalid_utf8(demo_db: Path, tmp_path: Path):
    good = b'{"id": 1, "question": "What is the flash point of acetone?"}\n'
    proc = tether("ask", "--db", str(demo_db), "--jsonl", "-",
                  stdin=good + b'{"id": 2, "question": "flash \\udc00 point"}\n')
    assert_bad_input(proc, "line 2:", "unpaired surrogate \\udc00")
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(good + b'{"id": 2, "question": "flash \xc3\x28 point"}\n')
    assert_bad_input(tether("ask", "--db", str(demo_db), "--jsonl", str(batch)),
                     "not valid UTF-8")


def test_ask_refuses_a_question_argument_that_is_not_utf8(demo_db: Path):
    # The argument arrives as lone surrogates (surrogateescape); before, half an answer
    # was printed and the run ended in exit 70 with a UnicodeEncodeError.
    proc = subprocess.run([sys.executable.encode(), b"-m", b"tether", b"ask", b"--db",
                           os.fsencode(demo_db), b"flash \xff point of acetone?"],
                          capture_output=True, env=ENV, timeout=120)
    assert_bad_input(proc, "not valid text")


def _big_markdown(path: Path) -> None:
    rng = random.Random(1)
    words = "acetone ethanol gloves flash point vapour boiling solvent storage cabinet".split()
    lines = (" ".join(rng.choice(words) for _ in range(12)) + "." for _ in range(60_000))
    path.write_text("# Big\n\n" + "\n".join(lines))


def test_files_removed_or_swapped_for_a_fifo_mid_ingest_fail_alone(tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir()
    _big_markdown(folder / "a.md")  # about a second of work: the others wait behind it
    for name in "mnz":
        (folder / f"{name}.txt").write_text(f"Document {name}: acetone boils at 56 degrees.\n")
    db = tmp_path / "t.db"
    proc = subprocess.Popen([sys.executable, "-m", "tether", "ingest", "--db", str(db), str(folder)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The store is opened after the folder was walked and before any file is read.
    while not db.exists() and proc.poll() is None:
        time.sleep(0.002)
    (folder / "m.txt").unlink()
    (folder / "z.txt").unlink()
    os.mkfifo(folder / "z.txt")
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("ingest hung on a FIFO")
    assert proc.returncode == 1, (out, err)
    assert "2 ingested" in out and "2 failed" in out, out
    failed = sorted(line for line in err.splitlines() if line.startswith("failed: "))
    assert len(failed) == 2, err
    assert failed[0].endswith("m.txt: no such file") and failed[1].endswith("z.txt: not a regular file")
    store = SQLiteStore(db)
    try:
        sources = sorted(Path(doc.source).name for doc in store.documents())
    finally:
        store.close()
    assert sources == ["a.md", "n.txt"]


SWAP = """
import os, sys, threading
from pathlib import Path
from tether.config import Settings
from tether.errors import InputError
from tether.ingest.extract import read_file
folder = Path(sys.argv[1]); path = folder / "z.txt"
path.write_text("Acetone boils at 56 degrees.\\n")
stop = False
def swap():
    i = 0
    while not stop:
        tmp = folder / f"t{i % 2}"
        os.mkfifo(tmp) if i % 2 else tmp.write_text("Acetone boils at 56 degrees.\\n")
        os.replace(tmp, path); i += 1
threading.Thread(target=swap, daemon=True).start()
read = refused = tries = 0
# At least argv[2] tries, and on until both outcomes were seen (how the two threads
# interleave depends on the machine's load), within a bound.
while tries < int(sys.argv[2]) or not (read and refused) and tries < 50 * int(sys.argv[2]):
    tries += 1
    try:
        data, _ = read_file(path, settings=Settings()); read += 1
        assert data == b"Acetone boils at 56 degrees.\\n", data
    except InputError as exc:
        assert "not a regular file" in str(exc) or "no such file" in str(exc), exc
        refused += 1
stop = True
print(read, refused)
"""


def test_a_path_swapped_between_a_file_and_a_fifo_never_hangs_the_reader(tmp_path: Path):
    # Checking the path, then opening it, leaves a window in which a FIFO opened for
    # reading blocks for ever (a stat-then-open reader hangs within a few thousand
    # tries here); the descriptor opened with O_NONBLOCK and checked with fstat has none.
    proc = subprocess.run([sys.executable, "-c", SWAP, str(tmp_path), "5000"], env=ENV,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    read, refused = map(int, proc.stdout.split())
    assert read > 0 and refused > 0 and read + refused >= 5000


def _nested_page(depth: int) -> str:
    return ("<html><body><p>Shallow text about acetone storage in cabinets.</p>" + "<div>" * depth
            + "<p>Deep text about nitrile gloves resisting solvents.</p>" + "</div>" * depth
            + "</body></html>")


def test_html_nested_past_the_parser_default_keeps_its_text(tmp_path: Path):
    page = tmp_path / "deep.html"
    page.write_text(_nested_page(300))  # libxml2 stops at 256 levels by default
    db = tmp_path / "t.db"
    proc = tether("ingest", "--db", str(db), str(page))
    assert proc.returncode == 0 and b"1 ingested" in proc.stdout, proc.stderr
    store = SQLiteStore(db)
    try:
        text = " ".join(p.text for doc in store.documents()
                        for p in store.passages(doc.doc_id, store.current_version(doc.doc_id) or ""))
    finally:
        store.close()
    assert "Deep text about nitrile gloves" in text and "Shallow text" in text


def test_html_deeper_than_the_parser_can_read_is_refused_by_name(tmp_path: Path):
    page = tmp_path / "deeper.html"
    page.write_text(_nested_page(3000))  # past libxml2's hard limit (2,048) even with huge_tree
    db = tmp_path / "t.db"
    proc = tether("ingest", "--db", str(db), str(page), env={"TETHER_MAX_HTML_DEPTH": "5000"})
    err = proc.stderr.decode()
    assert proc.returncode == 1, err
    failed = [line for line in err.splitlines() if line.startswith("failed: ")]
    assert len(failed) == 1 and "max_html_depth" in failed[0], err
