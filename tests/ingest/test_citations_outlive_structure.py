"""Citations issued before structure-aware segmentation still resolve to the same text.

The store is built with the previous release's code path, kept here verbatim where it
changed: its passage packing (greedy runs of whole sentences), its line rule in the
sentence splitter (any indented or short line ends a sentence) and its HTML text (no
heading marks). Every sentence of every passage is cited the way the guard cuts a
citation. Then today's code opens the store, re-ingests the same files and re-segments
them: every citation resolves ``exact`` or ``relocated`` onto the very same quote (the
few that ran into a heading line match across the mark extraction now puts there).
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from citehelp import cite

import tether
from tether import ids
from tether.config import Settings
from tether.ingest import plan
from tether.ingest.extract import html as html_extract
from tether.ingest.extract import read_file
from tether.ingest.reindex import reindex
from tether.ingest.segment import Cut
from tether.ingest.files import Metadata
from tether.ingest.write import ingest_bytes, ingest_file
from tether.ops.cite import resolve
from tether.store.sqlite import SQLiteStore
from tether.text import sentences
from tether.text.sentences import Span, sentence_spans

from .test_extract import DOCBOOK
from .test_structure import GREP, MARKDOWN

CORPUS = Path(tether.__file__).parent / "demo" / "corpus"
NODE_PAGE = """<html><head><title>Stream | Node.js</title></head><body><main>
<h1>Stream</h1><p>A stream is an abstract interface for working with streaming data.</p>
<h2>Buffering<a href="#b">#</a></h2>
<p>Both Writable and Readable streams will store data in an internal buffer.
The amount of data potentially buffered depends on the highWaterMark option passed into
the stream's constructor.</p>
<h3>new stream.Duplex(options)</h3>
<ul><li>options &lt;Object&gt; Passed to both constructors.<ul>
<li>allowHalfOpen &lt;boolean&gt; If set to false, the stream ends. Default: true.</li>
<li>highWaterMark &lt;number&gt; Buffer level. Default: 16384.</li></ul></li></ul>
<h2>A heading long enough to be taken for wrapped prose by the old splitter rule</h2>
<p>This paragraph follows the long heading directly and ends here.</p>
</main></body></html>"""


def _released_passage_spans(text: str, *, max_chars: int, breaks: Sequence[int] = ()) -> list[Span]:
    """``segment.passage_spans`` as released before structure-aware segmentation."""
    bounds = sorted({0, len(text), *(b for b in breaks if 0 < b < len(text))})
    passages: list[Span] = []
    for lo, hi in zip(bounds, bounds[1:]):  # noqa: RUF007 - kept as released
        current: Span | None = None
        for sentence in sentence_spans(text, lo, hi):
            paragraph_edge = current is not None and "\n\n" in text[current.end : sentence.start]
            if current is None:
                current = sentence
            elif sentence.end - current.start > max_chars or (
                paragraph_edge and current.end - current.start > max_chars // 2
            ):
                passages.append(current)
                current = sentence
            else:
                current = Span(current.start, sentence.end)
        if current is not None:
            passages.append(current)
    return passages


def _released_code_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # Released passages had no heading path: the released spans, as cuts without one.
    monkeypatch.setattr(plan, "passage_spans", lambda text, **kw: [
        Cut(s.start, s.end) for s in _released_passage_spans(text, **kw)])
    # The released line rule: an indented or short line always ended a sentence.
    monkeypatch.setattr(sentences, "_hyphenated", lambda text, end, nxt: False)
    monkeypatch.setattr(sentences, "_wraps",
                        lambda text, start, end, nxt: text[nxt : nxt + 1] not in " \t")
    monkeypatch.setattr(html_extract, "mark_headings", lambda lines, headings: 0)


def _corpus(folder: Path) -> list[Path]:
    for path in CORPUS.rglob("*"):
        if path.suffix in {".md", ".txt", ".html", ".pdf"}:
            shutil.copy(path, folder / path.name)
    (folder / "grep.1.txt").write_text(GREP, encoding="utf-8")
    (folder / "streams.md").write_text(MARKDOWN, encoding="utf-8")
    (folder / "stream.html").write_text(NODE_PAGE, encoding="utf-8")
    (folder / "core.html").write_bytes(DOCBOOK)  # headings extraction drops, put back
    return sorted(folder.iterdir())


def test_citations_of_the_released_segmentation_resolve_to_the_same_quotes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings()
    folder = tmp_path / "docs"
    folder.mkdir()
    files = _corpus(folder)
    db = tmp_path / "store.db"

    with monkeypatch.context() as old:
        _released_code_path(old)
        store = SQLiteStore(db)
        citations = []
        for path in files:
            result = ingest_file(store, path, Metadata(), settings=settings)
            assert result.status == "ingested", result
            document = store.document(result.doc_id)
            version = store.version(result.doc_id)
            for passage in store.passages(result.doc_id, version.version):
                for s in sentence_spans(passage.text):
                    citations.append(cite(document, version, passage.start + s.start,
                                          passage.start + s.end))
        store.close()

    store = SQLiteStore(db)  # today's code opens (and would migrate) the file
    try:
        # Each file again through extraction (as a changed file would be; bytes, so no
        # record of the file can skip it), with the metadata it was stored with.
        statuses = Counter()
        for path in files:
            data, media_type = read_file(path, settings=settings)
            stored = store.document(ids.doc_id_for(path.resolve().as_uri()))
            meta = Metadata(source=stored.source, title=stored.title, fetched_at=stored.fetched_at)
            statuses[ingest_bytes(store, data, media_type=media_type, meta=meta,
                                  settings=settings).status] += 1
        # HTML text changed (headings are marked now): new versions; the rest is unchanged.
        assert statuses == {"updated": 7, "unchanged": len(files) - 7}
        reindex(store, passage_chars=settings.passage_chars)
        outcomes = Counter()
        for citation in citations:
            found = resolve(citation, store)
            assert found.status in ("exact", "relocated"), (citation.quote, found.note)
            if found.match == "verbatim":
                assert found.quote == citation.quote
            else:  # the quote ran into a heading line, which is marked now: same words
                assert re.sub(r"\n#{1,6} ", "\n", found.quote) == citation.quote
            outcomes[found.status, found.match] += 1
        assert outcomes["relocated", "verbatim"] > 20 and outcomes["exact", "verbatim"] > 200
        assert outcomes["relocated", "normalized"] <= 3, outcomes
    finally:
        store.close()
