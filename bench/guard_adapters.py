"""What the framework adapters add to the guard: a 5-sentence answer against 8 passages,
verified by a direct ``verify_answer`` call (the baseline) and through each adapter in
the same run (ADR 0054). Target: at most 5 ms added (median) by any adapter.

Rows, each the median (and 90th percentile) time of ``--runs`` calls, the variants
interleaved call by call so that a busy machine slows them alike. Times are this
process's CPU time (``--clock wall`` for wall time, which other processes' load on a
shared machine makes bimodal):

- direct:               ``verify_answer(passages=..., answer=...)``
- core Guard.check:     ``tether.integrations.Guard`` on ``Source`` triples
- langchain invoke:     ``TetherGuard().invoke({"answer", "documents"})`` (Document objects)
- llamaindex response:  ``ResponseGuard()(Response(text, source_nodes))`` (NodeWithScore)
- haystack run:         ``TetherGuard().run(replies, documents)`` (Document objects)
- haystack pipeline:    the same component alone in a ``Pipeline`` (Haystack's own
                        per-run work — input checks, copies, scheduling — included)

All read with the lexical test alone (no model judge: the judge's time would be the same
in every row). Passages stay prepared between calls, as the guard caches them, so the
baseline is as short as it gets and the added time as visible; ``--cold`` clears that
cache before every call instead. A framework that is not installed is left out.

    python bench/guard_adapters.py [--runs 300] [--cold] [--clock cpu|wall]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no usage reports from a bench

from tether.config import Settings  # noqa: E402
from tether.facade import verify_answer  # noqa: E402
from tether.integrations import Guard, Source  # noqa: E402
from tether.verify.lexical import clear_cache  # noqa: E402

PASSAGES = {
    "bridge": "The harbour bridge opened in 1932 after six years of work. It carries 160,000 vehicles "
              "a day. Engineers replaced its cables in 2019, at a cost of $41 million.",
    "normandy": "Rollo, a Viking leader, agreed to swear fealty to King Charles III in 911. His "
                "descendants ruled Normandy for two centuries. The duchy was not part of France then.",
    "vaccine": "The vaccine reduced hospital admissions by 62% among adults over 65. It was less "
               "effective in children. The trial enrolled 4,200 volunteers in three countries.",
    "glaciers": "Most glaciers in the Alps have lost a third of their volume since 1980. Some may "
                "vanish by 2100. The Rhone glacier retreated 1.4 km over the last century.",
    "acetone": "Acetone is a colourless, volatile liquid. Its flash point is -20 °C, so vapours "
               "ignite easily at room temperature. Keep containers closed and away from sparks.",
    "water": "Water boils at 100 degrees Celsius at sea level. At higher altitudes the boiling point "
             "is lower, because the air pressure is lower. It freezes at 0 degrees.",
    "eyes": "Flush an eye exposed to a chemical with running water for at least 15 minutes. Hold the "
            "eyelids open and remove contact lenses if this is easy to do.",
    "methanol": "The occupational exposure limit for methanol is 200 ppm over an eight-hour shift. "
                "Methanol is absorbed through the skin, so gloves are required.",
}
ANSWER = (
    "The harbour bridge opened in 1932 after six years of work. "  # supported
    "Flush an eye exposed to a chemical with running water for at least 15 minutes. "  # supported
    "The flash point of acetone is -20 °C. "                        # supported
    "The vaccine reduced hospital admissions by 40% among adults over 65. "  # contradicted
    "The bridge was painted red in 1990."                           # unsupported
)


def _variants(settings: Settings) -> dict[str, Callable[[], Any]]:
    """Each way of guarding the same answer, by name; the frameworks' when installed."""
    guard = Guard(settings=settings, judge=None)
    sources = [Source(key, text, key) for key, text in PASSAGES.items()]
    variants: dict[str, Callable[[], Any]] = {
        "direct": lambda: verify_answer(passages=PASSAGES, answer=ANSWER, settings=settings),
        "core Guard.check": lambda: guard.check(ANSWER, sources),
    }
    for name, build in _FRAMEWORKS.items():
        try:
            variants.update(build(settings))
        except ImportError as exc:
            print(f"{name}: left out ({exc})")
    return variants


def _langchain(settings: Settings) -> dict[str, Callable[[], Any]]:
    from langchain_core.documents import Document

    from tether.integrations.langchain import TetherGuard

    guard = TetherGuard(settings=settings, judge=None)
    request = {"answer": ANSWER, "documents": [Document(page_content=t, id=k) for k, t in PASSAGES.items()]}
    return {"langchain invoke": lambda: guard.invoke(request)}


def _llamaindex(settings: Settings) -> dict[str, Callable[[], Any]]:
    from llama_index.core.base.response.schema import Response
    from llama_index.core.schema import NodeWithScore, TextNode

    from tether.integrations.llamaindex import ResponseGuard

    guard = ResponseGuard(settings=settings, judge=None)
    nodes = [NodeWithScore(node=TextNode(text=t, id_=k), score=1.0) for k, t in PASSAGES.items()]
    return {"llamaindex response": lambda: guard(Response(ANSWER, source_nodes=nodes))}


def _haystack(settings: Settings) -> dict[str, Callable[[], Any]]:
    from haystack import Document, Pipeline

    from tether.integrations.haystack import TetherGuard

    documents = [Document(id=k, content=t) for k, t in PASSAGES.items()]
    component = TetherGuard(settings=settings, judge=None)
    pipe = Pipeline()
    pipe.add_component("guard", TetherGuard(settings=settings, judge=None))
    inputs = {"guard": {"replies": [ANSWER], "documents": documents}}
    return {
        "haystack run": lambda: component.run(replies=[ANSWER], documents=documents),
        "haystack pipeline": lambda: pipe.run(inputs),
    }


CLOCKS = {"cpu": time.process_time_ns, "wall": time.perf_counter_ns}

_FRAMEWORKS: dict[str, Callable[[Settings], dict[str, Callable[[], Any]]]] = {
    "langchain": _langchain, "llamaindex": _llamaindex, "haystack": _haystack,
}


def _kept(result: Any) -> int:
    """How many sentences a variant kept (each must keep the same)."""
    if isinstance(result, list):
        return sum(row["outcome"] == "supported" for row in result)
    if isinstance(result, dict):  # haystack: the component's outputs, or the pipeline's
        outputs = result.get("guard", result)
        return len(outputs["guarded"][0].sentences)
    guarded = result.metadata["tether"] if hasattr(result, "metadata") else result
    return len(guarded.sentences)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--cold", action="store_true", help="clear the prepared passages before every call")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = parser.parse_args()
    clock = CLOCKS[args.clock]
    variants = _variants(Settings(reader="lexical"))
    kept = {name: _kept(call()) for name, call in variants.items()}  # warm-up, and a check
    assert len(set(kept.values())) == 1, kept
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.runs):
        for name, call in variants.items():
            if args.cold:
                clear_cache()
            start = clock()
            call()
            times[name].append((clock() - start) / 1e6)
    base = statistics.median(times["direct"])
    print(f"5 sentences x {len(PASSAGES)} passages, {kept['direct']} kept; {args.runs} runs each, "
          f"{'cold' if args.cold else 'warm'} passages, {args.clock} time; ms: median (p90), added = median - direct's "
          f"median, paired = median of (call - the direct call just before it)")
    for name, samples in times.items():
        median = statistics.median(samples)
        p90 = statistics.quantiles(samples, n=10)[-1]
        paired = statistics.median(t - d for t, d in zip(samples, times["direct"], strict=True))
        added = "" if name == "direct" else f"   added {median - base:+.3f}   paired {paired:+.3f}"
        print(f"{name:<20} {median:8.3f} ({p90:7.3f}){added}")


if __name__ == "__main__":
    main()
