"""Every resource limit: documented, configurable (tether.toml or TETHER_ variable), and
enforced with an error that names the setting to raise. Through ``tether ingest`` a
file over a limit fails alone with one line, and leaves nothing in the store."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from cli.clirun import run
from fpdf import FPDF

from tether.config import Settings, load_settings
from tether.errors import ConfigError, InputError, LimitExceeded
from tether.ingest.extract import extract_bytes
from tether.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
LIMITS = ("max_file_bytes", "max_text_chars", "max_pdf_pages", "max_html_depth",
          "max_decompression_ratio", "max_question_chars", "max_request_bytes",
          "max_json_depth", "max_json_number_chars")
ARTICLE = "<p>Nitrile gloves resist most solvents for short contact with splashes.</p>"


def _pdf(pages: int) -> bytes:
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    for n in range(pages):
        pdf.add_page()
        pdf.multi_cell(0, 10, f"Page {n + 1}: the flange bolts are torqued to {40 + n} Nm.")
    return bytes(pdf.output())


def _pdf_with_stream(content: bytes) -> bytes:
    from ingest.test_extract import pdf_with_stream

    return pdf_with_stream(content)


def _nested_html(depth: int) -> bytes:
    return ("<html><body>" + "<div>" * depth + "<p>Deep text about gloves.</p>"
            + "</div>" * depth + "</body></html>").encode()


# (setting, value that refuses the input, file name, bytes)
CASES = [
    ("max_file_bytes", 100, "big.txt", b"Acetone is flammable. " * 20),
    ("max_text_chars", 100, "long.md", b"# Long\n\n" + b"Acetone is flammable. " * 20),
    ("max_pdf_pages", 2, "three.pdf", _pdf(3)),
    ("max_html_depth", 20, "deep.html", _nested_html(30)),
    # ~1,000x: far beyond what the default ratio (100) allows over the 1 MiB floor.
    ("max_decompression_ratio", 100, "bomb.html",
     gzip.compress(b"<html><body>" + ARTICLE.encode() + b" " * (3 * 1024 * 1024) + b"</body></html>")),
]


@pytest.mark.parametrize("setting, value, name, data", CASES, ids=[c[0] for c in CASES])
def test_each_limit_refuses_and_names_its_setting(tmp_path, monkeypatch, setting, value, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    db = tmp_path / "store.db"
    monkeypatch.setenv(f"TETHER_{setting.upper()}", str(value))
    code, out, err = run("ingest", str(path), "--db", str(db))
    assert code == 1, (out, err)
    failed = [line for line in err.splitlines() if line.startswith("failed: ")]
    assert len(failed) == 1 and setting in failed[0], err
    assert "Traceback" not in err
    store = SQLiteStore(db)
    try:
        assert store.counts()["documents"] == 0 and store.counts()["passages"] == 0
    finally:
        store.close()
    # Raised far enough, the same file is ingested.
    monkeypatch.setenv(f"TETHER_{setting.upper()}", str(value * 1000))
    code, out, err = run("ingest", str(path), "--db", str(db))
    assert code == 0 and "1 ingested" in out, (out, err)


def test_the_ratio_bounds_pdf_streams(settings: Settings) -> None:
    text = b"BT /F1 12 Tf 72 700 Td (Flange torque 45 Nm) Tj ET\n"
    bomb = _pdf_with_stream(text + b" " * (5 * 1024 * 1024))  # 5 MiB stream in ~5 KiB
    assert len(bomb) < 20_000
    with pytest.raises(LimitExceeded, match="max_decompression_ratio"):
        extract_bytes(bomb, media_type="application/pdf", settings=settings)
    generous = settings.replace(max_decompression_ratio=5_000)
    assert extract_bytes(bomb, media_type="application/pdf", settings=generous).text == (
        "Flange torque 45 Nm")


def test_small_files_are_never_refused_for_their_ratio(settings: Settings) -> None:
    # 500 KiB of markup in a ~1 KiB gzip: a ratio of ~500, but under the 1 MiB floor.
    page = b"<html><body>" + ARTICLE.encode() + b"<br>" * 120_000 + b"</body></html>"
    packed = gzip.compress(page)
    assert len(page) / len(packed) > 100
    assert "Nitrile" in extract_bytes(packed, media_type="text/html", settings=settings).text


def test_gzip_inflation_also_stops_at_max_file_bytes(settings: Settings) -> None:
    packed = gzip.compress(b"<p>" + b"A" * 300_000 + b"</p>")
    with pytest.raises(LimitExceeded, match="max_file_bytes"):
        extract_bytes(packed, media_type="text/html",
                      settings=settings.replace(max_file_bytes=200_000, max_decompression_ratio=10_000))


def test_max_question_chars(tmp_path, monkeypatch) -> None:
    doc = tmp_path / "a.txt"
    doc.write_text("Acetone is flammable.")
    db = str(tmp_path / "store.db")
    assert run("ingest", str(doc), "--db", db)[0] == 0
    monkeypatch.setenv("TETHER_MAX_QUESTION_CHARS", "20")
    code, out, err = run("ask", "Is acetone flammable or is it not flammable?", "--db", db)
    assert code == 2 and out == ""
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "max_question_chars" in errors[0]


@pytest.mark.parametrize("setting", LIMITS)
@pytest.mark.parametrize("value", ["0", "-5"])
def test_a_limit_below_one_is_a_config_error(monkeypatch, setting, value) -> None:
    monkeypatch.setenv(f"TETHER_{setting.upper()}", value)
    with pytest.raises(ConfigError, match=setting):
        load_settings()


def test_limits_are_settings_with_their_reason_and_are_documented() -> None:
    source = (ROOT / "src" / "tether" / "config.py").read_text()
    readme = (ROOT / "README.md").read_text()
    security = (ROOT / "SECURITY.md").read_text()
    for setting in LIMITS:
        assert setting in Settings.__dataclass_fields__
        assert re.search(rf"^\| `{setting}` \| [^|]+ \| [^|]+ \|$", readme, re.M), setting
        assert f"`{setting}`" in security, setting
        # A why-comment sits above the field (or above the group it belongs to).
        block = source[: source.index(f"    {setting}:")].rstrip().splitlines()
        assert any(line.strip().startswith("#") for line in block[-3:]), setting


def test_input_error_is_the_parent(settings: Settings) -> None:
    # Callers that catch InputError (the CLI's "failed:" line, the service's 413/422)
    # see limit errors too.
    assert issubclass(LimitExceeded, InputError)


@pytest.mark.parametrize("limit, kept", [(1_000, 300), (100, 101)])
def test_a_file_that_grew_after_its_stat_is_read_to_the_limit(tmp_path, monkeypatch, limit, kept) -> None:
    """read_file reads what fstat saw plus one byte; a file longer by then is read on,
    up to max_file_bytes + 1, so extract_bytes still refuses one grown past the limit."""
    import os

    from tether.ingest.extract import read_file

    path = tmp_path / "growing.txt"
    path.write_text("x" * 300, encoding="utf-8")
    real_fstat = os.fstat

    def stale_fstat(fd):  # the size it had before the writer appended to it
        info = real_fstat(fd)
        return os.stat_result((*info[:6], 10, *info[7:]))

    monkeypatch.setattr(os, "fstat", stale_fstat)
    settings = Settings(max_file_bytes=limit)
    data, media_type = read_file(path, settings=settings)
    assert (len(data), media_type) == (kept, "text/plain")
    if kept > limit:
        with pytest.raises(LimitExceeded, match="max_file_bytes"):
            extract_bytes(data, media_type=media_type, settings=settings)
