"""Store backends side by side: ingest throughput and retrieval latency (p50/p95) at
100k and 1M passages, SQLite (FTS5 BM25, the baseline) against PostgreSQL (tsvector,
GIN, IDF-weighted ts_rank), measured in the same run on the same synthetic corpus.

    python bench/bench_store.py                      # 100k and 1M passages
    python bench/bench_store.py --sizes 100000       # the quick run
    python bench/bench_store.py --pg postgresql://postgres@127.0.0.1:5432/test

The corpus is generated here (seeded): pseudo-words drawn from a Zipf distribution,
~50 words a passage, 20 passages a document, half the documents readable by
``public`` and half by ``team``. Both stores receive the same documents, one ``put``
(one transaction) per document, as ``tether ingest`` writes them. Questions are 4
terms: one common (ranks 50-300, each in roughly 1-9 % of passages: the words that
survive stop-word removal), two middling (300-3,000) and one rare (3,000-30,000).
Latency is ``store.search(terms, limit=8)`` after one warm-up pass, with and without
an ACL filter. PostgreSQL runs in a schema of its own, dropped at the end.

``--data`` (default ../shared/data) adds a retrieval-quality line: hit@1 and hit@8 of
the right paragraph for the SQuAD 2.0 "Normans" and HaluEval questions, each paragraph
ingested as one document (read in place, never copied).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tether import ids
from tether.ingest.plan import build_passages
from tether.records import Document, Passage, Version
from tether.retrieve.search import query_terms
from tether.store import Store
from tether.store.sqlite import SQLiteStore

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data"
PASSAGES_PER_DOC = 20
WORDS_PER_PASSAGE = 50
VOCABULARY = 30_000
_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def vocabulary(rng: random.Random) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < VOCABULARY:
        words.setdefault("".join(rng.choices(_SYLLABLES, k=rng.randint(2, 4))), None)
    return list(words)


class Corpus:
    """Deterministic documents and questions over a Zipf-distributed vocabulary."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng)
        weights = [1.0 / (rank + 1) for rank in range(VOCABULARY)]
        self.cumulative = list(itertools.accumulate(weights))
        self.count = 0

    def documents(self, n: int) -> Iterator[tuple[Document, Version, list[Passage]]]:
        for _ in range(n):
            i = self.count
            self.count += 1
            chunks = []
            for _ in range(PASSAGES_PER_DOC):
                drawn = self.rng.choices(self.words, cum_weights=self.cumulative, k=WORDS_PER_PASSAGE)
                chunks.append(" ".join(drawn).capitalize() + ".")
            text = " ".join(chunks)
            source = f"https://bench.invalid/doc/{i}"
            document = Document(
                doc_id=ids.doc_id_for(source), source=source, title=f"Doc {i}", license="CC0",
                fetched_at="2026-01-01", media_type="text/plain",
                acl=("public",) if i % 2 == 0 else ("team",),
            )
            version = Version(document.doc_id, ids.version_of(text), text, "bench", "2026-01-01")
            passages, start = [], 0
            for chunk in chunks:
                end = start + len(chunk)
                passages.append(Passage(ids.passage_id_for(document.doc_id, version.version, start, end),
                                        document.doc_id, version.version, start, end, chunk))
                start = end + 1
            yield document, version, passages

    def questions(self, n: int, seed: int = 11) -> list[list[str]]:
        rng = random.Random(seed)
        return [
            [self.words[rng.randrange(50, 300)], self.words[rng.randrange(300, 3000)],
             self.words[rng.randrange(300, 3000)], self.words[rng.randrange(3000, VOCABULARY)]]
            for _ in range(n)
        ]


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def latency(store: Store, questions: list[list[str]], principals: list[str] | None) -> dict[str, float]:
    for terms in questions:  # warm-up: caches, prepared plans, pool connections
        store.search(terms, limit=8, principals=principals)
    timings, empty = [], 0
    for terms in questions:
        started = time.perf_counter()
        hits = store.search(terms, limit=8, principals=principals)
        timings.append((time.perf_counter() - started) * 1000)
        empty += not hits
    return {"p50": percentile(timings, 0.5), "p95": percentile(timings, 0.95),
            "mean": statistics.fmean(timings), "empty": empty}


def open_postgres(url: str, schema: str | None = None) -> tuple[Store, str, Any]:
    """A store in a schema of its own: a new random one, or ``schema`` (created if it
    does not exist, kept as it is otherwise)."""
    import psycopg

    from tether.store.postgres import PostgresStore

    schema = schema or "tether_bench_" + secrets.token_hex(4)
    admin = psycopg.connect(url, autocommit=True)
    admin.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    location = url + ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"
    return PostgresStore(location, notify=lambda m: None), schema, admin


def quality(stores: dict[str, Store], data: Path) -> None:
    docs, questions = [], []
    squad = json.loads((data / "squad2-dev-normans.json").read_text(encoding="utf-8"))
    for i, para in enumerate(squad["data"][0]["paragraphs"]):
        docs.append((f"squad/{i}", para["context"]))
        questions += [(qa["question"], f"squad/{i}") for qa in para["qas"] if not qa["is_impossible"]]
    for i, line in enumerate((data / "halueval-qa-dev.jsonl").read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        docs.append((f"halu/{i}", row["knowledge"]))
        questions.append((row["question"], f"halu/{i}"))
    print(f"\nretrieval quality: {len(questions)} questions over {len(docs)} paragraphs"
          " (SQuAD 2.0 Normans answerable + HaluEval QA), top 8")
    for name, store in stores.items():
        for source, text in docs:
            document = Document(ids.doc_id_for(source), source, source, "see data README",
                                "2026-01-01", "text/plain")
            version = Version(document.doc_id, ids.version_of(text), text, "bench", "2026-01-01")
            store.put(document, version, build_passages(version, document, max_chars=600))
        at1 = at8 = 0
        for question, source in questions:
            found = [h.document.source for h in store.search(query_terms(question), limit=8)]
            at1 += bool(found) and found[0] == source
            at8 += source in found
        print(f"  {name:10s} hit@1 {at1 / len(questions):.3f}   hit@8 {at8 / len(questions):.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000",
                        help="passage counts to measure at, ascending (default: 100k and 1M)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test",
                        help="PostgreSQL server (a schema is created and dropped)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))

    corpus = Corpus()
    questions = corpus.questions(args.queries)
    tmp = tempfile.TemporaryDirectory(prefix="tether-bench-")
    sqlite = SQLiteStore(Path(tmp.name) / "bench.db")
    pg, schema, admin = open_postgres(args.pg)
    stores: dict[str, Store] = {"sqlite": sqlite, "postgres": pg}
    ingest_s = dict.fromkeys(stores, 0.0)
    done = 0
    print(f"corpus: {PASSAGES_PER_DOC} passages/document, ~{WORDS_PER_PASSAGE} words/passage,"
          f" Zipf vocabulary of {VOCABULARY:,}; {len(questions)} questions of 4 terms")
    try:
        for size in sizes:
            while done < size:
                batch = list(corpus.documents(min(500, (size - done) // PASSAGES_PER_DOC)))
                for name, store in stores.items():
                    started = time.perf_counter()
                    for document, version, passages in batch:
                        store.put(document, version, passages)
                    ingest_s[name] += time.perf_counter() - started
                done += len(batch) * PASSAGES_PER_DOC
                print(f"\r  ingested {done:,} passages", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
            admin.execute(f"VACUUM ANALYZE {schema}.passages")  # what autovacuum would do
            print(f"\n== {done:,} passages ({done // PASSAGES_PER_DOC:,} documents)")
            rate = {n: done / s for n, s in ingest_s.items()}
            for name in stores:
                print(f"  ingest {name:9s} {rate[name]:9,.0f} passages/s"
                      f" ({rate[name] / PASSAGES_PER_DOC:,.0f} documents/s) cumulative"
                      f"   x{rate[name] / rate['sqlite']:.2f} of sqlite")
            for label, principals in (("search", None), ("search+acl", ["public"])):
                results = {n: latency(s, questions, principals) for n, s in stores.items()}
                for name, r in results.items():
                    base = results["sqlite"]
                    print(f"  {label:10s} {name:9s} p50 {r['p50']:8.2f} ms  p95 {r['p95']:8.2f} ms"
                          f"  mean {r['mean']:8.2f} ms   p50 x{r['p50'] / base['p50']:.2f}"
                          f" p95 x{r['p95'] / base['p95']:.2f} of sqlite  ({r['empty']} empty)")
        if args.data.is_dir():
            tmp2 = tempfile.TemporaryDirectory(prefix="tether-bench-q-")
            q_pg, q_schema, _ = open_postgres(args.pg)
            try:
                quality({"sqlite": SQLiteStore(Path(tmp2.name) / "q.db"), "postgres": q_pg}, args.data)
            finally:
                q_pg.close()
                admin.execute(f"DROP SCHEMA IF EXISTS {q_schema} CASCADE")
                tmp2.cleanup()
    finally:
        for store in stores.values():
            store.close()
        admin.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.close()
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
