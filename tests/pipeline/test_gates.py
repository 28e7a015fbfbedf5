"""The gates one by one, and the stream they make, over a small store."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tether import Tether
from tether.config import Settings
from tether.ops.monitor import recheck_answer
from tether.pipeline import Done, Sentence, Sources, gates, stream
from tether.records import Draft, Hit

DOC = (
    "Methanol boils at 64.7 °C at sea level. Methanol is toxic when swallowed. "
    "The OASB 8-hour limit for methanol is 200 ppm."
)
QUESTION = "At what temperature does methanol boil?"


@pytest.fixture
def tether(tmp_path: Path) -> Iterator[Tether]:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "methanol.txt").write_text(DOC)
    t = Tether(tmp_path / "t.db", settings=Settings())
    t.ingest(tmp_path / "docs", source="https://ex.org/methanol", license="CC0")
    yield t
    t.close()


class Scripted:
    name = "scripted"

    def __init__(self, *texts: str) -> None:
        self.texts = texts

    def generate(self, question: str, hits: Sequence[Hit], *, steering: str | None = None) -> Iterator[Draft]:
        yield from (Draft(t) for t in self.texts)


def _run(tether: Tether, question: str = QUESTION, modes: object = None, *texts: str) -> gates.Run:
    gen = Scripted(*texts) if texts else tether.generator()
    return gates.begin(tether, question, principals=None, generator=gen, modes=modes)  # type: ignore[arg-type]


def test_retrieve_then_probe_refuses_a_weak_retrieval_or_notes_it_in_shadow(tether):
    run = _run(tether, "Who painted the Mona Lisa?")
    assert isinstance(gates.retrieve_sources(tether, run), Sources)
    gates.probe_gate(tether, run)
    assert run.refusal is not None and run.refusal[0] == "probe" and not run.shadow
    shadow = _run(tether, "Who painted the Mona Lisa?", "shadow")
    gates.retrieve_sources(tether, shadow)
    gates.probe_gate(tether, shadow)
    assert shadow.refusal is None and shadow.shadow[0]["layer"] == "probe"
    assert list(run.timings) == ["retrieve_ms", "probe_ms"]


def test_guard_keeps_the_supported_draft_and_drops_the_changed_figure(tether):
    run = _run(tether, QUESTION, None, "Methanol boils at 64.7 °C at sea level.",
               "Methanol boils at 99 °C at sea level.", "Methanol boils at 64.7 °C at sea level.")
    gates.retrieve_sources(tether, run)
    gates.probe_gate(tether, run)
    verified = list(gates.generate_and_guard(tether, run, gates.ground(tether, run)))
    assert [s.text for s in verified] == ["Methanol boils at 64.7 °C at sea level."]
    assert len(run.drafts) == 2  # the repeated draft is not judged twice
    assert [d.verdict.outcome for d in run.dropped] == ["contradicted"]


def test_withholding_waits_for_an_answering_sentence_with_abstain_on(tether):
    run = _run(tether, QUESTION, None, "Methanol is toxic when swallowed.",
               "Methanol boils at 64.7 °C at sea level.")
    gates.retrieve_sources(tether, run)
    gates.probe_gate(tether, run)
    grounds = gates.ground(tether, run)
    shown = [gates.withhold(run, grounds, s) for s in gates.generate_and_guard(tether, run, grounds)]
    assert [[s.text for s in ready] for ready in shown] == [
        [], ["Methanol is toxic when swallowed.", "Methanol boils at 64.7 °C at sea level."]]
    assert run.withheld == []


def test_settle_refuses_on_and_notes_shadow():
    run = gates.Run(question="q", principals=None, generator=Scripted(), modes={"abstain": "on"},
                    threshold=None, trace_id="tr")  # type: ignore[arg-type]
    run.kept = run.withheld = []
    assert gates.settle(run, "off topic", "on") == [] and run.refusal == ("guard", "off topic")
    other = gates.Run(question="q", principals=None, generator=Scripted(), modes={"abstain": "shadow"},
                      threshold=None, trace_id="tr")  # type: ignore[arg-type]
    assert gates.settle(other, "off topic", "shadow") == [] and other.refusal is None
    assert other.shadow == [{"gate": "abstain", "layer": "guard", "reason": "off topic", "would": "refuse"}]


def test_stream_order_and_the_recorded_recheck_rides_on_done(tether):
    events = list(stream(tether, QUESTION, generator=tether.generator()))
    assert isinstance(events[0], Sources) and isinstance(events[-1], Done)
    assert all(isinstance(e, Sentence) for e in events[1:-1]) and len(events) > 2
    done = events[-1]
    assert done.rechecks == tuple(recheck_answer(done.answer, tether.store, settings=tether.settings))
    assert all(r.grounded for r in done.rechecks)
    assert [e.sentence for e in events[1:-1]] == list(done.answer.sentences)
    unrecorded = list(stream(tether, QUESTION, generator=tether.generator(), record=False))[-1]
    assert isinstance(unrecorded, Done) and unrecorded.rechecks is None
    assert len(tether.store.metric_records()) == 1


def test_a_refusal_says_which_stage_ran_dry(tether):
    answer = tether.ask(QUESTION, generator=Scripted("Methanol boils at 99 °C at sea level."))
    assert answer.refused and answer.refusal_layer == "guard" and answer.sentences == ()
    assert "none of the 1 proposed sentences" in (answer.refusal_reason or "")
    assert tether.ask(QUESTION, generator=Scripted()).refusal_layer == "generator"
