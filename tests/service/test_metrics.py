"""/metrics: answers, refusals by layer, drops by outcome, groundedness re-checked on what
was served, probe signals, latency by route template (never a concrete path)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from prometheus_client.parser import text_string_to_metric_families

from tether import Tether
from tether.records import Answer, Draft, Hit, Probe
from tether.service.metrics import Metrics, recheck


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return out


class Mixed:
    """One true sentence from the passages and one with a changed figure."""

    name = "mixed"

    def generate(self, question: str, hits: Sequence[Hit], *, steering: str | None = None) -> Iterator[Draft]:
        yield Draft("Methanol boils at 64.7 °C at sea level.")
        yield Draft("Methanol boils at 99 °C at sea level.")


class MixedTether(Tether):
    def generator(self, name: str = "extractive", **options):  # type: ignore[override]
        return Mixed() if name == "mixed" else super().generator(name, **options)


def test_counts_answers_refusals_drops_and_groundedness(tmp_path, client_for):
    from .conftest import build_acl_store

    build_acl_store(tmp_path / "m.db").close()
    with MixedTether(tmp_path / "m.db", create=False) as tether:
        client = client_for(tether)
        client.post("/v1/answers", json={"question": "At what temperature does methanol boil?",
                                         "generator": "mixed"})
        with client.stream("POST", "/v1/answers", json={"question": "Tell me about Zanzibar.",
                                                        "stream": True}) as r:
            r.read()
        client.get("/v1/documents/doc_secret_looking_id")
        text = client.get("/metrics").text
    s = samples(text)
    assert s["tether_answers_total", (("refused", "false"), ("stream", "false"))] == 1
    assert s["tether_answers_total", (("refused", "true"), ("stream", "true"))] == 1
    assert s["tether_refusals_total", (("layer", "probe"),)] == 1
    assert s["tether_refusals_total", (("layer", "guard"),)] == 0
    assert s["tether_dropped_sentences_total", (("outcome", "contradicted"),)] == 1
    assert s["tether_sentences_served_total", ()] == 1
    assert s["tether_sentences_grounded_total", ()] == 1
    assert s["tether_sentences_cited_total", ()] == 1
    assert s["tether_answer_groundedness_count", ()] == 1  # the refusal is not an answer with sentences
    assert s["tether_answer_groundedness_sum", ()] == 1.0
    assert s["tether_time_to_sources_seconds_count", ()] == 1
    assert s["tether_time_to_first_sentence_seconds_count", ()] == 0  # the stream was a refusal
    assert s["tether_request_seconds_count", (("method", "GET"), ("route", "/v1/documents/{doc_id}"),
                                              ("status", "404"))] == 1
    assert "doc_secret_looking_id" not in text and "zanzibar" not in text.lower()


def test_recheck_catches_a_quote_that_no_longer_matches_the_store(demo_tether):
    answer = demo_tether.ask("What is the boiling point of methanol?")
    assert answer.sentences and recheck(answer, demo_tether.store, demo_tether.settings) == (
        len(answer.sentences), len(answer.sentences))
    sentence = answer.sentences[0]
    citation = sentence.citations[0]
    moved = dataclasses.replace(citation, start=citation.start + 1, end=citation.end + 1)
    tampered = dataclasses.replace(answer, sentences=(dataclasses.replace(sentence, citations=(moved,)),))
    assert recheck(tampered, demo_tether.store, demo_tether.settings) == (0, 1)
    unsupported = dataclasses.replace(
        answer, sentences=(dataclasses.replace(sentence, text="Methanol boils at 12 °C."),))
    assert recheck(unsupported, demo_tether.store, demo_tether.settings) == (0, 1)


def test_probe_signal_is_counted_per_answer():
    metrics = Metrics()
    answer = Answer(question="q", sentences=(), dropped=(), refused=True, refusal_reason="weak",
                    trace_id="tr_1", refusal_layer="probe",
                    probe=Probe(signal="weak", score=0.1, threshold=0.3, scorer="s"))
    metrics.answer(answer, stream=False)
    s = samples(metrics.render().decode())
    assert s["tether_probe_signals_total", (("signal", "weak"),)] == 1
    assert s["tether_refusals_total", (("layer", "probe"),)] == 1


def test_a_served_answer_is_rechecked_once(demo_tether, client_for, monkeypatch):
    from tether.ops import monitor

    calls = []
    real = monitor.recheck_sentence

    def counted(sentence, *args, **kwargs):
        calls.append(sentence.text)
        return real(sentence, *args, **kwargs)

    monkeypatch.setattr(monitor, "recheck_sentence", counted)
    rechecked_again = []
    monkeypatch.setattr(Metrics, "recheck", lambda self, answer, *a: rechecked_again.append(answer))
    client = client_for(demo_tether)
    body = client.post("/v1/answers", json={"question": "What is the boiling point of methanol?"}).json()
    with client.stream("POST", "/v1/answers", json={"question": "What is the boiling point of methanol?",
                                                    "stream": True}) as r:
        r.read()
    served = [s["text"] for s in body["sentences"]]
    assert served and calls == served * 2  # once per answer: when it was recorded
    assert rechecked_again == []  # the service counts the recorded re-check
    s = samples(client.get("/metrics").text)
    assert s["tether_sentences_grounded_total", ()] == s["tether_sentences_served_total", ()] == 2 * len(served)
