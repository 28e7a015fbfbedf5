"""Typed events keep the ``kind``/``data`` reading; ``Trace`` is the trace's JSON."""

from __future__ import annotations

import dataclasses

import pytest

import tether
from tether.pipeline import (
    AnswerJudged,
    Done,
    Event,
    IgnoredMarkers,
    ProbeTrace,
    Sentence,
    Sources,
    Trace,
)
from tether.records import Answer


def test_public_event_is_the_base_of_the_typed_events():
    assert tether.Event is Event
    assert all(issubclass(t, Event) for t in (Sources, Sentence, Done))
    assert (Sources.kind, Sentence.kind, Done.kind) == ("sources", "sentence", "done")


def test_data_is_the_payload_and_events_are_frozen():
    answer = Answer(question="q", sentences=(), dropped=(), refused=True, refusal_reason="r",
                    trace_id="tr_1")
    done = Done(answer)
    assert (done.kind, done.data, done.rechecks) == ("done", answer, None)
    hits: list = []
    assert Sources(hits).data is hits
    with pytest.raises(dataclasses.FrozenInstanceError):
        done.answer = answer  # type: ignore[misc]


def test_trace_json_has_the_stored_keys_in_order_and_optional_ones_only_when_set():
    bare = Trace(retrieved=("p1", "p2"), probe=ProbeTrace("calibrated", ("zinc",), ()))
    assert bare.to_json() == {
        "retrieved": ["p1", "p2"],
        "shadow": [],
        "probe": {"threshold_source": "calibrated", "missing": ["zinc"], "absent": []},
        "withheld": [],
    }
    note = {"gate": "abstain", "layer": "probe", "reason": "weak", "would": "refuse"}
    full = dataclasses.replace(
        bare,
        shadow=(note,),
        withheld=("A.",),
        answer_judge=AnswerJudged("llm:x", "neutral", None),
        ignored_markers=(IgnoredMarkers("A.", (7,)),),
        generator_failure="",
        generator_model="m",
        answerability=(0.25, 0.9),
    ).to_json()
    assert list(full) == ["retrieved", "shadow", "probe", "withheld", "answer_judge",
                          "ignored_markers", "generator_failure", "generator_model",
                          "answerability"]
    assert full["answerability"] == [0.25, 0.9]
    assert full["answer_judge"] == {"checker": "llm:x", "label": "neutral", "error": None}
    assert full["ignored_markers"] == [{"sentence": "A.", "markers": [7]}]
    assert full["shadow"] == [note] and full["generator_failure"] == ""
