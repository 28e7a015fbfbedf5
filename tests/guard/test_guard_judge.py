"""The model judge behind the guard: it can take support away, shadow, or (when
allowed) accept a paraphrase — and the tiny ONNX model runs through the real loader."""

import pytest
from judges.judge_tiny_model import build_model_dir

from tether import Tether
from tether.config import Settings
from tether.guard.attribute import Evidence
from tether.guard.citation import judge_draft
from tether.judges.base import Judgement
from tether.records import AnswerSentence, Document, Draft, Dropped, Passage

TEXT = "Acetone vapour is heavier than air and collects in low places."
DOC = Document("doc_a", "https://ex.org/acetone", "Acetone", "CC0", "2026-01-01", "text/plain")
UNIT = Evidence("p1", TEXT, 0, (Passage("p1", "doc_a", "v1", 0, len(TEXT), TEXT),), DOC)
# Lexically supported, but not the passage's own sentence: what a judge is asked about.
RESTATED = "Acetone vapours are heavier than air and collect in low places."


class FixedJudge:
    def __init__(self, label):
        self.label, self.calls = label, []

    def judge(self, premise, hypothesis):
        self.calls.append((premise, hypothesis))
        return Judgement(self.label, {self.label: 0.9}, "fixed", (0, len(premise)))


def _judge(sentence, judge, *, mode="on", paraphrase=False):
    settings = Settings(judge_accepts_paraphrase=paraphrase)
    return judge_draft(Draft(sentence), [UNIT], settings=settings, modes={"judge": mode}, judge=judge)


def test_a_judge_contradiction_drops_a_lexically_supported_sentence():
    outcome, note = _judge(RESTATED, FixedJudge("contradiction"))
    assert isinstance(outcome, Dropped) and outcome.verdict.outcome == "contradicted"
    assert outcome.verdict.checker == "fixed" and note is None


def test_shadow_judge_changes_nothing_but_says_what_it_would_do():
    outcome, note = _judge(RESTATED, FixedJudge("neutral"), mode="shadow")
    assert isinstance(outcome, AnswerSentence)
    assert note["gate"] == "judge" and note["would_be"] == "mentioned"
    assert any(r.startswith("shadow:") for r in outcome.verdict.reasons)


def test_a_passages_own_whole_sentence_is_not_sent_to_the_judge():
    judge = FixedJudge("contradiction")
    outcome, _ = _judge(TEXT, judge)
    assert isinstance(outcome, AnswerSentence) and judge.calls == []
    # A verbatim piece of the sentence may have dropped what qualifies it: it is read.
    piece, _ = _judge("Acetone vapour is heavier than air.", judge)
    assert isinstance(piece, Dropped) and len(judge.calls) == 1


def test_off_judge_is_not_called():
    judge = FixedJudge("contradiction")
    outcome, _ = _judge(TEXT, judge, mode="off")
    assert isinstance(outcome, AnswerSentence) and judge.calls == []


def test_by_default_the_judge_never_lifts_a_paraphrase():
    paraphrase = "Acetone fumes sink and pool near the floor."
    judge = FixedJudge("entailment")
    outcome, _ = _judge(paraphrase, judge)
    assert isinstance(outcome, Dropped) and judge.calls == []  # not even asked
    lifted, _ = _judge(paraphrase, judge, paraphrase=True)
    assert isinstance(lifted, AnswerSentence) and lifted.verdict.checker == "fixed"
    assert lifted.citations[0].quote == TEXT  # it rests on the whole unit


class _Says:
    """A generator that restates the passage (a whole sentence quoted is not judged)."""

    name = "says"

    def __init__(self, text):
        self.text = text

    def generate(self, question, hits, *, steering=None):
        yield Draft(self.text)


def test_nli_judge_setting_loads_the_model_and_runs_in_the_pipeline(tmp_path):
    model = build_model_dir(tmp_path / "nli")
    doc = tmp_path / "sky.txt"
    doc.write_text("The sky is not green. The sky is blue.\n")
    for mode, shown in (("off", True), ("shadow", True), ("on", False)):
        settings = Settings(judge=f"nli:{model}")
        with Tether(tmp_path / f"{mode}.db", settings=settings) as t:
            t.ingest(doc)
            answer = t.ask("Is the sky blue?", modes={"judge": mode, "abstain": "off"},
                           generator=_Says("The skies are blue."))
            texts = [s.text for s in answer.sentences]
            assert ("The skies are blue." in texts) == shown, (mode, answer)
            if mode == "on":
                judged = [d for d in answer.dropped if d.text == "The skies are blue."]
                assert judged and judged[0].verdict.checker == "nli:nli"
            if mode == "shadow":
                assert any(e["gate"] == "judge" for e in t.store.shadow_entries())


def test_a_bad_judge_setting_is_a_clear_error(tmp_path):
    from tether.errors import ConfigError, TetherError
    from tether.judges import load_judge

    with pytest.raises(ConfigError, match="KIND:TARGET"):
        load_judge(Settings(judge="nli"))
    with pytest.raises(ConfigError, match="unknown judge kind"):
        load_judge(Settings(judge="magic:x"))
    with pytest.raises(TetherError, match="NLI model directory .* does not exist"):
        load_judge(Settings(judge=f"nli:{tmp_path / 'missing'}"))
