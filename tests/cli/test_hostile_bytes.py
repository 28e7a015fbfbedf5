"""Hostile input, round three (issue 34, items 7, 9 and 10), through the real
``python -m tether``: file names and options whose bytes are not UTF-8, control
sequences in metadata and file names, and an answer the store cannot record.

File names keep their bytes: a document from a name that is not UTF-8 is stored under
its ``file://`` URI with those bytes percent-encoded (what ``Path.as_uri`` writes), and a
rerun finds the same document. Text options (titles, sources, principals, questions)
must be UTF-8: other bytes are exit 2 with one line. Human output shows every control
character of a value as a visible escape, so a value can neither drive the terminal nor
forge a line. ``ask`` never leaves a shown sentence without its sources."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import unicodedata
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
QUESTION = "What temperature does acetone boil at?"


def tether(*args: str | bytes | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """The real CLI with ``args`` passed as given: bytes reach it unchanged (Linux argv)."""
    argv = [sys.executable, "-m", "tether",
            *(os.fsencode(a) if isinstance(a, (str, Path)) else a for a in args)]
    return subprocess.run(argv, capture_output=True, env=ENV, cwd=cwd, timeout=180)


def text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def error_lines(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    return [line for line in text(proc.stderr).splitlines()
            if line.strip() and not line.startswith("note:")]


def assert_refused(proc: subprocess.CompletedProcess[bytes], *words: str) -> None:
    """Exit 2, nothing on stdout, one ``error:`` line naming what was wrong."""
    lines = error_lines(proc)
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:300], proc.stderr[-500:])
    assert proc.stdout == b""
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for word in words:
        assert word in lines[0], lines[0]


def raw_controls(data: bytes) -> list[str]:
    """Characters of ``data`` that a terminal or a line reader would act on: every
    control but the newline between lines, bidi controls, and undecodable bytes."""
    found = []
    for char in text(data):
        category = unicodedata.category(char)
        if (category in {"Cc", "Cs", "Zl", "Zp"} and char != "\n") or unicodedata.bidirectional(
                char) in {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}:
            found.append(char)
    return found


def documents(db: Path) -> list[dict]:
    proc = tether("documents", "list", "--json", "--db", db)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# -- item 7: bytes that are not UTF-8 ----------------------------------------------

BAD_NAME = b"benzene \xff\xfe notes.txt"
BAD_EMPTY = b"empty \xc3(.txt"  # invalid UTF-8 and binary bytes: fails on its own


@pytest.fixture
def bad_names(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for name in ("acetone", "toluene", "xylene"):
        (root / f"{name}.txt").write_text(f"{name.title()} is a solvent with a sharp smell.\n")
    (root / "boiling.txt").write_text("Acetone boils at 56 degrees Celsius.\n")
    with open(os.fsencode(root) + b"/" + BAD_NAME, "wb") as f:  # bytes names, as a shell makes
        f.write(b"Benzene boils at 80 degrees Celsius.\n")
    with open(os.fsencode(root) + b"/" + BAD_EMPTY, "wb") as f:  # not text: it fails
        f.write(b"\x00\x01\x02 binary \x00")
    return root


def test_a_name_that_is_not_utf8_is_stored_under_its_percent_encoded_uri(bad_names: Path, tmp_path: Path):
    db = tmp_path / "s.db"
    first = tether("ingest", bad_names, "--db", db)
    # The binary file fails alone, after the others are ingested: exit 1, one line.
    assert first.returncode == 1, first.stderr
    assert text(first.stdout).startswith("5 ingested, 0 updated, 0 unchanged, 1 failed"), first.stdout
    lines = error_lines(first)
    assert len(lines) == 1 and lines[0].startswith(f"failed: {bad_names}/empty \\xc3(.txt: looks binary"), lines
    assert not raw_controls(first.stdout + first.stderr)

    stored = {d["source"]: d for d in documents(db)}
    assert len(stored) == 5
    bad = next(d for d in stored.values() if "%FF%FE" in d["source"])
    # The stated encoding: the file URI, its bytes percent-encoded, reversible to the name.
    assert unquote_to_bytes(urlsplit(bad["source"]).path) == os.fsencode(bad_names) + b"/" + BAD_NAME
    assert bad["title"] == "benzene \ufffd\ufffd notes"  # a person's reading; lossy on purpose

    again = tether("ingest", bad_names, "--db", db)
    assert again.returncode == 1
    assert text(again.stdout).startswith("0 ingested, 0 updated, 5 unchanged, 1 failed"), again.stdout
    assert len(documents(db)) == 5  # the same documents, no duplicate

    answer = tether("ask", "What temperature does benzene boil at?", "--db", db)
    assert answer.returncode == 0, answer.stderr
    assert "Benzene boils at 80 degrees Celsius." in text(answer.stdout)
    assert "%FF%FE" in text(answer.stdout)

    # The name as the shell has it finds the document again (its URI).
    removed = tether("documents", "rm", "--source", os.fsencode(bad_names) + b"/" + BAD_NAME, "--db", db)
    assert removed.returncode == 0, removed.stderr
    assert len(documents(db)) == 4


BAD = b"caf\xe9"  # Latin-1, not UTF-8


@pytest.mark.parametrize(("args", "option"), [
    ((b"ingest", b"FILE", b"--title", BAD), "--title"),
    ((b"ingest", b"FILE", b"--source", BAD), "--source"),
    ((b"ingest", b"FILE", b"--acl", b"team-" + BAD), "--acl"),
    ((b"ingest", b"FILE", b"--license", BAD), "--license"),
    ((b"ask", QUESTION.encode(), b"--as", BAD), "--as"),
    ((b"ask", b"Is the " + BAD + b" open?"), "QUESTION"),
    ((b"documents", b"list", b"--as", BAD), "--as"),
    ((b"keys", b"add", b"ops", b"--principal", BAD), "--principal"),
    ((b"keys", b"add", BAD, b"--principal", b"ops"), "NAME"),
], ids=["title", "source", "acl", "license", "ask-as", "question", "documents-as",
        "principal", "key-name"])
def test_text_options_that_are_not_utf8_are_refused(args, option, tmp_path: Path):
    db = tmp_path / "s.db"
    doc = tmp_path / "boiling.txt"
    doc.write_text("Acetone boils at 56 degrees Celsius.\n")
    assert tether("ingest", doc, "--db", db).returncode == 0
    before = documents(db)
    argv = [os.fsencode(doc) if a == b"FILE" else a for a in args]
    proc = tether(*argv, "--db", db)
    assert_refused(proc, option, "not valid text", "0xe9", "not UTF-8")
    assert documents(db) == before
    assert tether("keys", "list", "--db", db).stdout == b""  # no key was stored


def test_a_manifest_with_a_surrogate_escape_is_refused_before_anything_is_written(tmp_path: Path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text("Ethanol boils at 78 degrees Celsius.\n")
    manifest = tmp_path / "manifest.json"
    # JSON can spell a lone surrogate; no store can hold it (was exit 70 mid-ingest).
    manifest.write_text('{"documents": [{"path": "docs/a.txt", "title": "bad \\udcff"}]}')
    db = tmp_path / "s.db"
    proc = tether("ingest", root, "--manifest", manifest, "--db", db)
    assert_refused(proc, "manifest", "unpaired surrogate")
    assert not db.exists()


@pytest.mark.parametrize("principal", ["ops\x1b]0;x\x07", "ops\nadmin", " "])
def test_a_principal_that_cannot_be_a_principal_is_refused_at_keys_add(principal, tmp_path: Path):
    db = tmp_path / "s.db"
    proc = tether("keys", "add", "ops-key", "--principal", principal, "--db", db)
    assert_refused(proc, "principal")
    assert not raw_controls(proc.stderr)
    assert tether("keys", "list", "--db", db).stdout == b""


# -- item 9: control sequences in values ---------------------------------------------

OSC = "\x1b]0;owned\x07"
CSI = "\x1b[2J\x1b[31m"
FORGED = "\r\n5 ingested, 0 updated, 0 unchanged, 0 failed\n"
HOSTILE_TITLE = f"Acetone {OSC}{CSI}sheet{FORGED}\x9b1m\u202eend"


def test_control_sequences_in_metadata_and_names_reach_no_output_raw(tmp_path: Path):
    db = tmp_path / "s.db"
    root = tmp_path / "docs"
    root.mkdir()
    doc = root / "boiling.txt"
    doc.write_text("Acetone boils at 56 degrees Celsius.\n")
    ingested = tether("ingest", doc, "--db", db, "--title", HOSTILE_TITLE,
                      "--source", f"https://example.org/{OSC}\r\n[2] forged")
    assert ingested.returncode == 0, ingested.stderr
    # A name with ESC, BEL and a line that looks like a summary; binary, so it fails.
    (root / f"{OSC}x\n9 ingested, 0 updated, 0 unchanged, 0 failed.txt").write_bytes(b"\x00\x01 binary")
    (root / f".hidden{CSI}\r\n").write_text("x")

    hostile_id = documents(db)[0]["doc_id"]
    runs = {
        "ingest": tether("ingest", root, "--db", db, "--verbose"),  # boiling.txt again, by path
        "list": tether("documents", "list", "--db", db),
        "show": tether("documents", "show", hostile_id, "--db", db),
        "list-json": tether("documents", "list", "--json", "--db", db),
        "show-json": tether("documents", "show", hostile_id, "--json", "--db", db),
        "ask": tether("ask", QUESTION, "--db", db),
    }
    for name, proc in runs.items():
        assert proc.returncode in {0, 1}, (name, proc.returncode, proc.stderr[-400:])
        assert not raw_controls(proc.stdout + proc.stderr), (name, raw_controls(proc.stdout + proc.stderr))
        assert "Traceback" not in text(proc.stderr)

    ingest = runs["ingest"]
    assert ingest.returncode == 1  # the binary file
    assert len(text(ingest.stdout).splitlines()) == 1  # the one summary line, no forged one
    failed = [line for line in error_lines(ingest) if line.startswith("failed: ")]
    assert len(failed) == 1 and "\\x1b]0;owned\\x07x\\n9 ingested" in failed[0], error_lines(ingest)
    assert all(line.startswith(("failed: ", "skipped: ")) for line in error_lines(ingest))

    listed = text(runs["list"].stdout).splitlines()
    assert len(listed) == 3  # the header and the two documents, no forged row
    shown = text(runs["show"].stdout)
    assert "title       Acetone \\x1b]0;owned\\x07\\x1b[2J" in shown
    # JSON keeps the exact value, escaped.
    assert json.loads(runs["show-json"].stdout)["title"] == HOSTILE_TITLE
    answer = text(runs["ask"].stdout)
    assert "Acetone boils at 56 degrees Celsius. [1]" in answer
    assert "\n[2]" not in answer  # the source's "[2] forged" stays on the [1] line
    source_lines = [line for line in answer.splitlines() if line.startswith("[")]
    assert len(source_lines) == 1 and "https://example.org/\\x1b]0;owned\\x07\\r\\n[2] forged" in source_lines[0]


# -- item 10: an answer the store cannot record -----------------------------------------

@pytest.fixture
def full_store(tmp_path: Path) -> Path:
    """A store with one document whose audit log refuses every new answer the way a
    full disk does (a trigger raises SQLite's own message)."""
    db = tmp_path / "s.db"
    doc = tmp_path / "boiling.txt"
    doc.write_text("Acetone boils at 56 degrees Celsius.\n")
    assert tether("ingest", doc, "--db", db).returncode == 0
    assert tether("ask", QUESTION, "--db", db).returncode == 0  # the once-per-store note
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TRIGGER disk_full BEFORE INSERT ON answers "
                     "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
    return db


def _answers(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM answers").fetchone()[0]


def test_ask_shows_no_sentence_without_its_sources_when_recording_fails(full_store: Path):
    recorded = _answers(full_store)
    proc = tether("ask", QUESTION, "--db", full_store)
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    assert error_lines(proc) == ["error: the store failed: database or disk is full"]
    out = text(proc.stdout).splitlines()
    # The sentence was verified and shown; its source and quote follow it, and a line
    # says the answer was not recorded.
    assert out[0] == "Acetone boils at 56 degrees Celsius. [1]"
    assert "Sources" in out
    assert any(line.startswith("[1] boiling — file://") for line in out), out
    assert "    “Acetone boils at 56 degrees Celsius.”" in out
    assert out[-1].startswith("(answer not recorded")
    assert _answers(full_store) == recorded


def test_ask_json_prints_nothing_it_could_not_record(full_store: Path):
    proc = tether("ask", QUESTION, "--json", "--db", full_store)
    assert proc.returncode == 3
    assert proc.stdout == b""
    assert error_lines(proc) == ["error: the store failed: database or disk is full"]


@pytest.mark.parametrize(("value", "shown"), [
    ("a\x1b]0;t\x07b", "a\\x1b]0;t\\x07b"),  # OSC
    ("\x1b[2J", "\\x1b[2J"),  # CSI
    ("\x9b31m", "\\x9b31m"),  # C1 CSI
    ("x\r\ny\tz\x7f", "x\\r\\ny\\tz\\x7f"),
    ("a\u2028b\u2029", "a\\u2028b\\u2029"),
    ("\u202eevil\u2066", "\\u202eevil\\u2066"),  # bidi controls
    ("caf" + os.fsdecode(b"\xe9"), "caf\\xe9"),  # a byte that is not UTF-8
    ("café ☕ \u200d", "café ☕ \u200d"),  # ordinary text untouched
])
def test_printable_escapes_what_a_terminal_would_obey(value: str, shown: str):
    from tether.cli.render import printable

    assert printable(value) == shown
    assert not raw_controls(printable(value).encode())


def test_a_table_row_is_shown_as_its_cells_and_quoted_exactly():
    from tether.cli.render import shown

    assert shown("| Default: | KeepAliveTimeout 5 |") == "Default: KeepAliveTimeout 5"
    assert shown("| Syntax: | DirectoryIndex disabled \\| local-url |") == \
        "Syntax: DirectoryIndex disabled | local-url"
    assert shown("Pipes | inside a sentence stay.") == "Pipes | inside a sentence stay."
    assert shown("### mailbox_size_limit (default: 51200000)") == "mailbox_size_limit (default: 51200000)"
