"""Extractive default vs free text + guard (without and with repair) vs quote-bound, on a
real local model (ADR 0050, ADR 0058).

Asks the same SQuAD 2.0 "Normans" questions (one document per paragraph, as in
``bench/llm_guard.py``) three ways through the real pipeline (``Tether.ask``, the
default trained reader, every gate on):

- ``extractive``: the default generator, no model;
- ``free``: ``--generator openai --answers free --no-repair`` — the model writes, the
  guard checks and drops what it does not accept;
- ``free_repair``: the same model reply (replayed, so both read the same words) with
  repair on (the default): a dropped sentence is shown as the passage sentence stating it
  when that one is a verified quote that answers (ADR 0058);
- ``quotes``: ``--generator openai`` (the default mode) — the model chooses sentence ids
  among the shortlist the answerability model reads as likeliest (ADR 0071);
- ``quotes_all``: the same with every passage sentence numbered (``generator_shortlist = 0``).

and prints, per mode, answer accuracy (an answerable question answered with a shown
sentence that contains one of its answers, case-insensitive), abstain recall
(unanswerable questions refused), and the shown / dropped sentence counts. The model
runs behind an OpenAI-compatible server on loopback, as ../shared/REAL-LLM.md describes
(Qwen2.5-Coder-1.5B-Instruct Q4_K_M through ../shared/tools/llm_server.py; ~20-30 s a
question on two busy cores, so run it in the background on a small sample)::

    python ../shared/tools/llm_server.py --port 8143 --model qwen.gguf --name qwen &
    OPENAI_API_KEY=dummy python bench/quote_bound.py --url http://127.0.0.1:8143/v1 \\
        --model qwen --n 15 --json /tmp/quote_bound.json

A sample of real documentation instead (realdocs-dev's questions, its corpus's store)::

    OPENAI_API_KEY=dummy python bench/quote_bound.py --url http://127.0.0.1:8143/v1 \\
        --model qwen --golden ../shared/data/realdocs-dev/golden.jsonl --db STORE --n 24

Free + repair alone, beside its free baseline (the quote-bound column skipped)::

    OPENAI_API_KEY=dummy python bench/quote_bound.py --url http://127.0.0.1:8143/v1 \\
        --model qwen --n 15 --seed 33 --modes extractive,free,free_repair

``--replies FILE`` keeps the model's replies and, run again, replays them: a change to
the guard measured on the same words, in minutes and without the model's run-to-run drift.
``--json`` keeps every question's shown sentences with their cited quotes and the
quote-bound trace, for reading each shown sentence against its citation by hand.
For the model modes it also prints the median time from the model's first token to
the first shown sentence (the stream is read as the CLI reads it, ``Tether.stream``;
for ``free_repair`` the replayed reply arrives at once, so its figure is the guard's).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tether.config import Settings
from tether.facade import Tether
from tether.generate import Generator
from tether.pipeline.events import Done, Sentence
from tether.records import REPAIRED, Answer

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from llm_guard import DEFAULT_DATA, build_store  # noqa: E402

MODES = ("extractive", "free", "free_repair", "quotes")
# The modes read with repair on; the others run with it off, so "free" is the guard alone.
REPAIRING = ("free_repair",)


class Replay:
    """A model client's replies kept by prompt: asked the same prompt again, it replays
    the tokens it streamed the first time (greedy decoding gives the same reply, so
    "free" and "free_repair" read one reply at the cost of one)."""

    def __init__(self, gen: Generator, replies: dict[tuple[str, str], list[str]]) -> None:
        self.replies = replies
        client = getattr(gen, "client", None)
        if client is not None:
            self.stream = client.stream
            client.stream = self.replayed

    def replayed(self, system: str, user: str) -> Iterator[str]:
        kept = self.replies.get((system, user))
        if kept is not None:
            yield from kept
            return
        pieces: list[str] = []
        for text in self.stream(system, user):
            pieces.append(text)
            yield text
        self.replies[system, user] = pieces


def load_replies(path: Path | None) -> dict[tuple[str, str], list[str]]:
    """Replies kept by an earlier run (``--replies``): a change to the guard is then
    measured on the very words it read before, without the model."""
    if path is None or not path.exists():
        return {}
    kept = json.loads(path.read_text(encoding="utf-8"))
    return {(system, user): pieces for system, user, pieces in kept}


def save_replies(path: Path | None, replies: dict[tuple[str, str], list[str]]) -> None:
    if path is not None:
        path.write_text(json.dumps([[s, u, p] for (s, u), p in replies.items()], ensure_ascii=False),
                        encoding="utf-8")


class FirstToken:
    """When the model's first token of the current question arrived (perf_counter)."""

    def __init__(self) -> None:
        self.at: float | None = None

    def wrap(self, gen: Generator) -> None:
        client = getattr(gen, "client", None)
        if client is None:
            return
        stream = client.stream

        def timed(system: str, user: str) -> Iterator[str]:
            for text in stream(system, user):
                if self.at is None:
                    self.at = time.perf_counter()
                yield text

        client.stream = timed


def ask(t: Tether, question: str, gen: Generator, first: FirstToken) -> tuple[Answer, float | None]:
    """The answer, and seconds from the model's first token to the first shown sentence."""
    first.at, shown_at, answer = None, None, None
    for event in t.stream(question, generator=gen, record=False):
        if isinstance(event, Sentence) and shown_at is None:
            shown_at = time.perf_counter()
        elif isinstance(event, Done):
            answer = event.answer
    assert answer is not None
    lag = shown_at - first.at if shown_at is not None and first.at is not None else None
    return answer, lag


def squad_questions(data: Path) -> list[dict[str, Any]]:
    paragraphs = json.loads(data.read_text(encoding="utf-8"))["data"][0]["paragraphs"]
    return [
        {"id": qa["id"], "question": qa["question"], "impossible": qa["is_impossible"],
         "answers": sorted({a["text"] for a in qa["answers"]})}
        for paragraph in paragraphs for qa in paragraph["qas"]
    ]


def golden_questions(golden: Path) -> list[dict[str, Any]]:
    """A realdocs-style golden file (one JSON object a line: question, answerable,
    expect_contains), as ``../shared/data/realdocs-dev/golden.jsonl``."""
    rows = [json.loads(line) for line in golden.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        {"id": r["id"], "question": r["question"], "impossible": not r["answerable"],
         "answers": r.get("expect_contains", [])}
        for r in rows
    ]


def sample(questions: list[dict[str, Any]], n: int, seed: int, kind: str = "all") -> list[dict[str, Any]]:
    """``n`` questions drawn with a fixed seed (``kind``: all, answerable, unanswerable)."""
    pool = [q for q in questions if kind == "all" or q["impossible"] == (kind == "unanswerable")]
    return random.Random(seed).sample(pool, min(n, len(pool)))


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def correct(answer: Answer, answers: Sequence[str]) -> bool:
    """An answer given is correct when a shown sentence holds one of the gold answers
    (whitespace and case folded)."""
    shown = _norm(" ".join(s.text for s in answer.sentences))
    return not answer.refused and any(_norm(a) in shown for a in answers)


def record(question: dict[str, Any], mode: str, answer: Answer) -> dict[str, Any]:
    return {
        "id": question["id"], "mode": mode, "question": question["question"],
        "impossible": question["impossible"], "answers": question["answers"],
        "refused": answer.refused, "refusal": answer.refusal_reason,
        "correct": correct(answer, question["answers"]),
        "shown": [{"text": s.text, "quote": s.citations[0].quote,
                   "repaired": REPAIRED in s.verdict.reasons} for s in answer.sentences],
        "repaired": answer.trace.get("repaired", []),
        "dropped": [{"text": d.text, "outcome": d.verdict.outcome, "rules": list(d.verdict.rules),
                     "reasons": list(d.verdict.reasons)} for d in answer.dropped],
        "quotes": answer.trace.get("quotes"), "failure": answer.trace.get("generator_failure"),
        "ms": answer.timings_ms, "first_token_to_sentence_s": None,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if not r["impossible"]]
    impossible = [r for r in rows if r["impossible"]]
    lags = [r["first_token_to_sentence_s"] for r in rows if r["first_token_to_sentence_s"] is not None]
    return {
        "questions": len(rows),
        "accuracy": f"{sum(r['correct'] for r in answerable)}/{len(answerable)}",
        "abstain_recall": f"{sum(r['refused'] for r in impossible)}/{len(impossible)}",
        "false_refusals": f"{sum(r['refused'] for r in answerable)}/{len(answerable)}",
        "shown": sum(len(r["shown"]) for r in rows),
        "dropped": sum(len(r["dropped"]) for r in rows),
        "repaired": sum(1 for r in rows for s in r["shown"] if s["repaired"]),
        "generator_failures": sum(1 for r in rows if r["failure"]),
        "median_first_token_to_sentence_s": statistics.median(lags) if lags else None,
    }


def generators(t: Tether, args: argparse.Namespace) -> dict[str, Generator]:
    llm = {"model": args.model, "base_url": args.url, "timeout": args.timeout, "max_retries": 0}
    return {
        "extractive": t.generator("extractive"),
        "free": t.generator("openai", answers="free", **llm),
        "free_repair": t.generator("openai", answers="free", **llm),  # the same one: replayed
        "quotes": t.generator("openai", answers="quotes", shortlist=args.shortlist, **llm),
        # every passage sentence numbered, as before the shortlist (ADR 0071)
        "quotes_all": t.generator("openai", answers="quotes", shortlist=0, **llm),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", required=True, help="OpenAI-compatible base URL (loopback)")
    ap.add_argument("--model", default="qwen")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--n", type=int, default=15)
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--kind", choices=("all", "answerable", "unanswerable"), default="all")
    ap.add_argument("--top-k", type=int, default=4, help="passages per question (prompt size)")
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--shortlist", type=int, default=Settings().generator_shortlist,
                    help="sentences the model is shown in the quotes mode (0: all)")
    ap.add_argument("--db", type=Path, help="an existing store of the paragraphs (else rebuilt)")
    ap.add_argument("--golden", type=Path,
                    help="ask a realdocs-style golden.jsonl's questions instead (needs --db: its corpus's store)")
    ap.add_argument("--json", type=Path, help="write every question's record here")
    ap.add_argument("--replies", type=Path,
                    help="keep the model's replies here, and replay those kept by an earlier run")
    args = ap.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    if args.golden and not args.db:
        ap.error("--golden needs --db, a store of the golden file's corpus")
    pool = golden_questions(args.golden) if args.golden else squad_questions(args.data)
    questions = sample(pool, args.n, args.seed, args.kind)
    db = args.db or build_store(args.data, Path(tempfile.mkdtemp(prefix="quote_bound_")))
    rows: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    first = FirstToken()
    with Tether(db, settings=Settings(top_k=args.top_k, repair=False)) as t, \
            Tether(db, settings=Settings(top_k=args.top_k, repair=True)) as repairing:
        gens = generators(t, args)
        replies = load_replies(args.replies)
        for gen in {id(g): g for g in gens.values()}.values():
            Replay(gen, replies)
            first.wrap(gen)
        for n, question in enumerate(questions, 1):
            for mode in modes:
                engine = repairing if mode in REPAIRING else t
                answer, lag = ask(engine, question["question"], gens[mode], first)
                row = record(question, mode, answer)
                row["first_token_to_sentence_s"] = round(lag, 3) if lag is not None else None
                rows[mode].append(row)
                print(f"{n:>3} {mode:<10} {'refused' if row['refused'] else 'answered':<8} "
                      f"correct={row['correct']!s:<5} impossible={question['impossible']!s:<5} "
                      f"shown={len(row['shown'])} dropped={len(row['dropped'])} "
                      f"repaired={len(row['repaired'])} "
                      f"{question['question']}", flush=True)
            save_replies(args.replies, replies)
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps({m: summary(r) for m, r in rows.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
