"""The abstain gate in the pipeline: on refuses, shadow only logs, off is silent."""

import pytest
from abstain_corpus import make_tether

from tether.records import to_json
from tether.retrieve.probe import DEFAULT_THRESHOLD

XANTHROL = "What is the Kestrel Board limit for xanthrol?"  # absent subject: guard layer
VELMONT = "Who is the finance director of Velmont Holdings?"  # nothing matches: probe layer
DRAVEX = "What is the shelf life of Dravex gloves?"  # weak retrieval: probe layer
BRISOL = "What is the Kestrel Board limit for brisol?"  # answerable


@pytest.fixture
def tether(tmp_path):
    with make_tether(tmp_path) as t:
        yield t


def test_on_refuses_weak_retrieval_at_the_probe_without_generating(tether):
    events = list(tether.stream(DRAVEX))
    assert [e.kind for e in events] == ["sources", "done"]
    answer = events[-1].data
    assert answer.refused and answer.refusal_layer == "probe"
    assert answer.refusal_reason.startswith(
        "no passage states the shelf life of Dravex gloves: 'shelf', 'life' and 'dravex' occur"
        " nowhere in the collection"
    )
    assert answer.probe.signal == "weak" and answer.probe.score < answer.probe.threshold
    assert answer.trace["probe"]["threshold_source"] == "default"


def test_on_refuses_an_empty_retrieval_at_the_probe(tether):
    answer = tether.ask(VELMONT)
    assert answer.probe.signal == "empty"
    assert (answer.refusal_layer, answer.refusal_reason) == (
        "probe", "no passage answers “Who is the finance director of Velmont Holdings?”: "
        "nothing in the collection matches the question"
    )


def test_on_refuses_a_neighbouring_fact_at_the_guard_and_shows_no_text(tether):
    events = list(tether.stream(XANTHROL))
    assert [e.kind for e in events] == ["sources", "done"]  # held back, never streamed
    answer = events[-1].data
    assert answer.refused and answer.sentences == ()
    assert answer.refusal_layer == "guard"
    assert answer.refusal_reason == (
        "no passage states the Kestrel Board limit for xanthrol: none of the passages found"
        " mentions 'xanthrol', so what they state is about something else"
    )
    assert answer.trace["withheld"]  # what would have been shown, for the audit


def test_answerable_question_streams_sources_then_sentences(tether):
    events = list(tether.stream(BRISOL))
    assert [e.kind for e in events] == ["sources", "sentence", "done"]
    answer = events[-1].data
    assert not answer.refused and "5 ppm" in answer.sentences[0].text
    data = to_json(answer)
    assert data["probe"] == {"signal": "ok", "score": 1.0, "threshold": DEFAULT_THRESHOLD,
                             "scorer": "sqlite-fts5-bm25"}
    assert data["modes"] == {"abstain": "on", "contradiction": "on", "figures": "on", "judge": "on"}


@pytest.mark.parametrize("question", [XANTHROL, DRAVEX])
def test_shadow_changes_nothing_but_logs(tether, question):
    off = tether.ask(question, modes={"abstain": "off"})
    shadow = tether.ask(question, modes={"abstain": "shadow"})
    assert [s.text for s in shadow.sentences] == [s.text for s in off.sentences]
    assert (shadow.refused, shadow.refusal_reason) == (off.refused, off.refusal_reason)
    assert shadow.modes["abstain"] == "shadow"
    log = tether.store.shadow_entries()
    assert len(log) == 1  # only the shadow run logged; off logs nothing
    entry = log[0]
    assert entry["question"] == question and entry["gate"] == "abstain"
    assert entry["trace_id"] == shadow.trace_id and entry["suppressed"] == "refusal"
    assert entry["layer"] in {"probe", "guard"} and entry["text"].startswith("No answer [")
    assert tether.ask(question).refused  # and on enforces what shadow logged


def test_shadow_logs_nothing_when_the_gate_agrees(tether):
    tether.ask(BRISOL, modes="shadow")
    assert tether.store.shadow_entries() == []


def test_record_false_writes_no_shadow_log(tether):
    answer = tether.ask(DRAVEX, modes={"abstain": "shadow"}, record=False)
    assert answer.trace["shadow"][0]["layer"] == "probe"
    assert tether.store.shadow_entries() == []
