"""Error lines through the real CLI process: one line each, the path said once, and
nothing a library logs (the PDF reader's "EOF marker not found") on the terminal;
``ingest --verbose`` shows what the reader said, attributed to its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import make_pdf, run_tether


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    root = tmp_path / "mixed"
    root.mkdir()
    (root / "good.md").write_text("Acetone has a flash point of -20 °C.\n")
    (root / "fake.txt").write_bytes(b"\x00\x01\x02 binary \x00")
    (root / "nopdf.pdf").write_text("just text, no header")
    make_pdf(tmp_path / "full.pdf", ["Toluene boils at 110.6 degrees Celsius."])
    data = (tmp_path / "full.pdf").read_bytes()
    (root / "truncated.pdf").write_bytes(data[: len(data) // 2])  # no %%EOF: pypdf complains
    return root


def test_each_failure_is_one_line_naming_its_path_once(broken: Path, tmp_path: Path) -> None:
    run = run_tether("ingest", str(broken), "--db", str(tmp_path / "t.db"))
    assert run.code == 1
    lines = run.err.splitlines()
    assert len(lines) == 3 and all(line.startswith("failed: ") for line in lines), run.err
    for name in ("fake.txt", "nopdf.pdf", "truncated.pdf"):
        (line,) = [line for line in lines if name in line]
        assert line.count(name) == 1, line
    assert f"failed: {broken / 'fake.txt'}: looks binary" in run.err
    assert "EOF marker" not in run.err and "CAUTION" not in run.err
    assert "1 ingested, 0 updated, 0 unchanged, 3 failed" in run.out


def test_verbose_shows_the_pdf_readers_warnings_on_their_own_lines(broken: Path, tmp_path: Path) -> None:
    run = run_tether("ingest", str(broken / "truncated.pdf"), "--db", str(tmp_path / "t.db"), "--verbose")
    assert run.code == 1
    lines = run.err.splitlines()
    assert lines[0].startswith(f"failed: {broken / 'truncated.pdf'}: corrupt or unreadable PDF")
    assert f"warning: {broken / 'truncated.pdf'}: PDF reader: EOF marker not found" in lines
    assert all(line.startswith(("failed: ", "warning: ")) for line in lines)



def test_a_mistyped_command_is_answered_with_the_nearest_one() -> None:
    run = run_tether("aks", "What is it?")
    assert run.code == 2
    assert run.err.strip() == "error: No such command 'aks'. Did you mean 'ask'? (see 'tether --help')"
    far = run_tether("zzzzqq")
    assert far.code == 2 and "Did you mean" not in far.err and far.err.count("\n") == 1
