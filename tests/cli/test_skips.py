"""What a folder walk passes over is counted by reason in the ingest summary, each
path listed under ``--verbose``; an unreadable folder is reported; a manifest entry
whose file is missing is a failure of that entry. Through the real CLI process."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from .conftest import run_tether
from .unprivileged import run_unprivileged, unprivileged_prefix

SUMMARY = re.compile(
    r"^(\d+) ingested, (\d+) updated, (\d+) unchanged, (\d+) failed, (\d+) skipped \((.*)\) → ",
    re.MULTILINE,
)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("Acetone has a flash point of -20 °C.\n")
    (root / "sub" / "b.txt").write_text("Ammonia has a sharp smell.\n")
    (root / "c.html").write_text("<html><body><p>Chlorine is greenish-yellow.</p></body></html>")
    for name in ("one.png", "two.png", "sub/three.bin", "sub/four.png", "sub/five.bin",
                 "six.docx", "seven.jpg", "eight"):
        (root / name).write_bytes(b"\x89PNG\x00")
    (root / ".hidden.txt").write_text("Hidden text.\n")
    (root / ".cache").mkdir()
    (root / ".cache" / "x.txt").write_text("Cached text.\n")
    os.mkfifo(root / "pipe.txt")
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    return root


def _summary(out: str) -> tuple[list[int], str]:
    found = SUMMARY.search(out)
    assert found, out
    return [int(n) for n in found.groups()[:5]], found.group(6)


def test_skips_are_counted_by_reason_in_the_summary(folder: Path, tmp_path: Path) -> None:
    run = run_tether("ingest", str(folder), "--db", str(tmp_path / "t.db"))
    assert run.code == 0, run.err
    counts, detail = _summary(run.out)
    assert counts == [3, 0, 0, 0, 12]
    assert detail.startswith(
        "8 unsupported type, 2 hidden, 2 not a regular file; 3 files, "
    ), detail
    assert run.err == ""  # skips by type are counted, not listed, without --verbose


def test_verbose_lists_each_skipped_path_with_its_reason(folder: Path, tmp_path: Path) -> None:
    run = run_tether("ingest", str(folder), "--db", str(tmp_path / "t.db"), "--verbose")
    assert run.code == 0
    lines = sorted(run.err.splitlines())
    assert len(lines) == 12 and all(line.startswith("skipped: ") for line in lines)
    assert f"skipped: {folder / 'sub' / 'three.bin'} (unsupported type: .bin)" in lines
    assert f"skipped: {folder / 'eight'} (unsupported type: no extension)" in lines
    assert f"skipped: {folder / '.cache'} (hidden: a folder, not walked)" in lines
    assert f"skipped: {folder / '.hidden.txt'} (hidden)" in lines
    assert f"skipped: {folder / 'pipe.txt'} (not a regular file: a FIFO, socket or device)" in lines
    assert f"skipped: {folder / 'dangling.md'} (not a regular file: a broken link)" in lines


def test_a_folder_of_nothing_ingestible_says_what_it_skipped(tmp_path: Path) -> None:
    (tmp_path / "imgs").mkdir()
    for name in ("a.png", "b.png", "c.bin"):
        (tmp_path / "imgs" / name).write_bytes(b"\x00")
    run = run_tether("ingest", str(tmp_path / "imgs"), "--db", str(tmp_path / "t.db"))
    assert run.code == 2 and run.out == ""
    assert "no ingestible files found" in run.err and "skipped: 3 unsupported type" in run.err
    assert len(run.err.strip().splitlines()) == 1


def test_empty_files_are_skipped_not_failed_on_every_run(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "empty.txt").write_bytes(b"")
    (root / "blank.md").write_text("  \n\t\n")
    (root / "bare.html").write_bytes(b"")
    for _ in range(2):  # a scheduled ingest: the same answer each time, never an alert
        run = run_tether("ingest", str(root), "--db", str(tmp_path / "t.db"))
        assert run.code == 0 and run.err == "", run.err
        counts, detail = _summary(run.out)
        assert counts == [0, 0, 0, 0, 3] and detail.startswith("3 empty; 0 files, "), detail
    (root / "real.txt").write_text("Ammonia has a sharp smell.\n")
    named = run_tether("ingest", str(root / "empty.txt"), str(root / "real.txt"), "--db",
                       str(tmp_path / "t.db"), "--verbose")
    assert named.code == 0
    assert _summary(named.out)[0] == [1, 0, 0, 0, 1] and "1 file," in named.out
    assert f"skipped: {root / 'empty.txt'} (empty: no text)" in named.err.splitlines()


def test_an_unreadable_folder_is_reported(folder: Path, tmp_path: Path) -> None:
    prefix = unprivileged_prefix(tmp_path)
    locked = folder / "locked"
    locked.mkdir()
    (locked / "secret.txt").write_text("Locked away.\n")
    os.chmod(locked, 0)
    try:
        code, out, err = run_unprivileged(prefix, "ingest", str(folder), "--db", str(tmp_path / "t.db"))
    finally:
        os.chmod(locked, 0o755)
    assert code == 0, err
    counts, detail = _summary(out)
    assert counts[0] == 3 and counts[4] == 13 and "1 unreadable folder" in detail
    assert err.splitlines() == [f"skipped: {locked} (unreadable folder: Permission denied)"]


def test_a_manifest_entry_without_its_file_is_a_failure(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.md").write_text("Acetone has a flash point of -20 °C.\n")
    manifest = root / "manifest.json"
    manifest.write_text(json.dumps({"documents": [
        {"path": "a.md", "title": "Acetone"},
        {"path": "gone.md", "title": "Gone"},
        {"path": "../elsewhere.md", "title": "Not under the paths ingested"},
    ]}))
    run = run_tether("ingest", str(root), "--manifest", str(manifest), "--db", str(tmp_path / "t.db"))
    assert run.code == 1
    counts, _ = _summary(run.out)
    assert counts == [1, 0, 0, 1, 0]  # the manifest itself is read, not skipped
    assert run.err.splitlines() == [
        f"failed: {root.resolve() / 'gone.md'}: listed in the manifest, but there is no such file"
    ]
