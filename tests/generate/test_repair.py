"""Repair of free-text answers (ADR 0058) through the real OpenAI SDK against the
loopback model server.

A sentence the model wrote that the guard does not accept is shown as the passage
sentence the support model reads as stating its claim, when that one is a verified
quote and answers the question; the model's words stay in the trace. A wrong claim,
or a true one that does not answer, stays dropped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tether import Tether
from tether.config import Settings
from tether.guard.repair import WORDING_CONTRADICTIONS
from tether.ops.monitor import measure_answer
from tether.records import REPAIRED, Answer, AnswerSentence

from .conftest import answer, base_url, generator
from .fake_llm import FakeLLMServer
from .test_pipeline import BULLETIN, LIMIT, QUESTION, SOLVENT

# The passage's limit sentence reordered: the word test reads "of Solvent X" where the
# passage says "for Solvent X" and drops it; the support model reads the same claim.
REWORDED = "Over an eight-hour shift, the workplace exposure limit of Solvent X is 200 ppm."
BOILS = "Solvent X boils at 64 °C at sea level."
STORED = "Solvent X must be stored away from oxidisers."
SRC = Path(__file__).resolve().parents[2] / "src"


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "solvent-x.md").write_text(SOLVENT, encoding="utf-8")
    (corpus / "spill-bulletin.md").write_text(BULLETIN, encoding="utf-8")
    return corpus


@pytest.fixture
def tether(tmp_path: Path) -> Tether:
    t = Tether(tmp_path / "t.db", settings=Settings())
    t.ingest(_corpus(tmp_path), license="CC0")
    return t


def ask(tether: Tether, text: str, question: str = QUESTION) -> Answer:
    with FakeLLMServer(answer("openai", text)) as server:
        return tether.ask(question, generator=generator("openai", server))


def test_a_paraphrase_the_guard_drops_is_shown_as_the_quote_stating_it(
    tether: Tether, tmp_path: Path
) -> None:
    result = ask(tether, f"{REWORDED} [1]")
    assert not result.refused and result.dropped == ()
    (sentence,) = result.sentences
    (citation,) = sentence.citations
    assert sentence.text == citation.quote == LIMIT  # the passage's words, not the model's
    assert citation.source.endswith("solvent-x.md")
    assert sentence.verdict.checker == "verbatim" and REPAIRED in sentence.verdict.reasons
    (repaired,) = result.trace["repaired"]
    assert repaired["shown"] == LIMIT and repaired["original"] == REWORDED
    assert repaired["passage_id"] == citation.passage_id and repaired["entailment"] >= 0.9
    # The shown quote is grounded; the model's draft still counts as unsupported.
    metrics, (recheck,) = measure_answer(result, tether.store, settings=tether.settings)
    assert recheck.grounded and metrics.grounded == metrics.sentences == 1
    assert metrics.drafts == 1 and metrics.drafts_supported == metrics.drafts_cited == 0
    # Without repair the same reply is dropped: it was the guard that did not accept it.
    with FakeLLMServer(answer("openai", f"{REWORDED} [1]")) as server, \
            Tether(tmp_path / "t.db", settings=Settings(repair=False)) as unrepaired:
        plain = unrepaired.ask(QUESTION, generator=generator("openai", server))
    assert plain.refused and [d.text for d in plain.dropped] == [REWORDED]
    assert plain.dropped[0].verdict.outcome != "supported" and "repaired" not in plain.trace


def test_a_quote_bound_answer_and_a_verbatim_sentence_are_not_marked(tether: Tether) -> None:
    result = ask(tether, f"{LIMIT} [1]")
    assert [s.text for s in result.sentences] == [LIMIT]
    assert REPAIRED not in result.sentences[0].verdict.reasons and "repaired" not in result.trace


@pytest.mark.parametrize("wrong", [
    # The reworded sentence with the figure changed: no neighbour is shown instead.
    "Over an eight-hour shift, the workplace exposure limit of Solvent X is 300 ppm.",
    "Solvent X may be stored next to oxidisers without any limit.",
    "Solvent X does not have a workplace exposure limit of 200 ppm.",
    # A quantifier decides the guard's verdict; the figure it hid still bars a repair.
    "The workplace exposure limit for Solvent X is always 300 ppm over an eight-hour shift.",
])
def test_a_wrong_claim_is_dropped_not_repaired(tether: Tether, wrong: str) -> None:
    result = ask(tether, f"{wrong} [1]")
    assert result.refused and result.sentences == ()
    assert [d.text for d in result.dropped] == [wrong]
    assert "repaired" not in result.trace


@pytest.mark.parametrize("claim", [
    "Solvent X is required to be stored away from oxidisers.",  # a modal reading: "must"
    "Solvent X should be stored away from oxidisers.",  # "should" where it says "must"
])
def test_a_claim_only_a_wording_rule_contradicts_is_repaired(
    tether: Tether, tmp_path: Path, claim: str
) -> None:
    # The wording rules read these as contradicted; the support model reads the passage's
    # sentence as stating them, and that sentence is what is shown (ADR 0080).
    question = "How must Solvent X be stored?"
    result = ask(tether, f"{claim} [1]", question=question)
    assert [s.text for s in result.sentences] == [STORED] and result.dropped == ()
    assert [r["original"] for r in result.trace["repaired"]] == [claim]
    with FakeLLMServer(answer("openai", f"{claim} [1]")) as server, \
            Tether(tmp_path / "t.db", settings=Settings(repair=False)) as unrepaired:
        plain = unrepaired.ask(question, generator=generator("openai", server))
    (dropped,) = plain.dropped
    assert dropped.verdict.outcome == "contradicted"
    assert WORDING_CONTRADICTIONS.intersection(dropped.verdict.rules)


def test_a_claim_the_model_reads_as_wrong_stays_dropped_whatever_rule_contradicted_it(
    tether: Tether,
) -> None:
    claim = "Solvent X freezes at 64 °C at sea level."  # an exclusive word: a wording rule
    result = ask(tether, f"{claim} [1]", question="At what temperature does Solvent X boil?")
    assert result.refused and [d.text for d in result.dropped] == [claim]
    assert WORDING_CONTRADICTIONS.intersection(result.dropped[0].verdict.rules)
    assert "repaired" not in result.trace


def test_a_default_stated_under_its_options_heading_repairs_the_claim(tmp_path: Path) -> None:
    # "Default: 90 seconds." states the claim only read under its heading path (tool,
    # option), as the answer gate reads it; the wrong figure stays dropped.
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "kilnctl.md").write_text(
        "# kilnctl\n\n## Options\n\n### --warm-up SECONDS\n\nHow long the kiln holds its first "
        "temperature before firing. Longer warm-ups protect thick pieces. Default: 90 seconds.\n\n"
        "### --vent-delay SECONDS\n\nHow long the vent stays shut after firing starts. "
        "Default: 600 seconds.\n", encoding="utf-8")
    with Tether(tmp_path / "k.db", settings=Settings()) as t:
        t.ingest(corpus, license="CC0")
        question = "How long does kilnctl warm up by default?"
        claim = "By default kilnctl warms up for 90 seconds."
        result = ask(t, f"{claim} [1]", question=question)
        assert [s.text for s in result.sentences] == ["Default: 90 seconds."]
        assert [r["original"] for r in result.trace["repaired"]] == [claim]
        wrong = ask(t, "By default kilnctl warms up for 600 seconds. [1]", question=question)
        assert wrong.refused and "repaired" not in wrong.trace


def test_two_sentences_that_state_the_claim_only_together_are_shown_in_order(
    tether: Tether, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tether.guard.repair as repair

    def both(claim, evidence, **_):  # the support model read neither sentence alone
        (limit,) = [c for c in repair._candidates(claim, evidence) if c.text == LIMIT]
        return (limit.previous(), limit), 0.7

    monkeypatch.setattr(repair, "_stating", both)
    result = ask(tether, f"{REWORDED} [1]")
    assert [s.text for s in result.sentences] == [BOILS, LIMIT] and result.dropped == ()
    assert all(REPAIRED in s.verdict.reasons and s.verdict.checker == "verbatim" for s in result.sentences)
    assert [(r["shown"], r["original"]) for r in result.trace["repaired"]] == [
        (BOILS, REWORDED), (LIMIT, REWORDED)]


def test_a_quote_that_does_not_answer_the_question_is_no_repair(tether: Tether) -> None:
    claim = "Solvent X boils at 64 degrees at sea level."
    # Asked about the exposure limit, the boiling point is true but no answer: dropped.
    # (Read with the boiling sentence before it, the exposure-limit sentence, which does
    # answer, is credited with the claim; the sentence before states it alone, so it is
    # the one chosen, and no neighbour is shown for the claim.)
    result = ask(tether, f"{claim} [1]")
    assert result.refused and [d.text for d in result.dropped] == [claim]
    assert "repaired" not in result.trace
    # Asked about the boiling point, the same reply is repaired to the passage's sentence.
    asked = ask(tether, f"{claim} [1]", question="At what temperature does Solvent X boil?")
    assert [s.text for s in asked.sentences] == [BOILS]
    assert [r["original"] for r in asked.trace["repaired"]] == [claim]


def test_a_repair_already_shown_is_not_shown_twice(tether: Tether) -> None:
    result = ask(tether, f"{LIMIT} [1] {REWORDED} [1]")
    assert [s.text for s in result.sentences] == [LIMIT]
    assert [d.text for d in result.dropped] == [REWORDED] and "repaired" not in result.trace


def test_a_repaired_sentence_streams_in_its_place_while_the_model_writes(tether: Tether) -> None:
    reply = answer("openai", f"{REWORDED} [1] {STORED} [1]")
    # The model is held after its first sentence until the repaired quote has arrived.
    held_at = next(i for i, f in enumerate(reply.frames) if b'" must' in f)
    gate = threading.Event()
    reply.stall_after, reply.stall, reply.gate = held_at, 10.0, gate
    shown: list[tuple[str, int]] = []
    with FakeLLMServer(reply) as server:
        gen = generator("openai", server)
        for event in tether.stream(QUESTION, generator=gen):
            if event.kind == "sentence":
                assert isinstance(event.data, AnswerSentence)
                shown.append((event.data.text, len(server.frame_times)))
                gate.set()
            if event.kind == "done":
                final = event.data
    assert [text for text, _ in shown] == [LIMIT, STORED]
    assert shown[0][1] <= held_at < len(reply.frames)
    assert [s.text for s in final.sentences] == [LIMIT, STORED]
    assert [r["original"] for r in final.trace["repaired"]] == [REWORDED]


def test_the_cli_repairs_by_default_and_no_repair_drops(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Tether(db, settings=Settings()) as t:
        t.ingest(_corpus(tmp_path), license="CC0")
    env = {**os.environ, "PYTHONPATH": str(SRC), "TETHER_CONFIG": "/nonexistent/tether.toml"}
    outputs = []
    for flags in ([], ["--no-repair"]):
        with FakeLLMServer(answer("openai", f"{REWORDED} [1]")) as server:
            done = subprocess.run(
                [sys.executable, "-m", "tether", "ask", QUESTION, "--db", str(db), "--generator",
                 "openai", "--base-url", base_url("openai", server), "--model", "any",
                 "--answers", "free", "--json", *flags],
                capture_output=True, text=True, env=env, timeout=120, check=False,
            )
        outputs.append((done.returncode, json.loads(done.stdout)))
    (repaired_rc, repaired), (dropped_rc, dropped) = outputs
    assert repaired_rc == 0 and [s["text"] for s in repaired["sentences"]] == [LIMIT]
    assert repaired["trace"]["repaired"][0]["original"] == REWORDED
    assert dropped_rc == 1 and dropped["refused"] and [d["text"] for d in dropped["dropped"]] == [REWORDED]


def test_a_lone_surrogate_in_the_models_reply_is_read_and_recorded_not_a_crash(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with Tether(db, settings=Settings()) as t:
        t.ingest(_corpus(tmp_path), license="CC0")
    env = {**os.environ, "PYTHONPATH": str(SRC), "TETHER_CONFIG": "/nonexistent/tether.toml"}
    reply = "The exposure limit \ud800 of Solvent X is 200 ppm. [1]"
    with FakeLLMServer(answer("openai", reply)) as server:
        done = subprocess.run(
            [sys.executable, "-m", "tether", "ask", QUESTION, "--db", str(db), "--generator", "openai",
             "--base-url", base_url("openai", server), "--model", "any", "--answers", "free", "--json",
             "--no-repair"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )
    assert done.returncode == 1 and "error" not in done.stderr, (done.returncode, done.stderr)
    result = json.loads(done.stdout)
    assert [d["text"] for d in result["dropped"]] == ["The exposure limit \ufffd of Solvent X is 200 ppm."]
    with Tether(db, settings=Settings()) as t:  # the answer was recorded
        assert t.store.answer_record(result["trace_id"]) is not None


PATH = "Solvent X / Solvent X: "


class _Reading:
    """A stand-in for the support model: P(entailment) and P(contradiction) set per
    premise, as the repair reads it (a sentence with the one before, or alone), under
    its title path, the document's title over its heading ("Solvent X / Solvent X: …")."""

    def __init__(self, entail: dict[str, float], contradict: dict[str, float] | None = None) -> None:
        self.entail, self.contradict = entail, contradict or {}

    def judge_many(self, pairs):
        from types import SimpleNamespace

        def read(table: dict[str, float], premise: str) -> float:
            return table.get(premise.removeprefix(PATH), 0.0) if premise.startswith(PATH) else 0.0

        return [SimpleNamespace(probabilities={"entailment": read(self.entail, p),
                                               "contradiction": read(self.contradict, p)})
                for p, _ in pairs]


def _evidence(tether: Tether):
    from tether.guard.attribute import evidence_from_hits

    return evidence_from_hits(tether.search(QUESTION), lambda doc, version: None)


@pytest.mark.parametrize(("entail", "contradict", "chosen"), [
    # The support model's likeliest reading chooses the quote: what is shown is the
    # quote, not the claim, so the judge's lifting bar for a claim is not asked of it.
    ({f"{BOILS} {LIMIT}": 0.62, LIMIT: 0.6}, {}, [LIMIT]),
    ({f"{BOILS} {LIMIT}": 0.45}, {}, None),  # neutral or contradiction is likelier
    ({f"{BOILS} {LIMIT}": 0.62}, {f"{LIMIT} {STORED}": 0.7}, None),  # contradicted more surely
    # Read with the sentence before, a sentence is credited with that one's statement:
    # the one of the two stating more of the claim alone is the quote, and when neither
    # states it alone, both are (ADR 0080).
    ({f"{LIMIT} {STORED}": 0.97, LIMIT: 0.7}, {}, [LIMIT]),
    ({f"{LIMIT} {STORED}": 0.97, LIMIT: 0.6, STORED: 0.9}, {}, [STORED]),
    ({f"{LIMIT} {STORED}": 0.97, LIMIT: 0.3, STORED: 0.2}, {}, [LIMIT, STORED]),
])
def test_the_quote_is_the_sentence_the_support_model_likeliest_reads_as_stating_the_claim(
        tether: Tether, entail: dict[str, float], contradict: dict[str, float], chosen: list[str] | None
) -> None:
    from tether.guard.repair import _stating

    found = _stating(REWORDED, _evidence(tether), settings=tether.settings, modes=None,
                     reader=_Reading(entail, contradict))
    assert ([c.text for c in found[0]] if found else None) == chosen
