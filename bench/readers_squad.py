"""SQuAD 2.0 on articles the reading models never saw: the trained reader beside the
lexical one and a BM25 baseline, in one run.

    python bench/readers_squad.py [--data ../shared/data/train] [--split test|cal]
                                  [--limit N] [--json OUT]

``--split test`` reads the five held-out articles (Normans, Steam_engine, Pharmacy,
Geology, Packet_switching); ``--split cal`` the three calibration articles, where
``guard.answerable.DEFAULT_THRESHOLD`` is chosen (``--sweep`` prints the trade-off).
Each article's paragraphs are one store, one document a paragraph. Per question: the
answer is right when a shown sentence holds a gold answer (case-insensitive) and an
unanswerable one is right when refused. The answerability AUC is the ROC AUC of the
best candidate's score, answerable vs unanswerable. BM25 baseline: the top passage's
best-overlapping sentence, never refusing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from tether import Tether
from tether.config import load_settings
from tether.generate.extractive import _is_content
from tether.generate.reading import read_sentences
from tether.retrieve.focused import refine
from tether.retrieve.search import retrieve
from tether.text.sentences import split_sentences
from tether.text.terms import stems

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "train"
sys.path.insert(0, str(HERE.parent / "train"))
from build_data import CAL_ARTICLES, TEST_ARTICLES  # noqa: E402


def _auc(pos: list[float], neg: list[float]) -> float | None:
    if not pos or not neg:
        return None
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def _article(paragraphs: list[dict], folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for p in paragraphs:
        (folder / f"p{p['para_index']:03d}.txt").write_text(p["context"] + "\n", encoding="utf-8")
    return folder


def _right(answer, gold: list[str]) -> bool:
    shown = " ".join(s.text for s in answer.sentences).lower()
    return any(g.lower() in shown for g in gold)


def _bm25_top(tether: Tether, question: str, gold: list[str]) -> bool:
    hits = retrieve(tether.store, question, k=1)
    if not hits:
        return False
    want = stems(question)
    best = max(split_sentences(hits[0].passage.text) or [""], key=lambda s: len(want & stems(s)))
    return any(g.lower() in best.lower() for g in gold)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--split", choices=("test", "cal"), default="test")
    ap.add_argument("--limit", type=int, default=0, help="questions per article (0: all), seeded sample")
    ap.add_argument("--sweep", action="store_true", help="accuracy / unanswerable recall per threshold")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    wanted = TEST_ARTICLES if args.split == "test" else CAL_ARTICLES
    by_title: dict[str, list[dict]] = {}
    with gzip.open(args.data / "squad20-dev-29-articles.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            if p["title"] in wanted:
                by_title.setdefault(p["title"], []).append(p)
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="readers-squad-") as tmp:
        for title, paragraphs in sorted(by_title.items()):
            folder = _article(paragraphs, Path(tmp) / title)
            qas = [qa for p in paragraphs for qa in p["qas"]]
            if args.limit:
                qas = random.Random(7).sample(qas, min(args.limit, len(qas)))
            engines = {r: Tether(Path(tmp) / f"{title}.db", settings=load_settings(reader=r))
                       for r in ("lexical", "trained")}
            engines["lexical"].ingest(folder, license="CC BY-SA 4.0")
            for qa in qas:
                row = {"article": title, "answerable": not qa["is_impossible"]}
                gold = qa["answers"]
                for reader, tether in engines.items():
                    answer = tether.ask(qa["question"])
                    row[reader] = (not answer.refused) if row["answerable"] else answer.refused
                    if row["answerable"] and not answer.refused:
                        row[reader] = _right(answer, gold)
                    row[f"{reader}_ms"] = answer.timings_ms.get("total_ms", 0.0)
                hits = refine(engines["trained"].store, qa["question"],
                              retrieve(engines["trained"].store, qa["question"], k=16), k=8)
                reads = read_sentences(qa["question"], hits, keep=_is_content, limit=32)
                row["best"] = reads[0].score if reads else 0.0
                row["bm25"] = _bm25_top(engines["trained"], qa["question"], gold) if row["answerable"] else False
                rows.append(row)
            for tether in engines.values():
                tether.close()
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    report = {"split": args.split, "articles": sorted(by_title), "questions": len(rows),
              "answerable": len(answerable), "unanswerable": len(unanswerable),
              "seconds": round(time.perf_counter() - started, 1)}
    for reader in ("lexical", "trained"):
        ms = sorted(r[f"{reader}_ms"] for r in rows)
        report[reader] = {
            "answer_accuracy": round(sum(r[reader] for r in answerable) / len(answerable), 3),
            "unanswerable_recall": round(sum(r[reader] for r in unanswerable) / len(unanswerable), 3),
            "ask_p50_ms": round(ms[len(ms) // 2], 1),
        }
    report["bm25_top_sentence"] = {
        "answer_accuracy": round(sum(r["bm25"] for r in answerable) / len(answerable), 3),
        "unanswerable_recall": 0.0}
    report["answerability_auc"] = _auc([r["best"] for r in answerable], [r["best"] for r in unanswerable])
    print(f"SQuAD 2.0 {args.split} articles {', '.join(report['articles'])}: {len(rows)} questions "
          f"({len(answerable)} answerable)")
    for name in ("lexical", "trained", "bm25_top_sentence"):
        print(f"  {name:18s} " + "  ".join(f"{k} {v}" for k, v in report[name].items()))
    print(f"  answerability AUC (best candidate) {report['answerability_auc']:.3f}"
          "   target: unanswerable recall >= 0.70 at answer accuracy >= 0.70")
    if args.sweep:
        sweep = {}
        for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
            # Upper bound of the gate at t: the best candidate must reach t.
            sweep[t] = {"kept_answerable": round(sum(r["best"] >= t for r in answerable) / len(answerable), 3),
                        "unanswerable_recall": round(sum(r["best"] < t for r in unanswerable) / len(unanswerable), 3)}
            print(f"  threshold {t}: answerable kept {sweep[t]['kept_answerable']}"
                  f"  unanswerable refused {sweep[t]['unanswerable_recall']}")
        report["sweep"] = sweep
    if args.json:
        args.json.write_text(json.dumps({"report": report, "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
