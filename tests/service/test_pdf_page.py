"""The original PDF page beside the citation: ``GET .../pages/{n}`` and the web reader.

The PDFs are built here with fpdf2, each line placed by hand, so where every line is
drawn is known from the generator's own geometry (not from the renderer under test);
pypdfium2's glyph boxes are a second, independent witness. The store is written by
the real CLI (``python -m tether ingest``); the browser tests drive a real
``python -m tether serve`` process in headless Chromium.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from tether import Tether, ids
from tether.config import Settings

from .browser import require_browser, visit
from .conftest import SRC, add_key, bearer, serve_process

FONT_PT = 11.0
LEFT_PT = 72.0
# The cited sentence, drawn as two lines at known baselines on page 2.
TARGET = ("The Harlow Bend solvent store holds at most 480 litres of flammable liquid",
          "inside its fire cabinet, which closes by itself within ten seconds.")
TARGET_BASELINES = (300.0, 316.0)
QUESTION = "How many litres of flammable liquid does the Harlow Bend solvent store hold?"
# The transcript's sentence (page 1 of a "scanned" log, ingested as transcribed text).
LOG_LINE = "The night shift logged the Ridgeport boiler pressure at 7 bar on 3 March."
LOG_BASELINE = 200.0
LOG_QUESTION = "What boiler pressure did the night shift log at Ridgeport?"


@dataclass(frozen=True)
class Line:
    text: str
    baseline: float  # PDF points from the top of the page
    left: float
    right: float


def _pdf(pages: list[list[tuple[str, float]]], title: str) -> tuple[bytes, list[list[Line]]]:
    """A PDF of ``pages`` (lines of (text, baseline)), with each line's drawn extent."""
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(datetime(2026, 1, 5, tzinfo=timezone.utc))
    pdf.set_title(title)
    pdf.set_font("Helvetica", size=FONT_PT)
    drawn: list[list[Line]] = []
    for lines in pages:
        pdf.add_page()
        drawn.append([])
        for text, baseline in lines:
            pdf.text(LEFT_PT, baseline, text)
            width = pdf.get_string_width(text)
            drawn[-1].append(Line(text, baseline, LEFT_PT, LEFT_PT + width))
    return bytes(pdf.output()), drawn


def _manual() -> tuple[bytes, list[list[Line]]]:
    filler = [
        ("Storage manual for the Harlow Bend site, prepared by the site safety office.", 90.0),
        ("Chapter one describes the yard, the gates and the loading bays of the site.", 106.0),
    ]
    page2 = [
        ("General handling notes for the warehouse team are collected on this page.", 120.0),
        ("Every delivery is checked against its paperwork before it is unloaded.", 136.0),
        (TARGET[0], TARGET_BASELINES[0]),
        (TARGET[1], TARGET_BASELINES[1]),
        ("Empty drums are returned to the supplier at the end of each month.", 420.0),
    ]
    page3 = [("Chapter three lists the contacts of the site safety office.", 90.0)]
    return _pdf([filler, page2, page3], "Harlow Bend storage manual")


def _cli(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-m", "tether", *args], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@dataclass(frozen=True)
class Corpus:
    db: Path
    folder: Path
    manual: list[list[Line]]
    log: list[list[Line]]
    docs: dict[str, str]  # name -> doc_id


def _doc_ids(db: Path, folder: Path) -> dict[str, str]:
    """Each file's document id, as ingest derives it from the file's URI."""
    with Tether(db, settings=Settings(), create=False) as tether:
        found = {name: ids.doc_id_for((folder / name).resolve().as_uri())
                 for name in ("manual.pdf", "log.pdf", "memo.pdf", "notes.txt", "gone.pdf",
                              "edited.pdf")}
        assert all(tether.store.document(d) is not None for d in found.values())
        return found


def build_corpus(root: Path) -> Corpus:
    folder = root / "files"
    folder.mkdir(parents=True)
    manual, manual_lines = _manual()
    (folder / "manual.pdf").write_bytes(manual)
    log, log_lines = _pdf([[("Boiler room log, Ridgeport, week 10.", 90.0), (LOG_LINE, LOG_BASELINE)]],
                          "Boiler room log (scan)")
    (folder / "log.pdf").write_bytes(log)
    memo, _ = _pdf([[("The Kestrel budget owner is Ines Varga, the finance memo says.", 120.0)]],
                   "Finance memo")
    (folder / "memo.pdf").write_bytes(memo)
    (folder / "notes.txt").write_text("Site notes.\n\nThe yard gate of the Harlow Bend site is "
                                      "painted green and blue.\n")
    for name in ("gone.pdf", "edited.pdf"):
        (folder / name).write_bytes(_pdf([[(f"This file ({name}) is about the Ridgeport canteen.", 90.0)]],
                                         name)[0])
    db = root / "pages.db"
    common = ["--db", str(db), "--license", "CC0", "--fetched-at", "2026-01-05"]
    _cli("ingest", *common, str(folder / "manual.pdf"), str(folder / "notes.txt"),
         str(folder / "gone.pdf"), str(folder / "edited.pdf"))
    _cli("ingest", *common, "--kind", "transcribed", "--process", "OCR: tesseract 5",
         str(folder / "log.pdf"))
    _cli("ingest", *common, "--acl", "finance", str(folder / "memo.pdf"))
    return Corpus(db, folder, manual_lines, log_lines, _doc_ids(db, folder))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return build_corpus(tmp_path_factory.mktemp("pdfpages"))


def _version(tether: Tether, doc_id: str) -> Any:
    found = tether.store.version(doc_id)
    assert found is not None
    return found


def _range_of(text: str, quote: str) -> tuple[int, int]:
    start = text.index(quote)
    return start, start + len(quote)


def _expected_rect(line: Line, height: float, width: float) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a drawn line, as page fractions: from fpdf2's geometry."""
    ascent, descent = FONT_PT * 0.72, FONT_PT * 0.22  # Helvetica caps and descenders
    return (line.left / width, (line.baseline - ascent) / height,
            line.right / width, (line.baseline + descent) / height)


def _pdfium_glyphs(data: bytes, page: int, phrase: str) -> list[tuple[float, float, float, float]]:
    """Tight glyph boxes of ``phrase`` on ``page`` by pypdfium2's own search, as page fractions."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        handle = pdf[page - 1]
        width, height = handle.get_size()
        textpage = handle.get_textpage()
        searcher = textpage.search(phrase, match_case=True)
        found = searcher.get_next()
        assert found, f"pdfium does not find {phrase!r} on page {page}"
        index, count = found
        boxes = []
        for i in range(index, index + count):
            left, bottom, right, top = textpage.get_charbox(i)
            if right > left:
                boxes.append((left / width, (height - top) / height, right / width,
                              (height - bottom) / height))
        searcher.close()
        textpage.close()
        handle.close()
        return boxes
    finally:
        pdf.close()


def _inside(glyph: tuple[float, ...], rects: list[tuple[float, ...]], slack: float = 0.003) -> bool:
    return any(r[0] - slack <= glyph[0] and glyph[2] <= r[2] + slack
               and r[1] - slack <= glyph[1] and glyph[3] <= r[3] + slack for r in rects)


def _check_boxes(rects: list[tuple[float, ...]], lines: list[Line], data: bytes, page: int,
                 phrases: tuple[str, ...]) -> None:
    """One rect per drawn line of the citation, at that line's place, covering its glyphs."""
    width, height = 595.28, 841.89  # A4 in points
    assert len(rects) == len(lines), (rects, lines)
    for rect, line in zip(sorted(rects, key=lambda r: r[1]), lines, strict=True):
        left, top, right, bottom = _expected_rect(line, height, width)
        assert abs(rect[0] - left) < 0.006, ("left edge", rect, left)
        assert abs(rect[2] - right) < 0.006, ("right edge", rect, right)
        # The box spans the line's glyphs vertically and stays off the neighbouring lines.
        assert rect[1] <= top + 0.002 and rect[3] >= (line.baseline - 1) / height, (rect, line)
        assert rect[1] > (line.baseline - 2 * FONT_PT) / height, (rect, line)
        assert rect[3] < (line.baseline + FONT_PT) / height, (rect, line)
    for phrase in phrases:
        for glyph in _pdfium_glyphs(data, page, phrase):
            assert _inside(glyph, rects), (phrase, glyph, rects)


# -- the API ------------------------------------------------------------------------------


@pytest.fixture
def api_for(corpus: Corpus, client_for, tmp_path: Path):
    def make(**settings: Any) -> tuple[Any, Tether]:
        # A copy per client: keys added by one test do not close the store to the next.
        copy = tmp_path / f"pages-{len(opened)}.db"
        shutil.copy(corpus.db, copy)
        tether = Tether(copy, settings=Settings(**settings), create=False)
        opened.append(tether)
        return client_for(tether), tether

    opened: list[Tether] = []
    yield make
    for tether in opened:
        tether.close()


def test_the_boxes_of_a_cited_range_are_where_its_lines_are_drawn(corpus, api_for):
    client, tether = api_for()
    doc = corpus.docs["manual.pdf"]
    version = _version(tether, doc)
    quote = f"{TARGET[0]}\n{TARGET[1]}"
    start, end = _range_of(version.text, quote)
    base = f"/v1/documents/{doc}/versions/{version.version}/pages"
    got = client.get(f"{base}/2", params={"start": start, "end": end})
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["page"] == 2 and body["pages"] == 3 and body["aligned"] is True
    assert body["region"]["label"] == "page 2" and body["range"] == {"start": start, "end": end}
    rects = [(b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]) for b in body["boxes"]]
    data = (corpus.folder / "manual.pdf").read_bytes()
    _check_boxes(rects, corpus.manual[1][2:4], data, 2, ("480 litres", "ten seconds"))
    # Half a line: the box ends where the cut ends, not at the end of the line.
    half = client.get(f"{base}/2", params={"start": start, "end": start + len("The Harlow Bend")})
    (box,) = half.json()["boxes"]
    assert box["x"] + box["width"] < (LEFT_PT + 100) / 595.28

    png = client.get(body["image"]["url"])
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"
    import struct

    w, h = struct.unpack(">II", png.content[16:24])
    assert (w, h) == (round(595.28 * 1.5 + 0.5), round(841.89 * 1.5 + 0.5)) or abs(w - 893) <= 1


def test_boxes_follow_a_rotated_page(corpus, tmp_path, client_for):
    """A page displayed turned (/Rotate 90): the boxes turn with it, one per line."""
    import pypdf

    writer = pypdf.PdfWriter(clone_from=str(corpus.folder / "manual.pdf"))
    writer.pages[1].rotate(90)
    turned = tmp_path / "turned.pdf"
    with turned.open("wb") as out:
        writer.write(out)
    db = tmp_path / "turned.db"
    _cli("ingest", "--db", str(db), str(turned))
    with Tether(db, settings=Settings(), create=False) as tether:
        doc = ids.doc_id_for(turned.resolve().as_uri())
        version = _version(tether, doc)
        start, end = _range_of(version.text, f"{TARGET[0]}\n{TARGET[1]}")
        got = client_for(tether).get(f"/v1/documents/{doc}/versions/{version.version}/pages/2",
                                     params={"start": start, "end": end}).json()
    assert (got["width_pt"], got["height_pt"]) == (841.89, 595.28)  # displayed landscape
    width, height = 595.28, 841.89  # the page as drawn, before the turn
    boxes = sorted(got["boxes"], key=lambda b: -b["x"])  # the first line is rightmost
    assert len(boxes) == 2
    for box, line in zip(boxes, corpus.manual[1][2:4], strict=True):
        left, top, right, bottom = _expected_rect(line, height, width)
        # Turned a quarter clockwise: the drawn line runs down the page, its top to the right.
        assert abs(box["y"] - left) < 0.006 and abs(box["y"] + box["height"] - right) < 0.006
        assert box["x"] <= 1 - bottom + 0.004 and box["x"] + box["width"] >= 1 - top - 0.004
        assert box["x"] > 1 - (line.baseline + FONT_PT) / height


def test_a_page_without_a_range_has_no_boxes_and_page_limits_hold(corpus, api_for):
    client, tether = api_for(max_page_pixels=100_000)
    doc = corpus.docs["manual.pdf"]
    base = f"/v1/documents/{doc}/versions/{_version(tether, doc).version}/pages"
    plain = client.get(f"{base}/3").json()
    assert plain["boxes"] == [] and plain["range"] is None and plain["aligned"] is False
    # max_page_pixels lowers the scale: the image has at most that many pixels.
    import struct

    png = client.get(f"{base}/3.png").content
    w, h = struct.unpack(">II", png[16:24])
    assert w * h <= 100_000 and w > 200
    for page, status in (("4", 404), ("4.png", 404), ("0", 422), ("99999999999999999999", 404),
                         ("99999999999999999999.png", 404), ("two", 422)):
        got = client.get(f"{base}/{page}")
        assert got.status_code == status, (page, got.text)
        assert got.headers["content-type"] == "application/problem+json"
    text = _version(tether, doc).text
    off_page = client.get(f"{base}/1", params={"start": len(text) - 10, "end": len(text)})
    assert off_page.status_code == 400 and "not on page 1" in off_page.json()["detail"]
    assert client.get(f"{base}/1", params={"start": 5}).status_code == 400
    assert client.get(f"{base}/1", params={"start": 0, "end": len(text) + 1}).status_code == 400


def test_a_document_the_caller_cannot_read_is_not_found(corpus, api_for):
    client, tether = api_for()
    doc = corpus.docs["memo.pdf"]
    version = _version(tether, doc).version
    finance = add_key(tether, "finance-reader", "finance")
    public = add_key(tether, "public-reader")
    url = f"/v1/documents/{doc}/versions/{version}/pages/1"
    assert client.get(url, headers=bearer(finance)).status_code == 200
    assert client.get(url + ".png", headers=bearer(finance)).status_code == 200
    unknown = client.get(f"/v1/documents/doc_00000000000000000000/versions/{version}/pages/1",
                         headers=bearer(public))
    for path in (url, url + ".png"):
        hidden = client.get(path, headers=bearer(public))
        assert hidden.status_code == 404
        assert hidden.headers["content-type"] == "application/problem+json"
        assert hidden.json()["detail"] == unknown.json()["detail"] == "no such document"
    assert client.get(url).status_code == 401  # keys exist now: anonymous is refused


def test_a_text_document_has_no_pages(corpus, api_for):
    client, tether = api_for()
    doc = corpus.docs["notes.txt"]
    got = client.get(f"/v1/documents/{doc}/versions/{_version(tether, doc).version}/pages/1")
    assert got.status_code == 404 and got.headers["content-type"] == "application/problem+json"
    assert "not a PDF" in got.json()["detail"]


def test_a_missing_or_changed_original_is_a_conflict(corpus, api_for):
    client, tether = api_for()
    gone, edited = corpus.docs["gone.pdf"], corpus.docs["edited.pdf"]
    gone_url = f"/v1/documents/{gone}/versions/{_version(tether, gone).version}/pages/1"
    edited_url = f"/v1/documents/{edited}/versions/{_version(tether, edited).version}/pages/1"
    assert client.get(gone_url).status_code == 200
    assert client.get(edited_url).status_code == 200  # and now it is cached as verified
    (corpus.folder / "gone.pdf").unlink()
    (corpus.folder / "edited.pdf").write_bytes(
        _pdf([[("This file was edited after it was ingested.", 90.0)]], "edited")[0])
    for url, words in ((gone_url, "not available"), (edited_url, "changed since")):
        for path in (url, url + ".png"):
            got = client.get(path)
            assert got.status_code == 409, got.text
            assert got.headers["content-type"] == "application/problem+json"
            assert words in got.json()["detail"]


def test_pages_render_only_inside_page_roots(corpus, api_for, tmp_path):
    client, tether = api_for(page_roots=str(tmp_path))
    doc = corpus.docs["manual.pdf"]
    got = client.get(f"/v1/documents/{doc}/versions/{_version(tether, doc).version}/pages/1")
    assert got.status_code == 409 and "outside page_roots" in got.json()["detail"]
    client, tether = api_for(page_roots=str(corpus.folder))
    assert client.get(f"/v1/documents/{doc}/versions/{_version(tether, doc).version}/pages/1").status_code == 200


def test_an_upload_cannot_point_the_renderer_at_another_file(corpus, api_for):
    """An uploaded document naming a server file as its source gets no page of that file
    unless its text is exactly that file's text (then the caller already holds it)."""
    client, _ = api_for()
    secret = (corpus.folder / "manual.pdf").resolve().as_uri() + "#copy"
    decoy, _ = _pdf([[("A decoy page that says nothing about the manual.", 90.0)]], "decoy")
    for source in ((corpus.folder / "memo.pdf").resolve().as_uri(), secret):
        up = client.post("/v1/documents", json={
            "source": source, "title": "decoy", "media_type": "application/pdf",
            "content_base64": base64.b64encode(decoy).decode()})
        assert up.status_code in (201, 403), up.text
        if up.status_code == 403:
            continue  # memo.pdf is finance-only: a public caller cannot write over it
        body = up.json()
        got = client.get(f"/v1/documents/{body['doc_id']}/versions/{body['version']}/pages/1")
        assert got.status_code == 409, got.text


def test_the_route_is_in_the_openapi_document(corpus, api_for):
    client, _ = api_for()
    paths = client.get("/openapi.json").json()["paths"]
    assert "/v1/documents/{doc_id}/versions/{version}/pages/{page}" in paths
    assert "/v1/documents/{doc_id}/versions/{version}/pages/{page}.png" in paths


# -- the web reader -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def reader_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Corpus]]:
    require_browser()
    corpus = build_corpus(tmp_path_factory.mktemp("pdfreader"))
    with serve_process(corpus.db) as (url, _):
        yield url, corpus


def _open_citation(v: Any, question: str) -> dict[str, Any]:
    v.ask(question)
    assert v.finished() == "done", v.state("window.tetherReader.answer")
    citation: dict[str, Any] = v.state("window.tetherReader.answer.sentences[0].citations[0]")
    v.page.locator("#answer .sentence").first.locator("button.cite").first.click()
    v.page.wait_for_selector("#docview[data-state=ready]")
    v.page.wait_for_selector("#doc-page[data-state=ready]", state="attached")
    return citation


def _highlight_rects(v: Any) -> list[tuple[float, float, float, float]]:
    """The drawn highlight boxes as fractions of the page image, from the layout itself."""
    rects: list[tuple[float, float, float, float]] = v.state("""(() => {
      const img = document.getElementById('doc-page-img').getBoundingClientRect();
      return Array.from(document.querySelectorAll('#doc-page-frame .page-hl')).map((m) => {
        const r = m.getBoundingClientRect();
        return [(r.left - img.left) / img.width, (r.top - img.top) / img.height,
                (r.right - img.left) / img.width, (r.bottom - img.top) / img.height];
      });
    })()""")
    return rects


def test_a_pdf_citation_shows_its_page_with_the_cited_lines_boxed(browser, reader_url):
    url, corpus = reader_url
    with visit(browser, url, width=1440, height=900) as v:
        citation = _open_citation(v, QUESTION)
        assert citation["region"] == "page 2"
        assert " ".join(citation["quote"].split()) == " ".join(TARGET)
        page = v.page
        assert page.get_attribute("#doc-page", "data-page") == "2"
        assert page.get_attribute("#doc-page", "data-aligned") == "true"
        # The image is the real page: decoded, with the PNG's own size.
        natural = v.state("[document.getElementById('doc-page-img').naturalWidth,"
                          " document.getElementById('doc-page-img').naturalHeight]")
        assert abs(natural[0] - 893) <= 1 and abs(natural[1] - 1263) <= 1
        rects = _highlight_rects(v)
        data = (corpus.folder / "manual.pdf").read_bytes()
        _check_boxes(rects, corpus.manual[1][2:4], data, 2, ("480 litres", "ten seconds"))
        # Beside the text view, which still highlights the exact range.
        text_box = page.locator("#doc-text").bounding_box()
        page_box = page.locator("#doc-page").bounding_box()
        assert page_box["x"] >= text_box["x"] + text_box["width"] - 1
        assert page.locator("#doc-highlight").text_content() == citation["quote"]
        # The first box is scrolled into view inside the page's own scroller.
        first = page.locator("#doc-page-frame .page-hl").first.bounding_box()
        frame = page.locator("#doc-page .page-scroll").bounding_box()
        assert frame["y"] <= first["y"] and first["y"] + first["height"] <= frame["y"] + frame["height"]
        v.screenshot("pdf-page-citation")


def test_derived_text_points_at_its_region_on_the_original_page(browser, reader_url):
    url, corpus = reader_url
    with visit(browser, url, width=1440, height=900) as v:
        citation = _open_citation(v, LOG_QUESTION)
        assert citation["kind"] == "transcribed"
        marks = v.page.locator("#doc-page-frame .page-hl")
        assert marks.count() == 1 and "derived" in (marks.first.get_attribute("class") or "")
        assert "region" in v.page.locator("#doc-page-label").inner_text()
        rects = _highlight_rects(v)
        data = (corpus.folder / "log.pdf").read_bytes()
        _check_boxes(rects, corpus.log[0][1:2], data, 1, ("7 bar",))
        v.screenshot("pdf-page-derived")


def test_a_non_pdf_citation_shows_no_page(browser, reader_url):
    url, _ = reader_url
    with visit(browser, url) as v:
        v.ask("What colour is the yard gate of the Harlow Bend site painted?")
        assert v.finished() == "done"
        # The sentence quoted from notes.txt (the manual may be cited beside it).
        v.page.locator("#answer .sentence", has_text="painted green").first.locator("button.cite").first.click()
        v.page.wait_for_selector("#docview[data-state=ready]")
        assert v.page.locator("#doc-page").is_hidden()
        assert v.page.get_attribute("#docview", "data-page") == "none"


def test_page_bounds_are_checked_settings():
    from tether.config import load_settings
    from tether.errors import ConfigError

    assert load_settings(page_scale=2.0).page_scale == 2.0
    for bad in ({"page_scale": 0}, {"page_scale": 9}, {"max_page_pixels": 0}):
        with pytest.raises(ConfigError):
            load_settings(**bad)


def test_the_page_of_a_file_whose_name_is_not_utf8_is_rendered(tmp_path, client_for):
    folder = tmp_path / "files"
    folder.mkdir()
    data, _ = _pdf([[("The Ridgeport canteen opens at seven.", 90.0)]], "Canteen")
    name = os.fsencode(folder) + b"/caf\xe9.pdf"  # Latin-1 bytes: not UTF-8
    with open(name, "wb") as handle:
        handle.write(data)
    db = tmp_path / "latin.db"
    _cli("ingest", "--db", str(db), str(folder))
    with Tether(db, settings=Settings(), create=False) as tether:
        (doc,) = tether.store.documents()
        assert "%E9" in doc.source.upper()
        version = _version(tether, doc.doc_id)
        got = client_for(tether).get(f"/v1/documents/{doc.doc_id}/versions/{version.version}/pages/1")
        assert got.status_code == 200, got.text
        assert client_for(tether).get(got.json()["image"]["url"]).status_code == 200
