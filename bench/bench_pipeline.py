"""Pipeline benchmark: ingest throughput, ask latency on a large store, verify throughput.

Each figure is printed next to a baseline measured in the same run, so the cost of
every stage is visible:

- ingest MB/s vs reading + hashing the same files (the floor of any ingest);
- ask p50/p95 vs a bare FTS5 query for the same question (retrieval alone);
- verify sentences/s vs plain substring containment of the same pairs.

    python bench/bench_pipeline.py                 # ~60 MB corpus, >=100k passages
    python bench/bench_pipeline.py --mb 5          # quick look
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import tempfile
import time
from pathlib import Path

from tether import Tether, verify_answer
from tether.config import Settings
from tether.retrieve.search import query_terms

SYLLABLES = "ka lo mi ren tor vex sul dra pin quo bel fas nor tek zim hal cor dun ely gra".split()
UNITS = ["ppm", "mg/m3", "°C", "percent", "kg", "litres"]


def _vocabulary(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(n)]


def _sentence(rng: random.Random, words: list[str]) -> str:
    body = " ".join(rng.choice(words) for _ in range(rng.randint(8, 18)))
    figure = f"{rng.randint(1, 5000)}{rng.choice(['', '.5'])} {rng.choice(UNITS)}"
    year = rng.randint(1990, 2026)
    return f"{body.capitalize()} is {figure} in {year}."


def make_corpus(root: Path, megabytes: float, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = _vocabulary(rng, 20_000)
    target = int(megabytes * 1024 * 1024)
    written, n, samples = 0, 0, []
    while written < target:
        sentences = [_sentence(rng, words) for _ in range(rng.randint(150, 300))]
        paragraphs = ["\n\n".join(" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5))]
        text = f"Document {n}\n\n" + paragraphs[0] + "\n"
        (root / f"doc{n:05d}.txt").write_text(text, encoding="utf-8")
        written += len(text.encode("utf-8"))
        samples.append(rng.choice(sentences))
        n += 1
    return samples


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=60.0, help="corpus size in MB (default 60)")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=3000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tether-bench-") as tmp:
        corpus = Path(tmp) / "corpus"
        corpus.mkdir()
        samples = make_corpus(corpus, args.mb)
        files = sorted(corpus.iterdir())
        size_mb = sum(f.stat().st_size for f in files) / 1024 / 1024

        t0 = time.perf_counter()
        for f in files:
            hashlib.sha256(f.read_bytes()).hexdigest()
        base_s = time.perf_counter() - t0

        tether = Tether(Path(tmp) / "bench.db", settings=Settings())
        t0 = time.perf_counter()
        results = tether.ingest(corpus)
        ingest_s = time.perf_counter() - t0
        assert all(r.status == "ingested" for r in results)
        passages = tether.store.counts()["passages"]
        print(f"corpus: {len(files)} files, {size_mb:.1f} MB, {passages:,} passages")
        print(f"ingest: {size_mb / ingest_s:8.2f} MB/s   baseline read+sha256: {size_mb / base_s:8.1f} MB/s"
              f"   ratio {ingest_s / base_s:6.1f}x")

        rng = random.Random(1)
        questions = []
        for s in rng.sample(samples, min(args.questions, len(samples))):
            words = s.rstrip(".").split()
            questions.append("What is " + " ".join(rng.sample(words[:-4], min(5, len(words) - 4))) + "?")
        fts, ask = [], []
        for q in questions:
            t0 = time.perf_counter()
            tether.store.search(query_terms(q), limit=tether.settings.top_k)
            fts.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            tether.ask(q, record=False)
            ask.append((time.perf_counter() - t0) * 1000)
        print(f"ask:    p50 {statistics.median(ask):7.2f} ms  p95 {percentile(ask, 0.95):7.2f} ms"
              f"   baseline FTS5 query p50 {statistics.median(fts):6.2f} ms  p95 {percentile(fts, 0.95):6.2f} ms"
              f"   ratio p50 {statistics.median(ask) / statistics.median(fts):5.1f}x")
        tether.close()

    rng = random.Random(2)
    pairs = []
    for s in rng.choices(samples, k=args.pairs):
        passage = " ".join(rng.choices(samples, k=4)) + " " + s
        sentence = s if rng.random() < 0.5 else s.replace(" is ", " is not ", 1)
        pairs.append((sentence, passage))
    t0 = time.perf_counter()
    contained = sum(sentence in passage for sentence, passage in pairs)
    sub_s = time.perf_counter() - t0
    settings = Settings()
    t0 = time.perf_counter()
    supported = 0
    for sentence, passage in pairs:
        out = verify_answer(passages={"p": passage}, sentences=[sentence], settings=settings)
        supported += out[0]["outcome"] == "supported"
    verify_s = time.perf_counter() - t0
    print(f"verify: {len(pairs) / verify_s:8.0f} sentences/s   baseline substring: "
          f"{len(pairs) / sub_s:10.0f}/s   ratio {verify_s / sub_s:8.0f}x"
          f"   (supported {supported}, contained {contained})")


if __name__ == "__main__":
    main()
