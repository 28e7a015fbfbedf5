"""An HTML page that declares no charset and is not valid UTF-8 is read as WHATWG
windows-1252, as browsers read it, with a warning (ADR 0038); valid UTF-8 reads as it
always did, and a declared charset is still the author's word.

Every page here is our own.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tether import Tether
from tether.config import Settings
from tether.errors import InputError
from tether.ingest.extract import extract_bytes
from tether.ingest.extract.htmlpage import CharsetWarning, _declared_encoding, decode_html

SRC = str(Path(__file__).resolve().parents[2] / "src")

# An old page in ISO-8859-1 whose meta names the type and no charset.
HEAD = b'<html><head><title>Caf\xe9 notes</title><meta http-equiv="Content-Type" content="text/html"></head>'
BODY = (b"<body><h1>Caf\xe9 r\xe9sum\xe9</h1>"
        b"<p>The caf\xe9 in Ph\xfd sells tea for 3 \x80 a cup, every day of the week.</p>"
        b"<p>A stray \x81 byte and a \x9d byte are kept as the controls they name.</p>"
        b"</body></html>")
LATIN = HEAD + BODY
# What a browser shows for it: each byte its windows-1252 character, 0x81 and 0x9D the
# C1 controls U+0081 and U+009D.
SHOWN = (LATIN.replace(b"\x81", b"").replace(b"\x9d", b"").decode("cp1252")
         .replace("A stray  byte and a  byte", "A stray \x81 byte and a \x9d byte"))

UTF8 = ("<html><head><title>Tea notes</title></head><body><h1>Thé</h1>"
        "<p>The café in Phý sells tea for 3 € a cup; 茶 is tea 🍵, every day.</p></body></html>")

STREAMED = Settings(html_full_extract_max_bytes=64)  # every page here is over it


def _said(byte: int, at: int, line: int) -> str:
    return (f"no charset declared and not valid UTF-8 (byte 0x{byte:02x} at byte offset {at}, "
            f"line {line}): read as windows-1252, as browsers read it")


def _extract(data: bytes, settings: Settings | None = None, media_type: str = "text/html",
             ) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = extract_bytes(data, media_type=media_type, settings=settings or Settings(),
                            name="page.html")
    return out, [str(w.message) for w in caught if issubclass(w.category, CharsetWarning)]


def test_the_decoded_page_is_what_a_browser_shows() -> None:
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        page = decode_html(LATIN, "page.html", None)
    assert page == SHOWN
    assert "Café" in page and "Phý" in page and "3 € a cup" in page
    assert "\x81" in page and "\x9d" in page
    assert _declared_encoding(LATIN, "page.html", None) == (None, 0)  # nothing declared


@pytest.mark.parametrize("settings", [Settings(), STREAMED], ids=["tree", "streamed"])
def test_an_undeclared_latin1_page_ingests_with_its_text(settings: Settings) -> None:
    out, heard = _extract(LATIN, settings)
    # The same characters declared as UTF-8 give the same text on the same path.
    declared = SHOWN.replace("<head>", '<head><meta charset="utf-8">').encode("utf-8")
    same, none = _extract(declared, settings)
    assert out.text == same.text and out.title == same.title == "Café notes"
    assert not none
    assert "The café in Phý sells tea for 3 € a cup" in out.text
    assert out.text.startswith("# Café résumé")
    if settings is STREAMED:
        assert "stream" in out.extractor
        assert "A stray \x81 byte and a \x9d byte" in out.text
    assert heard == [_said(0xE9, LATIN.index(b"\xe9"), 1)]


def test_the_warning_names_the_first_byte_that_is_not_utf8() -> None:
    page = b"<p>line one</p>\n<p>the cafe and then na\xefve</p>"
    out, heard = _extract(page)
    assert heard == [_said(0xEF, page.index(b"\xef"), 2)]
    assert "the cafe and then na\u00efve" in out.text


def test_utf8_with_a_stray_byte_is_still_refused() -> None:
    # UTF-8 "é" (C3 A9), then a latin-1 "ï": read as windows-1252, "é" would be "Ã©".
    page = b"<p>line one</p>\n<p>caf\xc3\xa9 and then na\xefve</p>"
    with pytest.raises(InputError, match="not valid utf-8: byte 0xef"):
        _extract(page)


@pytest.mark.parametrize("settings", [Settings(), STREAMED], ids=["tree", "streamed"])
def test_undeclared_valid_utf8_is_unchanged(settings: Settings) -> None:
    out, heard = _extract(UTF8.encode("utf-8"), settings)
    declared, _ = _extract(UTF8.encode("utf-8"), settings, "text/html; charset=utf-8")
    assert not heard
    assert out.text == declared.text and out.title == declared.title
    assert "The café in Phý sells tea for 3 € a cup; 茶 is tea 🍵, every day." in out.text
    assert decode_html(UTF8.encode("utf-8"), "page.html", None) == UTF8
    # Plain ASCII, and a BOM, read as before too.
    assert decode_html(b"\xef\xbb\xbf" + UTF8.encode("utf-8"), "page.html", None) == UTF8


@pytest.mark.parametrize("declare", [
    pytest.param(lambda page: page.replace(b"<head>", b'<head><meta charset="utf-8">'), id="meta"),
    pytest.param(lambda page: b'<?xml version="1.0" encoding="utf-8"?>' + page, id="xml"),
    pytest.param(lambda page: b"\xef\xbb\xbf" + page, id="bom"),
])
@pytest.mark.parametrize("settings", [Settings(), STREAMED], ids=["tree", "streamed"])
def test_a_declared_charset_that_does_not_decode_is_still_refused(declare, settings) -> None:
    page = declare(LATIN)
    at = page.index(b"\xe9")
    with pytest.raises(InputError) as raised:
        _extract(page, settings)
    message = str(raised.value)
    assert message.startswith(f"page.html: not valid utf-8: byte 0xe9 at byte offset {at} (line 1)")
    assert "\n" not in message


def test_a_transport_charset_is_declared_too() -> None:
    with pytest.raises(InputError, match="not valid utf-8: byte 0xe9 at byte offset 22"):
        _extract(LATIN, media_type="text/html; charset=utf-8")



@pytest.mark.parametrize("label", ["windows-1252", "iso-8859-1", "latin1"])
def test_declared_windows_1252_reads_every_byte_the_same_way(label: str) -> None:
    """The web's windows-1252 (and latin-1, its alias there) reads 0x81 too: declared or
    not, the page is the same text, and a declared one says nothing."""
    undeclared, _ = _extract(LATIN, STREAMED)
    for page, media_type in ((LATIN, f"text/html; charset={label}"),
                             (LATIN.replace(b"<head>", f'<head><meta charset="{label}">'.encode()),
                              "text/html")):
        out, heard = _extract(page, STREAMED, media_type)
        assert not heard and out.text == undeclared.text and "\x81" in out.text


def test_plain_text_is_unchanged() -> None:
    for media_type in ("text/plain", "text/markdown"):
        with pytest.raises(InputError, match="not valid utf-8: byte 0xe9"):
            extract_bytes(b"The caf\xe9 sells tea.", media_type=media_type, settings=Settings())


@pytest.mark.parametrize("settings", [Settings(), STREAMED], ids=["tree", "streamed"])
def test_a_gzipped_undeclared_page(settings: Settings) -> None:
    out, heard = _extract(gzip.compress(LATIN), settings)
    plain, _ = _extract(LATIN, settings)
    assert out.text == plain.text and len(heard) == 1


@pytest.mark.parametrize("settings", [Settings(), STREAMED], ids=["tree", "streamed"])
def test_encoded_surrogates_are_no_utf8_and_leave_none_in_the_text(settings: Settings) -> None:
    page = "<p>Methan\ud800ol boils at 64.7 degrees.</p>".encode("utf-8", "surrogatepass")
    out, heard = _extract(page, settings)
    assert len(heard) == 1 and "byte 0xed" in heard[0]
    assert not any("\ud800" <= c <= "\udfff" for c in out.text)
    out.text.encode("utf-8")
    with pytest.raises(InputError, match="not valid utf-8: byte 0xed"):
        _extract(page, settings, "text/html; charset=utf-8")


def test_a_large_undeclared_page_streams() -> None:
    rows = b"".join(b"<p>Row %d: the caf\xe9 in Ph\xfd sells tea for %d \x80 a cup.</p>\n" % (n, n)
                    for n in range(20_000))
    page = HEAD + b"<body><h1>Caf\xe9 r\xe9sum\xe9</h1>" + rows + b"</body></html>"
    assert len(page) > Settings().html_full_extract_max_bytes
    out, heard = _extract(page)
    assert "stream" in out.extractor and len(heard) == 1
    lines = out.text.split("\n")
    assert lines[0] == "# Café résumé"
    assert lines[1] == "Row 0: the café in Phý sells tea for 0 € a cup."
    assert lines[-1] == "Row 19999: the café in Phý sells tea for 19999 € a cup."


def test_an_upload_reads_the_same(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from tether.service import create_app

    with Tether(tmp_path / "docs.db") as tether, TestClient(create_app(tether)) as client:
        # The service keeps no per-file warnings: this one reaches Python's.
        with pytest.warns(CharsetWarning):
            response = client.post(
                "/v1/documents", files={"file": ("notes.html", LATIN, "text/html")},
                data={"source": "https://example.org/notes.html"},
                headers={"X-Tether-Request": "1"})  # a keyless server's write marker
        assert response.status_code == 201, response.text
        text = client.get(f"/v1/documents/{response.json()['doc_id']}").json()["text"]
    out, _ = _extract(LATIN)
    assert text == out.text


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TETHER_")}
    env["PYTHONPATH"] = SRC
    return subprocess.run([sys.executable, "-m", "tether", *args], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=120, check=False)


def test_the_cli_ingests_it_and_says_so_under_verbose(tmp_path: Path) -> None:
    page = tmp_path / "notes.html"
    page.write_bytes(LATIN)
    quiet = _cli("ingest", str(page), "--db", str(tmp_path / "quiet.db"), cwd=tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    assert "1 ingested" in quiet.stdout and "warning" not in quiet.stderr
    loud = _cli("ingest", str(page), "--db", str(tmp_path / "loud.db"), "--verbose", cwd=tmp_path)
    assert loud.returncode == 0, loud.stderr
    lines = [line for line in loud.stderr.splitlines() if line.startswith("warning:")]
    assert lines == [f"warning: {page}: CharsetWarning: {_said(0xE9, 22, 1)}"]
    with Tether(tmp_path / "loud.db") as tether:
        (document,) = tether.store.documents()
        assert "The café in Phý sells tea for 3 € a cup" in tether.store.version(document.doc_id).text
