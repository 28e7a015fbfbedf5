"""Retrieval at 100k and 1M passages, each backend beside its bare full-text floor.

    python bench/bench_retrieval_scale.py                    # 100k and 1M passages
    python bench/bench_retrieval_scale.py --sizes 100000     # the quick run
    python bench/bench_retrieval_scale.py --pg postgresql://postgres@127.0.0.1:5432/test

The corpus and questions are ``bench_store``'s (seeded Zipf pseudo-words, 20 passages
a document, 4-term questions: one common, two middling, one rare), written with one
``put`` per document as ``tether ingest`` does. For each size and backend:

- ``ask``: ``retrieve(store, question, k=8)``, the retrieval step of ``tether ask``
  (question text to terms to ranked passages with their documents);
- ``search+acl``: ``store.search(terms, limit=8, principals=["public"])``;
- the floor, on the same tables in the same run: SQLite's bare FTS5 query
  (``SELECT rowid FROM passages_fts WHERE passages_fts MATCH ? ORDER BY bm25 LIMIT 8``,
  no join), PostgreSQL's bare tsvector query (``SELECT id FROM passages WHERE tsv @@ q
  ORDER BY ts_rank(tsv, q) DESC LIMIT 8`` with the same OR-query).

p50/p95 in ms after one warm-up pass; each line gives the ratio to its floor, and the
PostgreSQL ``ask`` line its ratio to SQLite's. Targets (issue 20): SQLite ask within
3x (p50) and 4x (p95) of bare FTS5 at 1M; PostgreSQL ask p50 within 2x of SQLite's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import PASSAGES_PER_DOC, Corpus, open_postgres, percentile

from tether.retrieve.search import retrieve
from tether.store import Store
from tether.store.dialect import fts5_query
from tether.store.sqlite import SQLiteStore


def timed(run: Callable[[list[str]], Any], questions: list[list[str]]) -> tuple[float, float]:
    for terms in questions:  # warm-up: caches, prepared plans, pool connections
        run(terms)
    timings = []
    for terms in questions:
        started = time.perf_counter()
        run(terms)
        timings.append((time.perf_counter() - started) * 1000)
    return percentile(timings, 0.5), percentile(timings, 0.95)


def sqlite_floor(store: SQLiteStore) -> Callable[[list[str]], Any]:
    def run(terms: list[str]) -> Any:
        return store._rows(
            "SELECT rowid FROM passages_fts WHERE passages_fts MATCH ?"
            " ORDER BY bm25(passages_fts) LIMIT 8", [fts5_query(terms)])
    return run


def postgres_floor(store: Any) -> Callable[[list[str]], Any]:
    def run(terms: list[str]) -> Any:
        q = " || ".join(["plainto_tsquery('english'::regconfig, %s)"] * len(terms))
        return store._rows(
            f"SELECT id FROM passages, ({'SELECT ' + q} AS q) q WHERE tsv @@ q.q"
            " ORDER BY ts_rank(tsv, q.q) DESC LIMIT 8", list(terms))
    return run


def measure(name: str, store: Store, floor: Callable[[list[str]], Any],
            questions: list[list[str]]) -> dict[str, tuple[float, float]]:
    texts = {tuple(t): " ".join(t) for t in questions}
    results = {
        "floor": timed(floor, questions),
        "ask": timed(lambda t: retrieve(store, texts[tuple(t)], k=8), questions),
        "search+acl": timed(lambda t: store.search(t, limit=8, principals=["public"]), questions),
    }
    f50, f95 = results["floor"]
    for label, (p50, p95) in results.items():
        ratio = "" if label == "floor" else f"   x{p50 / f50:5.2f} p50  x{p95 / f95:5.2f} p95 of the floor"
        print(f"  {name:8s} {label:10s} p50 {p50:8.2f} ms  p95 {p95:8.2f} ms{ratio}")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--no-pg", action="store_true")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    corpus = Corpus()
    questions = corpus.questions(args.queries)
    tmp = tempfile.TemporaryDirectory(prefix="tether-bench-scale-")
    sqlite = SQLiteStore(Path(tmp.name) / "bench.db")
    stores: dict[str, Any] = {"sqlite": sqlite}
    floors = {"sqlite": sqlite_floor(sqlite)}
    pg = admin = schema = None
    if not args.no_pg:
        pg, schema, admin = open_postgres(args.pg)
        stores["postgres"] = pg
        floors["postgres"] = postgres_floor(pg)
    print(f"{len(questions)} questions of 4 terms; {PASSAGES_PER_DOC} passages a document")
    done = 0
    try:
        for size in sizes:
            while done < size:
                batch = list(corpus.documents(min(500, (size - done) // PASSAGES_PER_DOC)))
                for store in stores.values():
                    for document, version, passages in batch:
                        store.put(document, version, passages)
                done += len(batch) * PASSAGES_PER_DOC
                print(f"\r  ingested {done:,} passages", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            if admin is not None:
                admin.execute(f"VACUUM ANALYZE {schema}.passages")  # what autovacuum would do
            print(f"\n== {done:,} passages")
            results = {n: measure(n, s, floors[n], questions) for n, s in stores.items()}
            if "postgres" in results:
                pg50, pg95 = results["postgres"]["ask"]
                sq50, sq95 = results["sqlite"]["ask"]
                print(f"  postgres ask / sqlite ask: p50 x{pg50 / sq50:.2f}  p95 x{pg95 / sq95:.2f}"
                      "   (target p50 <= x2)")
    finally:
        for store in stores.values():
            store.close()
        if admin is not None:
            admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            admin.close()
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
