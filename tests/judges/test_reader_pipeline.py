"""The reader inside an ask, and ``tether calibrate`` learning its thresholds.

The model (SmolLM2-135M) is real; the decisions are forced with thresholds at the
ends of [0, 1], so what is asserted is what the gates do with a reader's judgement,
not what the small model believes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from abstain_corpus import make_tether

from tether.cli import main
from tether.config import Settings
from tether.facade import Tether
from tether.judges.gguf import file_sha256
from tether.judges.reader import META_PREFIX, ReaderJudge
from tether.records import Draft, Hit

try:
    from .reader_model import smollm2_path
except ImportError:
    from reader_model import smollm2_path  # type: ignore[no-redef]

KNOBS = {"judge_ctx": 1024, "judge_threads": 1, "judge_timeout": 300.0}
QUESTION = "What does corvane boil at?"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    path = smollm2_path()
    return str(path), file_sha256(path)


def _tether(tmp_path: Path, model: tuple[str, str], pinned: str = "", **more: object) -> Tether:
    path, sha = model
    threshold = f"{sha}={pinned}" if pinned else ""
    return make_tether(tmp_path, judge=f"gguf:{path}", judge_threshold=threshold, **KNOBS, **more)


def test_the_reader_refuses_an_answer_it_does_not_read_as_one(tmp_path, model) -> None:
    with _tether(tmp_path, model, "support:0,answers:1") as tether:
        answer = tether.ask(QUESTION, record=False)
    assert answer.refused and answer.refusal_layer == "guard"
    assert "gguf:" in str(answer.refusal_reason) and "P(yes)" in str(answer.refusal_reason)
    assert answer.trace["answer_judge"]["checker"].startswith("gguf:")


class _Drafts:
    """A generator that proposes the sentences it is given."""

    name = "drafts"

    def __init__(self, *texts: str) -> None:
        self.texts = texts

    def generate(self, question: str, hits: Sequence[Hit], *, steering: str | None = None
                 ) -> Iterator[Draft]:
        yield from (Draft(t) for t in self.texts)


# Lexically supported, but not the passage's own sentence: the reader is asked.
RESTATED = "Corvane, a clear solvent, boils at 71 °C."


def test_the_reader_can_only_withhold_support_by_default(tmp_path, model) -> None:
    with _tether(tmp_path, model, "support:1,answers:0") as tether:
        answer = tether.ask(QUESTION, generator=_Drafts(RESTATED), record=False)
    assert answer.refused and not answer.sentences
    reasons = [r for d in answer.dropped for r in d.verdict.reasons]
    assert any("downgraded from lexical 'supported'" in r for r in reasons)


def test_a_passages_own_whole_sentence_is_not_sent_to_the_reader(tmp_path, model) -> None:
    # support:1 would withhold anything the reader is asked about.
    with _tether(tmp_path, model, "support:1,answers:0") as tether:
        answer = tether.ask(QUESTION, record=False)  # the extractive generator quotes
        part = tether.ask(QUESTION, generator=_Drafts("Corvane boils at 71"), record=False)
    assert not answer.refused and answer.sentences
    assert all(s.verdict.checker == "verbatim" for s in answer.sentences)
    # A verbatim piece cut out of a sentence is still read.
    assert part.refused
    assert any("downgraded" in r for d in part.dropped for r in d.verdict.reasons)


def test_a_shadow_judge_gate_only_notes_what_it_would_refuse(tmp_path, model) -> None:
    with _tether(tmp_path, model, "support:0,answers:1") as tether:
        answer = tether.ask(QUESTION, modes={"judge": "shadow"}, record=False)
    assert not answer.refused and answer.sentences
    assert any(e.get("layer") == "guard" and "P(yes)" in e.get("reason", "")
               for e in answer.trace["shadow"])


class _Paraphrase:
    """A generator that proposes one sentence the lexical test cannot support."""

    name = "paraphrase"

    def generate(self, question: str, hits: Sequence[Hit], *, steering: str | None = None
                 ) -> Iterator[Draft]:
        yield Draft("Heated corvane turns to vapour at seventy-one degrees Celsius.")


def test_paraphrase_acceptance_lets_the_reader_cite_what_words_cannot(tmp_path, model) -> None:
    with _tether(tmp_path, model, "support:0,answers:0") as strict:
        refused = strict.ask(QUESTION, generator=_Paraphrase(), record=False)
    assert refused.refused and not refused.sentences
    with _tether(tmp_path / "p", model, "support:0,answers:0",
                 judge_accepts_paraphrase=True) as lenient:
        answer = lenient.ask(QUESTION, generator=_Paraphrase(), record=False)
    assert [s.text for s in answer.sentences] == [
        "Heated corvane turns to vapour at seventy-one degrees Celsius."]
    verdict = answer.sentences[0].verdict
    assert verdict.checker.startswith("gguf:")
    assert any("accepted as a paraphrase" in r for r in verdict.reasons)


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_calibrate_learns_reader_thresholds_for_this_model_only(
    tmp_path, model, capsys, monkeypatch
) -> None:
    path, sha = model
    _tether(tmp_path, model).close()
    db = str(tmp_path / "store.db")
    labeled = tmp_path / "labeled.jsonl"
    lines = [
        {"question": QUESTION, "answerable": True},
        {"question": "Who is the site manager at Orlan Quay?", "answerable": True},
        {"question": "What is the Kestrel Board limit for xanthrol?", "answerable": False},
        {"question": "When was brisol first made?", "answerable": False},
        {"premise": "Corvane boils at 71 °C.", "hypothesis": "Corvane boils at 71 °C.",
         "label": "entailment"},
        {"premise": "Corvane boils at 71 °C.", "hypothesis": "Corvane freezes at 71 °C.",
         "label": "contradiction"},
        {"premise": "Brisol is a pale oil.", "hypothesis": "Brisol is sold in Peru.",
         "label": "neutral"},
    ]
    labeled.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    for key, value in {"TETHER_JUDGE": f"gguf:{path}", "TETHER_JUDGE_CTX": "1024",
                       "TETHER_JUDGE_THREADS": "1", "TETHER_JUDGE_TIMEOUT": "300"}.items():
        monkeypatch.setenv(key, value)
    code, out, err = _cli(capsys, "calibrate", str(labeled), "--db", db)
    assert code == 0, err
    assert f"judge model sha256: {sha}" in out and "support threshold:" in out
    assert "1 positive, 2 negative" in out  # the pairs, read by the reader
    with Tether(db, settings=Settings(), create=False) as tether:
        stored = json.loads(tether.store.get_meta(META_PREFIX + sha) or "{}")
    assert stored["model_sha256"] == sha and 0.0 <= stored["support"] <= 1.0
    # ...and an ask through that store reads them
    with Tether(db, settings=Settings(judge=f"gguf:{path}", **KNOBS), create=False) as tether:
        judge = tether.judge()
        assert isinstance(judge, ReaderJudge)
        bound = judge.calibrated(tether.store.get_meta)
        assert bound.thresholds.source == "calibrated"
        assert bound.thresholds.support == stored["support"]
    # A threshold pinned for another model file is refused, not applied.
    monkeypatch.setenv("TETHER_JUDGE_THRESHOLD", "0" * 64 + "=support:0.5")
    code, _, err = _cli(capsys, "calibrate", str(labeled), "--db", db, "--dry-run")
    assert code == 2 and "learned for the model" in err


def test_pairs_without_a_reader_are_bad_input(tmp_path, capsys, monkeypatch) -> None:
    make_tether(tmp_path).close()
    labeled = tmp_path / "pairs.jsonl"
    labeled.write_text(json.dumps({"premise": "a b", "hypothesis": "a", "label": "entailment"})
                       + "\n", encoding="utf-8")
    monkeypatch.delenv("TETHER_JUDGE", raising=False)
    code, _, err = _cli(capsys, "calibrate", str(labeled), "--db", str(tmp_path / "store.db"))
    assert code == 2 and "no reader is configured" in err
