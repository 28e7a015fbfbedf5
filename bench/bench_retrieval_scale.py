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
PostgreSQL ``ask`` line its ratio to SQLite's. Then overlap@8: the share of the
exhaustive PostgreSQL ranking's top 8 (every match ranked, ``exhaustive_sql``) that
``search`` (ADR 0026) also returns, with and without an ACL.

Building 1M passages takes a while; build once and reuse:

    python bench/bench_retrieval_scale.py --sizes 1000000 --keep /tmp/scale-1m --build-only
    python bench/bench_retrieval_scale.py --sizes 1000000 --keep /tmp/scale-1m --queries 100 Targets (issue 20): SQLite ask within
3x (p50) and 4x (p95) of bare FTS5 at 1M; PostgreSQL ask p50 within 2x of SQLite's.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
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


def _count(store: Any) -> int:
    row = store._rows("SELECT count(*) AS n FROM passages")[0]
    return int(row["n"])


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def agreement(store: Any, questions: list[list[str]]) -> None:
    """overlap@8 of the pruned ranking against the exhaustive one (every match ranked),
    with and without an ACL: the share of the exhaustive top 8 that the pruned top 8
    also holds, averaged over the questions."""
    for label, principals in (("no acl", None), ("acl", ["public"])):
        shares, identical = [], 0
        for terms in questions:
            pruned = [h.passage.passage_id for h in store.search(terms, limit=8, principals=principals)]
            full = [h.passage.passage_id for h in
                    store._search(terms, limit=8, principals=principals, exhaustive=True)]
            shares.append(len(set(pruned) & set(full)) / len(full) if full else float(not pruned))
            identical += pruned == full
        print(f"  postgres overlap@8 with exhaustive ranking ({label}): {statistics.fmean(shares):.4f},"
              f" identical order {identical}/{len(questions)}")
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--no-pg", action="store_true")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the stores for the next run: the SQLite file in DIR, the"
                        " PostgreSQL schema named in DIR/pg_schema; a later run with the same"
                        " DIR reuses them and only ingests what the sizes still need")
    parser.add_argument("--build-only", action="store_true",
                        help="ingest up to the largest size (with --keep) and measure nothing")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    corpus = Corpus()
    questions = corpus.questions(args.queries)
    tmp = None
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        folder = args.keep
    else:
        tmp = tempfile.TemporaryDirectory(prefix="tether-bench-scale-")
        folder = Path(tmp.name)
    sqlite = SQLiteStore(folder / "bench.db")
    stores: dict[str, Any] = {"sqlite": sqlite}
    floors = {"sqlite": sqlite_floor(sqlite)}
    pg = admin = schema = None
    if not args.no_pg:
        kept_schema = None
        if args.keep is not None:
            named = args.keep / "pg_schema"
            if not named.exists():
                named.write_text("tether_bench_keep_" + secrets.token_hex(4) + "\n")
            kept_schema = named.read_text().strip()
        pg, schema, admin = open_postgres(args.pg, kept_schema)
        stores["postgres"] = pg
        floors["postgres"] = postgres_floor(pg)
    # A kept store resumes where it stopped: the corpus is regenerated (seeded) up to
    # there without writing, so both stores hold the same documents as a fresh run's.
    counts = {name: _count(store) for name, store in stores.items()}
    if len(set(counts.values())) != 1:
        raise SystemExit(f"kept stores differ: {counts}; remove {args.keep} (and its schema)")
    done = next(iter(counts.values()))
    if done > sizes[0]:
        raise SystemExit(f"kept stores hold {done:,} passages, more than --sizes {sizes[0]:,}")
    for _ in corpus.documents(done // PASSAGES_PER_DOC):
        pass
    print(f"{len(questions)} questions of 4 terms; {PASSAGES_PER_DOC} passages a document"
          + (f"; reusing {done:,} kept passages" if done else ""))
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
            if args.build_only:
                continue
            if admin is not None:
                admin.execute(f"VACUUM ANALYZE {schema}.passages")  # what autovacuum would do
            print(f"\n== {done:,} passages   (load average {_load()})")
            results = {n: measure(n, s, floors[n], questions) for n, s in stores.items()}
            if "postgres" in results:
                pg50, pg95 = results["postgres"]["ask"]
                sq50, sq95 = results["sqlite"]["ask"]
                print(f"  postgres ask / sqlite ask: p50 x{pg50 / sq50:.2f}  p95 x{pg95 / sq95:.2f}"
                      "   (target p50 <= x2)")
                agreement(pg, questions)
            print(f"  load average after: {_load()}")
    finally:
        for store in stores.values():
            store.close()
        if admin is not None:
            if args.keep is None:
                admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            admin.close()
        if tmp is not None:
            tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
