"""Structure-aware segmentation (ADR 0021) against the released code path, same run.

    python bench/bench_structure.py [--man 60] [--rounds 3] [--no-durability]

Corpus: what ``bench/realdocs.py`` copies from this machine (man pages rendered to
text, Node.js/Valgrind/Rust-book HTML, Markdown, PDFs). The released code path is the
one ``tests/ingest/test_citations_outlive_structure.py`` keeps verbatim (greedy
sentence packing, the old line rule of the sentence splitter (the copy of
``tests/ingest/segmentation_reference``, as it was before issue 20's speed work),
HTML without heading marks).

1. Speed, per format, CPU seconds (the machine is shared), interleaved rounds, best:
   segmentation alone (``passage_spans`` over the extracted texts) and whole ingest
   into a fresh SQLite store. Target: today >= released (ratio >= 1.0).
2. Structure: passages, and the share that carry a heading path.
3. Durability: a store built with the released path, every sentence of every passage
   cited, then each file extracted and ingested again with today's code and the store
   re-segmented. Target: every citation ``exact`` or ``relocated`` onto the same words
   (a ``normalized`` match may differ only by whitespace, quote style or a heading
   mark); 0 ``changed``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests"), str(HERE)]

import pytest
from citehelp import cite
from realdocs import build_corpus

from tests.ingest import test_citations_outlive_structure as released_module
from tests.ingest.segmentation_reference import sentences as released_sentences
from tests.ingest.test_citations_outlive_structure import _released_code_path
from tether import ids
from tether.config import Settings
from tether.ingest import segment
from tether.ingest.extract import extract_file, read_file
from tether.ingest.extract import html as html_extract
from tether.ingest.reindex import reindex
from tether.ingest.files import Metadata
from tether.ingest.write import ingest_bytes, ingest_file
from tether.ops.cite import resolve
from tether.store.sqlite import SQLiteStore
from tether.text.sentences import sentence_spans

FORMATS = {"man": "man", "nodejs": "HTML", "valgrind": "HTML", "rust-book": "HTML",
           "markdown": "Markdown", "pdf": "PDF"}


def _released(mp: pytest.MonkeyPatch) -> None:
    _released_code_path(mp)
    mp.setattr(html_extract, "_headings", lambda root: [])
    # The released packing called the sentence splitter of its day, not today's
    # (issue 20 made today's faster): the verbatim copy the parity test keeps, with
    # the released line rule, as the test's patch gives the live one.
    mp.setattr(released_module, "sentence_spans", released_sentences.sentence_spans)
    mp.setattr(released_sentences, "_hyphenated", lambda text, end, nxt: False)
    mp.setattr(released_sentences, "_wraps", lambda text, start, end, nxt: text[nxt : nxt + 1] not in " \t")


def _cpu(run: Callable[[], int]) -> tuple[float, int]:
    started = time.process_time()
    n = run()
    return time.process_time() - started, n


def _files(root: Path) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for folder, kind in FORMATS.items():
        out.setdefault(kind, []).extend(sorted(p for p in (root / folder).rglob("*") if p.is_file()))
    return {k: v for k, v in out.items() if v}


def speed(files: dict[str, list[Path]], rounds: int) -> None:
    settings = Settings()
    print("format     | MB   | segment MB/s released -> today (x) | ingest MB/s released -> today (x)"
          " | passages released -> today (with a heading path)")
    for kind, paths in files.items():
        best: dict[tuple[str, str], float] = {}
        counts: dict[str, int] = {}
        headed = 0
        for _ in range(rounds):
            for name in ("released", "today"):
                mp = pytest.MonkeyPatch()
                if name == "released":
                    _released(mp)
                from tether.ingest import plan  # the name build_passages calls
                spans = plan.passage_spans
                texts = [extract_file(p, settings=settings).text for p in paths]
                seconds, n = _cpu(lambda spans=spans, texts=texts: sum(
                    len(spans(t, max_chars=settings.passage_chars)) for t in texts))
                best[name, "segment"] = min(best.get((name, "segment"), 1e9), seconds)
                counts[name] = n
                if name == "today":
                    headed = sum(bool(c.heading) for t in texts
                                 for c in segment.passage_spans(t, max_chars=settings.passage_chars))
                with tempfile.TemporaryDirectory() as tmp:
                    store = SQLiteStore(Path(tmp) / "s.db")
                    seconds, _ = _cpu(lambda store=store, paths=paths: sum(
                        ingest_file(store, p, Metadata(), settings=settings).passages for p in paths))
                    store.close()
                best[name, "ingest"] = min(best.get((name, "ingest"), 1e9), seconds)
                mp.undo()
        mb = sum(len(extract_file(p, settings=settings).text) for p in paths) / 1e6
        seg = [mb / best[n, "segment"] for n in ("released", "today")]
        ing = [mb / best[n, "ingest"] for n in ("released", "today")]
        print(f"{kind:10} | {mb:4.1f} | {seg[0]:6.2f} -> {seg[1]:6.2f} ({seg[1] / seg[0]:.2f}x)"
              f" | {ing[0]:5.2f} -> {ing[1]:5.2f} ({ing[1] / ing[0]:.2f}x)"
              f" | {counts['released']} -> {counts['today']} ({headed / max(1, counts['today']):.0%})")


def durability(paths: list[Path]) -> int:
    settings = Settings()
    db = Path(tempfile.mkdtemp()) / "store.db"
    mp = pytest.MonkeyPatch()
    _released(mp)
    store = SQLiteStore(db)
    citations = []
    for path in paths:
        result = ingest_file(store, path, Metadata(), settings=settings)
        if result.doc_id is None:
            continue
        document, version = store.document(result.doc_id), store.version(result.doc_id)
        for passage in store.passages(result.doc_id, version.version):
            for s in sentence_spans(passage.text):
                citations.append(cite(document, version, passage.start + s.start, passage.start + s.end))
    store.close()
    mp.undo()
    store = SQLiteStore(db)
    for path in paths:
        stored = store.document(ids.doc_id_for(path.resolve().as_uri()))
        if stored is None:
            continue
        data, media_type = read_file(path, settings=settings)
        ingest_bytes(store, data, media_type=media_type, settings=settings,
                     meta=Metadata(source=stored.source, title=stored.title, fetched_at=stored.fetched_at))
    reindex(store, passage_chars=settings.passage_chars)
    outcomes: Counter[str] = Counter()
    for citation in citations:
        found = resolve(citation, store)
        same = found.quote is not None and (
            found.quote == citation.quote
            or re.sub(r"\s+", " ", re.sub(r"\n#{1,6} ", "\n", found.quote))
            == re.sub(r"\s+", " ", citation.quote))
        key = f"{found.status} {found.match or ''}".strip()
        outcomes[key if same or found.status in ("changed", "missing") else key + " DIFFERENT TEXT"] += 1
    store.close()
    print(f"durability: {len(citations)} citations of the released path over {len(paths)} files: "
          + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    return sum(v for k, v in outcomes.items() if "DIFFERENT" in k or k.startswith("changed"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--man", type=int, default=60, help="man pages to render")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-durability", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        found = build_corpus(root, man_named=["grep", "tar", "curl", "bzip2", "zip"],
                             man_count=args.man)
        print("corpus:", dict(found))
        files = _files(root)
        speed(files, args.rounds)
        bad = 0 if args.no_durability else durability([p for ps in files.values() for p in ps])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
