"""``stream``: one question through the gates, as events.

``Sources`` first (what was retrieved, before any text), then each ``Sentence`` as
soon as the guard has verified it and the abstain gate lets it through, then
``Done`` with the whole ``Answer``. A refusal is an ordinary answer with
``refused=True``, never an exception. The gates themselves are in ``gates``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import closing

from ..generate import Generator
from ..modes import ModesSpec
from . import gates
from .events import Done, Event, Sentence
from .state import Engine, Grounds, Run

__all__ = ["stream"]


def stream(
    engine: Engine,
    question: str,
    *,
    generator: Generator,
    principals: Sequence[str] | None = None,
    modes: ModesSpec = None,
    record: bool = True,
) -> Iterator[Event]:
    """Sources, then verified sentences as they pass, then the Answer (and, when
    ``record``, its audit, shadow and metrics rows)."""
    run = gates.begin(engine, question, principals=principals, generator=generator, modes=modes)
    yield gates.retrieve_sources(engine, run)
    gates.probe_gate(engine, run)
    if run.refusal is None and run.hits:
        yield from _sentences(engine, run, gates.ground(engine, run))
    answer = gates.finish(run)
    yield Done(answer, gates.record(engine, run, answer) if record else None)


def _sentences(engine: Engine, run: Run, grounds: Grounds) -> Iterator[Sentence]:
    """Generate and guard, show what may be shown, then judge the answer as a whole."""
    with closing(gates.generate_and_guard(engine, run, grounds)) as verified:
        for sentence in verified:
            yield from gates.release(run, gates.withhold(run, grounds, sentence))
    if run.kept and run.abstain != "off":
        why, gate = gates.answer_check(run, grounds), run.abstain
        if why is None:
            why, gate = gates.judge_gate(run, grounds)
        yield from gates.release(run, gates.settle(run, why, gate))
