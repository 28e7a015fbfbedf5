"""Do citations into a store built by an earlier release survive an upgrade on real
documentation? Cite sentences of the old store, re-ingest the same files into a copy
with today's extractors (new recipe, new text), resolve every citation.

    python bench/upgrade_citations.py --old OLD_STORE --corpus DIR [--per-document 40] [--seed 7]

``OLD_STORE`` is a store of ``DIR`` ingested by the earlier release (e.g. the
previous commit's ``tether ingest DIR --db OLD_STORE``); it is copied, never changed.
From each document, ``--per-document`` sentences (seeded sample) of its passages are
cited as the guard cuts a citation. Printed: the count of each resolution status, and
how many resolved ``exact``/``relocated`` to words other than the quote's (heading marks
and fence lines aside; target 0),
and the share resolving ``exact`` or ``relocated`` (target >= 0.99).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from tether import Tether, ids
from tether.ops.cite import resolve
from tether.records import Citation
from tether.store import open_store
from tether.text.sentences import sentence_spans


# What extraction adds between a quote's words and is no word of it: a heading's mark,
# a code block's fence line (resolution matches across both, ADR 0021 and 0056).
_MARKS = re.compile(r"```|#{1,6}")


def _words(text: str) -> list[str]:
    return [word for word in text.split() if not _MARKS.fullmatch(word)]


def _citations(store_path: Path, per_document: int, rng: random.Random) -> list[Citation]:
    store = open_store(str(store_path), create=False)
    out = []
    try:
        for document in store.documents():
            version = store.current_version(document.doc_id)
            if version is None:
                continue
            stored = store.version(document.doc_id)
            ranges = [(p.start + s.start, p.start + s.end)
                      for p in store.passages(document.doc_id, version)
                      for s in sentence_spans(p.text)]
            for start, end in rng.sample(ranges, min(per_document, len(ranges))):
                quote = stored.text[start:end]
                out.append(Citation(
                    doc_id=document.doc_id, version=stored.version, start=start, end=end,
                    quote=quote, quote_hash=ids.quote_hash(quote), passage_id="p_stale_hint",
                    source=document.source, title=document.title, license=document.license,
                    fetched_at=document.fetched_at, kind=document.kind, process=document.process))
    finally:
        store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True, type=Path)
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--per-document", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=0, help="print this many changed quotes")
    args = parser.parse_args()
    citations = _citations(args.old, args.per_document, random.Random(args.seed))
    with tempfile.TemporaryDirectory() as tmp:
        upgraded = Path(tmp) / "store.db"
        shutil.copy(args.old, upgraded)
        tether = Tether(upgraded, create=False)
        result = tether.ingest(args.corpus)
        statuses: Counter[str] = Counter()
        different = 0
        for citation in citations:
            found = resolve(citation, tether.store)
            statuses[found.status] += 1
            if found.status == "changed" and statuses["changed"] <= args.show:
                print("changed:", json.dumps(citation.quote[:160]))
            if found.status in ("exact", "relocated") and \
                    _words(found.quote or "") != _words(citation.quote):
                different += 1
                if different <= args.show:
                    print("other text:", json.dumps([citation.quote[:200], (found.quote or "")[:200]]))
        tether.close()
    kept = statuses["exact"] + statuses["relocated"]
    print(json.dumps({"citations": len(citations), "statuses": dict(statuses),
                      "kept_share": round(kept / max(1, len(citations)), 4),
                      "resolved_to_other_text": different,
                      "reingest": str(result)[:200]}))


if __name__ == "__main__":
    main()
