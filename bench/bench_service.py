"""Load on the HTTP service over loopback: answers/s and latency against /healthz.

    PYTHONPATH=src python bench/bench_service.py [--seconds 4] [--max-requests 3000]
                                                 [--clients 1,8,32]

Starts ``python -m tether serve`` on a fresh demo store (extractive generator) on
127.0.0.1 with an ephemeral port, then, for each number of concurrent clients, runs
three workloads one after the other, each bounded by ``--seconds`` and
``--max-requests``:

- ``healthz``: GET /healthz, served by the same process: the cost of the HTTP stack,
  auth and metrics middleware alone (the baseline);
- ``answer``: POST /v1/answers (JSON);
- ``stream``: POST /v1/answers with ``stream: true``, read with an SSE client; the
  time to the ``sources`` event and to the first ``sentence`` event are measured at
  the client.

Questions cycle through the labelled demo questions (answerable and not). The load
generator is one asyncio process; the server is another, so on a 2-core machine the
two share the CPU as a real co-located client would. Ratios compare each workload
with ``healthz`` at the same concurrency in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from httpx_sse import aconnect_sse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tether.cli.demo import build_demo_store, demo_dir  # noqa: E402


@dataclass
class Run:
    workload: str
    clients: int
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    to_sources: list[float] = field(default_factory=list)
    to_first_sentence: list[float] = field(default_factory=list)
    errors: int = 0
    refusals: int = 0

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def one(client: httpx.AsyncClient, workload: str, question: str, run: Run) -> None:
    started = time.perf_counter()
    if workload == "healthz":
        response = await client.get("/healthz")
        ok = response.status_code == 200
    elif workload == "answer":
        response = await client.post("/v1/answers", json={"question": question})
        ok = response.status_code == 200
        run.refusals += ok and response.json()["refused"]
    else:
        ok = False
        async with aconnect_sse(client, "POST", "/v1/answers",
                                json={"question": question, "stream": True}) as source:
            first_sentence = True
            async for sse in source.aiter_sse():
                now = time.perf_counter() - started
                if sse.event == "sources":
                    run.to_sources.append(now)
                elif sse.event == "sentence" and first_sentence:
                    run.to_first_sentence.append(now)
                    first_sentence = False
                elif sse.event == "done":
                    ok = True
                    run.refusals += json.loads(sse.data)["refused"]
    if ok:
        run.latencies.append(time.perf_counter() - started)
    else:
        run.errors += 1


async def drive(url: str, workload: str, clients: int, questions: list[str], seconds: float,
                max_requests: int) -> Run:
    run = Run(workload, clients)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        issued = 0
        deadline = time.perf_counter() + seconds

        async def worker(offset: int) -> None:
            nonlocal issued
            n = offset
            while time.perf_counter() < deadline and issued < max_requests:
                issued += 1
                await one(client, workload, questions[n % len(questions)], run)
                n += clients

        # Warm the connections and the server's caches outside the measurement.
        await asyncio.gather(*(one(client, workload, questions[0], Run(workload, clients))
                               for _ in range(clients)))
        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        run.seconds = time.perf_counter() - started
    return run


def start_server(db: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "tether", "serve", "--db", str(db), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
        if found:
            url = found.group(1)
            for _ in range(200):
                try:
                    httpx.get(url + "/healthz", timeout=1)
                    return proc, url
                except httpx.TransportError:
                    time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="per workload and concurrency")
    parser.add_argument("--max-requests", type=int, default=3000, help="per workload and concurrency")
    parser.add_argument("--clients", default="1,8,32")
    args = parser.parse_args()
    levels = [int(c) for c in args.clients.split(",")]
    questions = [json.loads(line)["question"]
                 for line in (demo_dir() / "questions.jsonl").read_text("utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="tether-bench-") as tmp:
        db = Path(tmp) / "demo.db"
        build_demo_store(db).close()
        proc, url = start_server(db)
        try:
            runs = [asyncio.run(drive(url, workload, clients, questions, args.seconds, args.max_requests))
                    for clients in levels for workload in ("healthz", "answer", "stream")]
        finally:
            proc.terminate()
            proc.wait(10)
    print(f"demo store, {len(questions)} questions cycled; {os.cpu_count()} CPUs; "
          f"each cell ≤ {args.seconds:g} s and ≤ {args.max_requests} requests\n")
    header = (f"{'workload':9} {'clients':>7} {'requests':>8} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
              f"{'×healthz req/s':>14} {'sources p50/p99 ms':>19} {'1st sentence p50/p99 ms':>24} {'errors':>6}")
    print(header)
    print("-" * len(header))
    base = {r.clients: r for r in runs if r.workload == "healthz"}
    for r in runs:
        ratio = r.rate / base[r.clients].rate if base[r.clients].rate else float("nan")
        sources = (f"{pct(r.to_sources, 0.5):.1f}/{pct(r.to_sources, 0.99):.1f}"
                   if r.to_sources else "-")
        first = (f"{pct(r.to_first_sentence, 0.5):.1f}/{pct(r.to_first_sentence, 0.99):.1f}"
                 if r.to_first_sentence else "-")
        print(f"{r.workload:9} {r.clients:>7} {len(r.latencies):>8} {r.rate:>8.1f} "
              f"{pct(r.latencies, 0.5):>8.2f} {pct(r.latencies, 0.99):>8.2f} {ratio:>14.3f} "
              f"{sources:>19} {first:>24} {r.errors:>6}")
    answered = [r for r in runs if r.workload != "healthz"]
    refused = sum(r.refusals for r in answered) / max(1, sum(len(r.latencies) for r in answered))
    print(f"\nrefusal share of answers: {refused:.2f} (labelled demo questions include unanswerable ones)")
    if any(r.to_first_sentence for r in runs):
        gap = statistics.median(
            pct(r.to_first_sentence, 0.5) - pct(r.to_sources, 0.5) for r in runs if r.to_first_sentence)
        print(f"median gap sources → first sentence across concurrencies: {gap:.1f} ms")


if __name__ == "__main__":
    main()
