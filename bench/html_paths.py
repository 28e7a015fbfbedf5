"""How the text of one HTML page differs between its two paths: the tree and the stream.

    PYTHONPATH=src python bench/html_paths.py /tmp/rd-ingest/corpus            # every .html under it
    PYTHONPATH=src python bench/html_paths.py DIR --dump texts.json            # digests, to diff runs

A page up to ``html_full_extract_max_bytes`` is read as a tree (trafilatura's main
content, or all visible text when it finds none: ``html._plain_text``); a larger one
is streamed (``htmlstream``: all visible text, headings, lists, tables and code
marked). So the same page's text depends on its size. For each page this runs both,
with the threshold set so each path takes every page, and the tree's all-visible-text
fallback as well, and prints how many pages' texts are identical and, for the rest,
how much of one path's text the other holds: the share of the stream's non-blank lines
found verbatim (whitespace collapsed) among the other's, and the share of its words
(marks such as ``-``, ``##``, ``|`` and fences left out) the other has as many
times. ``--dump`` writes each
page's three text digests, so a change to the shared rules can be shown to leave
every page's text as it was (compare two dumps with ``cmp``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
from collections import Counter
from pathlib import Path

from tether.config import Settings
from tether.ingest.extract import extract_bytes
from tether.ingest.extract import html as tree_path
from tether.ingest.extract.htmlpage import decode_html

TREE = Settings(html_full_extract_max_bytes=1 << 40)
STREAM = Settings(html_full_extract_max_bytes=0)


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.split("\n") if line.strip()]


def _held(ours: str, theirs: str) -> float:
    """The share of ``ours``' lines that ``theirs`` holds as lines."""
    mine, other = _lines(ours), set(_lines(theirs))
    return sum(line in other for line in mine) / len(mine) if mine else 1.0


_MARK = re.compile(r"#{1,6}|-|\||\|[-|]+\||```")


def _words(text: str) -> Counter[str]:
    return Counter(word for word in text.split() if not _MARK.fullmatch(word))


def _shared(ours: str, theirs: str) -> float:
    """The share of ``ours``' words that ``theirs`` has as many times."""
    mine, other = _words(ours), _words(theirs)
    total = sum(mine.values())
    return sum(min(n, other[w]) for w, n in mine.items()) / total if total else 1.0


def _fallback(data: bytes) -> str:
    """The tree path's all-visible-text reading (used when trafilatura finds nothing)."""
    from lxml import html as lxml_html  # type: ignore[import-untyped, unused-ignore]

    page = decode_html(data, "page", None)
    parser = lxml_html.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True,
                                  huge_tree=True)
    return tree_path._plain_text(lxml_html.document_fromstring(page.encode("utf-8", "surrogatepass"),
                                                               parser=parser))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--dump", type=Path, help="write each page's text digests here (JSON)")
    args = parser.parse_args()
    pages = sorted(args.folder.rglob("*.html"))
    digests: dict[str, list[str]] = {}
    same_tree = same_fallback = 0
    tree_held: list[float] = []
    fallback_held: list[float] = []
    tree_words: list[float] = []
    fallback_words: list[float] = []
    for path in pages:
        data = path.read_bytes()
        tree = extract_bytes(data, media_type="text/html", settings=TREE, name=str(path)).text
        stream = extract_bytes(data, media_type="text/html", settings=STREAM, name=str(path)).text
        fallback = _fallback(data)
        digests[str(path.relative_to(args.folder))] = [_digest(tree), _digest(stream), _digest(fallback)]
        same_tree += tree == stream
        same_fallback += _lines(fallback) == _lines(stream)
        tree_held.append(_held(stream, tree))
        fallback_held.append(_held(stream, fallback))
        tree_words.append(_shared(stream, tree))
        fallback_words.append(_shared(stream, fallback))
    print(f"{len(pages)} pages")
    for label, same, lines, words in (
            ("tree (trafilatura) text == streamed text", same_tree, tree_held, tree_words),
            ("tree fallback (all visible text) lines == streamed lines", same_fallback,
             fallback_held, fallback_words)):
        print(f"{label}: {same} pages; of the stream's, lines found there: median "
              f"{statistics.median(lines):.1%} (min {min(lines):.1%}), words: median "
              f"{statistics.median(words):.1%} (min {min(words):.1%})")
    if args.dump:
        args.dump.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
