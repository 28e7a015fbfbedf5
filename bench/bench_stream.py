"""Time to the first verified sentence while a model streams, against time to first token.

    PYTHONPATH=src python bench/bench_stream.py [--rate 50 --rate 200] [--runs 5]

A local OpenAI-compatible server (tests/generate/fake_llm.py, real SSE over HTTP,
real ``openai`` SDK client) streams a three-sentence answer about the bundled demo
corpus at a fixed token rate. For each run we record, from the moment ``stream`` is
called: the first token received (the baseline: nothing can be shown earlier), the
moment the assembler completes sentence one, the ``sentence`` event (after the
guard verified it), and the last token. Printed per rate (medians):

- first token → first verified sentence, and how much of it is the guard's own work
  (the rest is the model writing sentence one plus one lookahead token);
- first verified sentence as a share of the whole generation (a guard that waited
  for the full answer could show nothing before 100 %);
- first verified sentence vs. a buffered guard (whole answer, then verify), as a ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "generate"))

from fake_llm import FakeLLMServer, Reply, openai_stream, tokens  # noqa: E402

from tether.cli.demo import build_demo_store  # noqa: E402
from tether.generate.openai import OpenAIGenerator  # noqa: E402

QUESTION = "What is the flash point of acetone?"
ANSWER = (
    "Flash point: about -20 °C, which means acetone can ignite at any normal room "
    "temperature. [1] Acetone (propan-2-one) is a fast-evaporating solvent found in "
    "laboratories, paint strippers and nail-polish removers. [1] Boiling point: about 56 °C. [1]"
)


class Clock:
    """Timestamps of one run, relative to the call of ``stream``."""

    def __init__(self) -> None:
        self.start = 0.0
        self.first_token: float | None = None
        self.last_token = 0.0
        self.first_draft: float | None = None
        self.first_sentence: float | None = None
        self.done = 0.0

    def now(self) -> float:
        return time.perf_counter() - self.start


def instrument(gen: OpenAIGenerator, clock: Clock) -> None:
    """Wrap the client's token stream and the generator's drafts with timestamps."""
    client_stream = gen.client.stream
    generate = gen.generate

    def timed_stream(system: str, user: str) -> Iterator[str]:
        for text in client_stream(system, user):
            t = clock.now()
            if clock.first_token is None:
                clock.first_token = t
            clock.last_token = t
            yield text

    def timed_generate(*args: Any, **kwargs: Any) -> Iterator[Any]:
        for draft in generate(*args, **kwargs):
            if clock.first_draft is None:
                clock.first_draft = clock.now()
            yield draft

    gen.client.stream = timed_stream  # type: ignore[method-assign]
    gen.generate = timed_generate  # type: ignore[method-assign]


def run_once(tether: Any, url: str) -> Clock:
    gen = OpenAIGenerator(model="bench", base_url=url, timeout=30.0, max_retries=0, answers="free")
    clock = Clock()
    instrument(gen, clock)
    clock.start = time.perf_counter()
    kept = 0
    for event in tether.stream(QUESTION, generator=gen, record=False):
        if event.kind == "sentence":
            kept += 1
            if clock.first_sentence is None:
                clock.first_sentence = clock.now()
        elif event.kind == "done":
            clock.done = clock.now()
    if kept != 3 or clock.first_sentence is None:
        raise SystemExit(f"expected 3 verified sentences, got {kept}: the corpus or verifier changed")
    return clock


def buffered_guard(tether: Any, url: str) -> float:
    """Baseline: read the whole answer, then verify it (what a blocking output guard does)."""
    gen = OpenAIGenerator(model="bench", base_url=url, timeout=30.0, max_retries=0, answers="free")
    drafts = []
    start = time.perf_counter()
    drafts = list(gen.generate(QUESTION, _hits(tether)))

    class Replay:
        name = "replay"

        def generate(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
            yield from drafts

    for event in tether.stream(QUESTION, generator=Replay(), record=False):
        if event.kind == "sentence":
            return time.perf_counter() - start
    raise SystemExit("buffered baseline verified nothing")


def _hits(tether: Any) -> Any:
    from tether.retrieve.search import retrieve

    return retrieve(tether.store, QUESTION, k=tether.settings.top_k)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, action="append", help="tokens per second (repeatable)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rates = args.rate or [50.0, 200.0]
    pieces = tokens(ANSWER)
    first_sentence_tokens = next(i for i, p in enumerate(pieces) if p.strip() == "[1]") + 1
    print(f"answer: {len(pieces)} tokens, sentence one: {first_sentence_tokens} tokens (+1 lookahead)")
    with tempfile.TemporaryDirectory() as tmp:
        tether = build_demo_store(Path(tmp) / "demo.db")
        for rate in rates:
            frames = openai_stream(pieces, model="bench")
            with FakeLLMServer(Reply(frames=frames, gap=1.0 / rate)) as server:
                url = f"{server.url}/v1"
                run_once(tether, url)  # warm-up: imports, connection pool, caches
                clocks = [run_once(tether, url) for _ in range(args.runs)]
                buffered = statistics.median(buffered_guard(tether, url) for _ in range(args.runs))

            def med(key: Any) -> float:
                return statistics.median(key(c) for c in clocks)

            ttft = med(lambda c: c.first_token)
            first = med(lambda c: c.first_sentence)
            gap = med(lambda c: c.first_sentence - c.first_token)
            guard = med(lambda c: c.first_sentence - c.first_draft)
            writing = med(lambda c: c.first_draft - c.first_token)
            generation = med(lambda c: c.last_token - c.first_token)
            share = med(lambda c: (c.first_sentence - c.first_token) / (c.last_token - c.first_token))
            print(f"\nrate {rate:g} tokens/s, {args.runs} runs (medians)")
            print(f"  time to first token (baseline)        {ms(ttft)}")
            print(f"  time to first verified sentence       {ms(first)}  ({first / ttft:.1f}x the baseline)")
            print(f"  first token -> first verified sentence {ms(gap)}")
            print(f"    model writing sentence one (+1 tok) {ms(writing)}  (ideal {ms(first_sentence_tokens / rate)})")
            print(f"    guard verifying it                  {ms(guard)}")
            print(f"  whole generation (first -> last token) {ms(generation)}")
            print(f"  first verified sentence at {share:.0%} of the generation")
            print(f"  buffered guard, first sentence        {ms(buffered)}  "
                  f"(streaming shows it {buffered / first:.1f}x sooner)")
        tether.close()


if __name__ == "__main__":
    main()
