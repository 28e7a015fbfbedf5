"""Count sentence fragments cut at hard line wraps in a store's passages.

    TETHER=tether python3 bench/wrap_fragments.py [--db STORE] [--corpus DIR] [--examples N]

Without ``--db`` it ingests ``--corpus`` (default: the realdocs-dev corpus unpacked
from /work/shared/data/realdocs-dev/corpus.tar.gz) into a temporary store with the
``tether`` command (``TETHER`` may hold arguments, as score.py reads it). Each passage
of each document's current version is split with ``tether.text.sentences`` (whichever
``tether`` this Python imports: run it with ``PYTHONPATH=<old checkout>/src`` for a
before figure), and two kinds of sentences are counted:

* ``lower_start``: it opens with a lower-case letter right after a single line break
  (no blank line before it): the tail of a sentence cut at a wrapped line;
* ``open_end``: it ends without terminal punctuation (``. ! ? : ;`` or a closing mark
  after one) right before a single line break, and neither its line nor the next one
  is a structural line (a Markdown heading, a table row, a list item): the head of a
  sentence cut at a wrapped line.

Passages of kind ``code``, ``row``, ``heading``, ``synopsis`` and ``meta`` are skipped
(their lines are units). The last stdout line is a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter

from tether.text.sentences import sentence_ranges

CORPUS_TAR = "/work/shared/data/realdocs-dev/corpus.tar.gz"
_SKIP_KINDS = {"code", "row", "heading", "synopsis", "meta"}
_STRUCTURAL = re.compile(r"[ \t]*(?:#{1,6}[ \t]|\||[-*+•][ \t]|\d{1,3}[.)][ \t])")
_TERMINAL = ".!?:;"
_CLOSING = "\"')]”’»"


def _ingest(corpus: str, workdir: str) -> str:
    db = os.path.join(workdir, "t.db")
    command = os.environ.get("TETHER", "tether").split()
    done = subprocess.run([*command, "ingest", corpus, "--db", db], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr)
        raise SystemExit(f"ingest failed: exit {done.returncode}")
    return db


def _line_at(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start : len(text) if end < 0 else end]


def _ends_open(text: str, hi: int) -> bool:
    k = hi - 1
    while k > 0 and text[k] in _CLOSING:
        k -= 1
    return text[k] not in _TERMINAL


def _single_break(gap: str) -> bool:
    return gap.count("\n") == 1


def count(db: str, examples: int) -> dict[str, object]:
    con = sqlite3.connect(db)
    texts = dict(con.execute(
        "select v.doc_id || ':' || v.version, v.text from documents d join versions v "
        "on v.doc_id = d.doc_id and v.version = d.current_version"))
    sources = dict(con.execute(
        "select d.doc_id || ':' || d.current_version, d.source from documents d"))
    found: Counter[str] = Counter()
    by_package: Counter[str] = Counter()
    shown: list[str] = []
    sentences = 0
    rows = con.execute("select doc_id || ':' || version, start, \"end\", kind from passages")
    for key, start, end, kind in rows:
        text = texts.get(key)
        if text is None or kind in _SKIP_KINDS:
            continue
        ranges = sentence_ranges(text, start, end)
        sentences += len(ranges)
        for lo, hi in ranges:
            hits = []
            if lo > start and text[lo].islower():
                before = text[start:lo]
                gap = before[len(before.rstrip()):]
                if _single_break(gap):
                    hits.append("lower_start")
            if hi < end and _ends_open(text, hi):
                rest = text[hi:end]
                gap = rest[: len(rest) - len(rest.lstrip())]
                nxt = hi + len(gap)
                if (_single_break(gap) and not _STRUCTURAL.match(_line_at(text, hi - 1))
                        and not _STRUCTURAL.match(_line_at(text, nxt))):
                    hits.append("open_end")
            for hit in hits:
                found[hit] += 1
                source = sources.get(key, "")
                package = source.split("/corpus/", 1)[-1].split("/", 1)[0]
                by_package[package] += 1
                if len(shown) < examples:
                    shown.append(f"{hit}: {text[lo:hi][:100]!r}  ({source.rsplit('/', 1)[-1]})")
    con.close()
    for line in shown:
        print(line, file=sys.stderr)
    return {"sentences": sentences, "lower_start": found["lower_start"],
            "open_end": found["open_end"], "fragments": sum(found.values()),
            "by_package": dict(sorted(by_package.items()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", help="an ingested store (skips the ingest)")
    parser.add_argument("--corpus", help="corpus folder (default: the realdocs-dev tarball)")
    parser.add_argument("--examples", type=int, default=0, help="print N fragments to stderr")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        db = args.db
        if db is None:
            corpus = args.corpus
            if corpus is None:
                with tarfile.open(CORPUS_TAR) as tar:
                    tar.extractall(workdir, filter="data")
                corpus = os.path.join(workdir, "corpus")
            db = _ingest(corpus, workdir)
        print(json.dumps(count(db, args.examples)))


if __name__ == "__main__":
    main()
