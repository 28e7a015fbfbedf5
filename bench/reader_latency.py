"""What the reader costs an ask, and what it changes on the demo questions.

    python3 bench/reader_latency.py --model /work/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
        [--threads 2] [--service] [--clients 1,8] [--slots 1,4] [--requests 16]

In-process, on the demo store (extractive generator): every demo question is asked
without a judge (the baseline) and with ``judge = "gguf:PATH"`` (default thresholds,
or ``--pinned``), both with the abstain gate on; printed are p50/p95 of the ask's
total time for both, the difference, the model's resident memory (VmRSS after load
minus before), and answer accuracy / abstain recall graded as ``tether eval`` grades
(every ``expect_contains`` in the shown text; an unanswerable question refused).

With ``--service``, ``tether serve`` is started with the reader on a fresh demo store
for each ``--slots`` value and driven by 1 and 8 concurrent clients (POST
/v1/answers, at most ``--requests`` requests per cell, bounded in time), over loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tether.cli.demo import build_demo_store, demo_dir
from tether.config import Settings
from tether.facade import Tether


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def questions() -> list[dict]:
    path = demo_dir() / "questions.jsonl"
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


def grade(q: dict, answer) -> bool:
    if not q["answerable"]:
        return answer.refused
    shown = " ".join(s.text for s in answer.sentences)
    return not answer.refused and all(e in shown for e in q.get("expect_contains", []))


def in_process(db: Path, settings: Settings, label: str) -> dict:
    before = rss_mb()
    with Tether(db, settings=settings, create=False) as tether:
        t = time.perf_counter()
        judge = tether.judge()
        load_s = time.perf_counter() - t
        loaded = rss_mb()
        calls = _count_calls(judge)
        qs = questions()
        times, ok = [], []
        for q in qs:
            t = time.perf_counter()
            answer = tether.ask(q["question"], record=False)
            times.append(time.perf_counter() - t)
            ok.append((q, grade(q, answer)))
    ans = [g for q, g in ok if q["answerable"]]
    una = [g for q, g in ok if not q["answerable"]]
    row = {"label": label, "p50": pct(times, 0.5), "p95": pct(times, 0.95),
           "mean": statistics.mean(times), "load_s": load_s, "rss_mb": loaded - before,
           "accuracy": sum(ans) / len(ans), "abstain_recall": sum(una) / len(una),
           "n": len(qs), "judge": getattr(judge, "describe", lambda: "none")(),
           "calls_per_ask": calls[0] / len(qs)}
    print(f"{label:<14} p50 {row['p50']:.2f} s  p95 {row['p95']:.2f} s  mean {row['mean']:.2f} s"
          f"  accuracy {row['accuracy']:.3f} ({sum(ans)}/{len(ans)})  abstain recall "
          f"{row['abstain_recall']:.3f} ({sum(una)}/{len(una)})  load {load_s:.1f} s  "
          f"+RSS {row['rss_mb']:.0f} MB  reader calls/ask {row['calls_per_ask']:.2f}", flush=True)
    return row


def _count_calls(judge: object) -> list[int]:
    """A counter of the model calls ``judge`` makes from now on (its model's
    ``yes_probability``, wrapped); [0] forever when there is no reader."""
    count = [0]
    model = getattr(judge, "model", None)
    if model is None:
        return count
    ask = model.yes_probability

    def counted(*args: object, **kwargs: object) -> float:
        count[0] += 1
        return ask(*args, **kwargs)

    model.yes_probability = counted
    return count


def service(db: Path, model: str, threads: int, slots: int, clients: list[int],
            requests: int, seconds: float) -> None:
    from bench_service import drive, start_server

    os.environ.update({"TETHER_JUDGE": f"gguf:{model}", "TETHER_JUDGE_SLOTS": str(slots),
                       "TETHER_JUDGE_THREADS": str(threads)})
    qs = [q["question"] for q in questions()]
    proc, url = start_server(db)
    try:
        for n in clients:
            run = asyncio.run(drive(url, "answer", n, qs, seconds, requests))
            print(f"service slots={slots} clients={n}: {len(run.latencies)} answers in "
                  f"{run.seconds:.1f} s = {run.rate:.3f}/s; p50 {pct(run.latencies, 0.5):.1f} s, "
                  f"p95 {pct(run.latencies, 0.95):.1f} s; errors (504 or failed) {run.errors}", flush=True)
    finally:
        proc.terminate()
        proc.wait(30)
        for key in ("TETHER_JUDGE", "TETHER_JUDGE_SLOTS", "TETHER_JUDGE_THREADS"):
            os.environ.pop(key, None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--pinned", default="", help="judge_threshold for the reader run")
    ap.add_argument("--service", action="store_true")
    ap.add_argument("--skip-in-process", action="store_true")
    ap.add_argument("--clients", default="1,8")
    ap.add_argument("--slots", default="1,4")
    ap.add_argument("--requests", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=240.0)
    args = ap.parse_args(argv)
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at start")
    with tempfile.TemporaryDirectory(prefix="tether-reader-lat-") as tmp:
        db = Path(tmp) / "demo.db"
        build_demo_store(db).close()
        if not args.skip_in_process:
            base = in_process(db, Settings(), "lexical only")
            read = in_process(db, Settings(judge=f"gguf:{args.model}", judge_threads=args.threads,
                                           judge_threshold=args.pinned), "+ reader")
            print(f"added per ask: p50 {read['p50'] - base['p50']:+.2f} s, "
                  f"p95 {read['p95'] - base['p95']:+.2f} s; {read['judge']}")
        if args.service:
            for slots in (int(s) for s in args.slots.split(",")):
                service(db, args.model, args.threads, slots,
                        [int(c) for c in args.clients.split(",")], args.requests, args.seconds)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
