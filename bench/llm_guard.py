"""Precision and recall of the guard on real LLM sentences, lexical vs trained reader.

The sentences in ``bench/llm_guard_labels.jsonl`` were written by a real local LLM
(Qwen2.5-Coder-1.5B-Instruct Q4_K_M, greedy, through ../shared/tools/llm_server.py; see
../shared/REAL-LLM.md) answering answerable SQuAD 2.0 dev questions on the "Normans"
article, and labelled by hand against the passages retrieved for their question:

- ``stated``: the retrieved passages state it (a paraphrase counts);
- ``not_stated``: anything they do not state (wrong subject, flipped direction, another
  entity's figure, fused halves, added facts), with a short ``note``.

The labels were made by reading the sentence against the passages, not by looking at
what Tether decided. Generation (once, in the background, ~1 min a question on two busy
cores; the raw output is not needed here):

    OPENAI_API_KEY=dummy TETHER_READER=lexical TETHER_TOP_K=4 tether ask \\
        --jsonl Q.jsonl --db /tmp/normans.db --generator openai \\
        --base-url http://127.0.0.1:8099/v1 --model qwen --timeout 180 --mode abstain=off \
        --answers free

This script rebuilds the store (one document per paragraph, ``pNN.txt``) unless
``--db`` names one, then replays each question's sentences, in the order the model
wrote them, through the real pipeline (``Tether.ask`` with a generator that yields
those drafts: same retrieval, same evidence units, same guard and judge) under
``Settings(reader="lexical")`` and ``Settings(reader="trained")`` (the default: the
shipped support model judges behind the exact checks), with the abstain gate off as in
the generation run. "Shown" = the sentence is in ``Answer.sentences``. It prints
precision and recall of "shown" against the ``stated`` labels for both readers.

The replayed drafts carry no citation-marker hints (the raw output does not keep them),
so a decision may differ from the generation run where a hint picked the passage; the
retrieved documents are checked against the ones recorded in the labels file. The
decisions are those of the code this runs under (the labels do not depend on it).

    python bench/llm_guard.py [--labels bench/llm_guard_labels.jsonl]
        [--data ../shared/data/squad2-dev-normans.json] [--db FILE] [--top-k 4]
        [--examples 5] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from tether.config import Settings
from tether.facade import Tether
from tether.records import Draft, Hit

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "squad2-dev-normans.json"
READERS = ("lexical", "trained")


class Replay:
    """A generator that proposes the recorded sentences of one question, in order."""

    name = "replay"

    def __init__(self) -> None:
        self.sentences: list[str] = []
        self.retrieved: list[str] = []

    def generate(
        self, question: str, hits: Sequence[Hit], *, steering: str | None = None
    ) -> Iterator[Draft]:
        self.retrieved = [Path(h.document.source).stem or h.document.title for h in hits]
        for text in self.sentences:
            yield Draft(text)


def load_labels(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        if row["label"] not in ("stated", "not_stated"):
            raise SystemExit(f"bad label {row['label']!r} for {row['sentence']!r}")
    return rows


def build_store(data: Path, folder: Path) -> Path:
    """One document per paragraph, pNN.txt, ingested into folder/normans.db."""
    paragraphs = json.loads(data.read_text(encoding="utf-8"))["data"][0]["paragraphs"]
    docs = folder / "normans"
    docs.mkdir(parents=True, exist_ok=True)
    for i, paragraph in enumerate(paragraphs):
        (docs / f"p{i:02d}.txt").write_text(paragraph["context"].strip() + "\n", encoding="utf-8")
    db = folder / "normans.db"
    with Tether(db, settings=Settings(reader="lexical")) as t:
        failed = [r for r in t.ingest(docs) if getattr(r, "error", None)]
    if failed:
        raise SystemExit(f"ingest failed: {failed}")
    return db


def decide(db: Path, rows: list[dict], reader: str, top_k: int) -> tuple[list[bool], int]:
    """Shown (True) or not for each labelled row under one reader; retrieval mismatches."""
    by_question: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_question.setdefault(row["id"], []).append(i)
    shown = [False] * len(rows)
    mismatched = 0
    settings = Settings(reader=reader, top_k=top_k)
    with Tether(db, settings=settings) as t:
        for qid, indexes in by_question.items():
            replay = Replay()
            # The pipeline skips a repeated sentence of one answer, so each is proposed once.
            replay.sentences = list(dict.fromkeys(rows[i]["sentence"] for i in indexes))
            answer = t.ask(rows[indexes[0]]["question"], generator=replay,
                           modes={"abstain": "off"}, record=False)
            recorded = rows[indexes[0]].get("retrieved")
            if recorded and recorded != replay.retrieved:
                mismatched += 1
            kept = {s.text for s in answer.sentences}
            for i in indexes:
                shown[i] = rows[i]["sentence"].strip() in kept
    return shown, mismatched


def scores(labels: list[bool], shown: list[bool]) -> dict:
    tp = sum(1 for s, l in zip(shown, labels) if s and l)
    fp = sum(1 for s, l in zip(shown, labels) if s and not l)
    fn = sum(1 for s, l in zip(shown, labels) if not s and l)
    tn = sum(1 for s, l in zip(shown, labels) if not s and not l)
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    return {"shown": tp + fp, "tp": tp, "fp": fp, "fn": fn, "tn": tn,
            "precision": precision, "recall": recall,
            "not_stated_shown_rate": fp / (fp + tn) if fp + tn else float("nan")}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--labels", type=Path, default=HERE / "llm_guard_labels.jsonl")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--db", type=Path, help="an existing store of the paragraphs (else rebuilt)")
    ap.add_argument("--top-k", type=int, default=4, help="top_k of the generation run")
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("--json", type=Path, help="write per-sentence decisions here")
    args = ap.parse_args(argv)

    rows = load_labels(args.labels)
    stated = [r["label"] == "stated" for r in rows]
    questions = len({r["id"] for r in rows})
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or build_store(args.data, Path(tmp))
        decisions: dict[str, list[bool]] = {}
        for reader in READERS:
            started = time.perf_counter()
            decisions[reader], mismatched = decide(db, rows, reader, args.top_k)
            print(f"[{reader}: {time.perf_counter() - started:.1f}s, "
                  f"{mismatched} question(s) retrieved other documents than recorded]",
                  file=sys.stderr)

    print(f"command: python {' '.join([sys.argv[0], *(argv or sys.argv[1:])])}")
    print(f"{questions} questions, {len(rows)} LLM sentences: {sum(stated)} stated, "
          f"{len(rows) - sum(stated)} not_stated (hand labels)")
    print(f"{'reader':8s} {'shown':>5s} {'TP':>4s} {'FP':>4s} {'FN':>4s} {'TN':>4s} "
          f"{'precision':>9s} {'recall':>7s} {'not_stated shown':>16s}")
    results = {}
    for reader in READERS:
        s = results[reader] = scores(stated, decisions[reader])
        print(f"{reader:8s} {s['shown']:5d} {s['tp']:4d} {s['fp']:4d} {s['fn']:4d} {s['tn']:4d} "
              f"{s['precision']:9.3f} {s['recall']:7.3f} {s['not_stated_shown_rate']:16.3f}")

    lex, tr = decisions["lexical"], decisions["trained"]
    groups = {
        "trained shown, not_stated": [i for i, r in enumerate(rows) if tr[i] and not stated[i]],
        "lexical shown, not_stated": [i for i, r in enumerate(rows) if lex[i] and not stated[i]],
        "stated, dropped by both": [i for i, r in enumerate(rows) if stated[i] and not lex[i] and not tr[i]],
        "stated, shown by trained only": [i for i, r in enumerate(rows) if stated[i] and tr[i] and not lex[i]],
        "stated, shown by lexical only": [i for i, r in enumerate(rows) if stated[i] and lex[i] and not tr[i]],
    }
    for title, indexes in groups.items():
        print(f"\n{title}: {len(indexes)}")
        for i in indexes[: args.examples]:
            note = f"  [{rows[i]['note']}]" if rows[i].get("note") else ""
            print(f"  - Q: {rows[i]['question']}\n    S: {rows[i]['sentence']}{note}")
    if args.json:
        out = {"results": results, "rows": [
            {**r, "lexical_shown": lex[i], "trained_shown": tr[i]} for i, r in enumerate(rows)]}
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
