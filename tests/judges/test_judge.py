"""The model layer of the verifier: ``combine`` and the ONNX NLI judge.

The judge runs against a tiny model built here at test time (judge_tiny_model):
claim words all present in a window → entailment, the same with a flipped "not"
→ contradiction, claim words absent → neutral.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from tether.errors import ConfigError, InputError, LimitExceeded, MissingExtra
from tether.judges.base import Judge, Judgement, combine
from tether.judges.nli import OnnxNliJudge

try:  # tests/verify may or may not become a package; import the helper either way
    from .judge_tiny_model import OUTPUT_ORDER, VOCAB, build_model_dir
except ImportError:
    from judge_tiny_model import OUTPUT_ORDER, VOCAB, build_model_dir  # type: ignore[no-redef]

FILLER = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda"


def _j(label: str, *, error: str | None = None) -> Judgement:
    probs = {} if error else {"entailment": 0.1, "neutral": 0.1, "contradiction": 0.1, label: 0.8}
    return Judgement(label, probs, "nli:tiny", (0, 10), error)  # type: ignore[arg-type]


# ---------------------------------------------------------------- combine()

COMBINE_CASES = [
    # lexical,      judge label,     accept_paraphrase, expected
    ("supported", "entailment", False, "supported"),
    ("supported", "neutral", False, "mentioned"),
    ("supported", "contradiction", False, "contradicted"),
    ("supported", "neutral", True, "mentioned"),
    ("supported", "contradiction", True, "contradicted"),
    ("mentioned", "entailment", False, "mentioned"),  # no upgrade by default
    ("unsupported", "entailment", False, "unsupported"),
    ("mentioned", "entailment", True, "supported"),  # paraphrase accepted
    ("unsupported", "entailment", True, "supported"),
    ("mentioned", "contradiction", True, "mentioned"),
    ("mentioned", "neutral", True, "mentioned"),
    ("unsupported", "contradiction", False, "unsupported"),
    ("contradicted", "entailment", False, "contradicted"),  # never overturned
    ("contradicted", "entailment", True, "contradicted"),
    ("contradicted", "neutral", True, "contradicted"),
]


@pytest.mark.parametrize(("lexical", "label", "paraphrase", "expected"), COMBINE_CASES)
def test_combine_table(lexical: str, label: str, paraphrase: bool, expected: str) -> None:
    outcome, reason = combine(lexical, _j(label), accept_paraphrase=paraphrase)
    assert outcome == expected
    # Every verdict records what decided it: the checker, its label and the window.
    assert reason is not None
    assert "nli:tiny" in reason and label in reason and "0-10" in reason


@pytest.mark.parametrize("lexical", ["supported", "contradicted", "mentioned", "unsupported"])
@pytest.mark.parametrize("paraphrase", [False, True])
def test_combine_judge_error_leaves_lexical_outcome(lexical: str, paraphrase: bool) -> None:
    outcome, reason = combine(lexical, _j("neutral", error="boom"), accept_paraphrase=paraphrase)
    assert outcome == lexical
    assert reason is not None and "failed" in reason and "boom" in reason


def test_combine_without_judgement_changes_nothing() -> None:
    assert combine("mentioned", None, accept_paraphrase=True) == ("mentioned", None)


def test_combine_rejects_unknown_outcome() -> None:
    with pytest.raises(ValueError, match="supportd"):
        combine("supportd", _j("entailment"), accept_paraphrase=False)


def test_judgement_is_frozen_and_slotted() -> None:
    j = _j("entailment")
    with pytest.raises(dataclasses.FrozenInstanceError):
        j.label = "neutral"  # type: ignore[misc]
    assert not hasattr(j, "__dict__")
    assert j.ok and not Judgement.failed("x", "why").ok


def test_protocol_default_judge_many_calls_judge_in_order() -> None:
    class Echo(Judge):
        def judge(self, premise: str, hypothesis: str) -> Judgement:
            return Judgement("neutral", {"neutral": 1.0}, f"echo:{hypothesis}", (0, len(premise)))

    pairs: Iterable[tuple[str, str]] = iter([("ab", "1"), ("abc", "2")])
    got = Echo().judge_many(pairs)
    assert [(j.checker, j.window) for j in got] == [("echo:1", (0, 2)), ("echo:2", (0, 3))]


# ---------------------------------------------------------------- the ONNX judge


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model_dir(tmp_path_factory.mktemp("models") / "tiny")


@pytest.fixture(scope="module")
def judge(model_dir: Path) -> OnnxNliJudge:
    return OnnxNliJudge(model_dir, max_length=16, stride=4, batch_size=3)


def test_is_a_judge_named_after_its_directory(judge: OnnxNliJudge) -> None:
    assert isinstance(judge, Judge)
    assert judge.checker == "nli:tiny"


def test_pair_encoding_is_cls_premise_sep_claim_sep(judge: OnnxNliJudge) -> None:
    premise, claim = "Grass is green", "the sea is wet"
    [window] = judge.encode_windows(premise, claim)
    v = VOCAB
    assert window.ids == [
        v["[CLS]"], v["grass"], v["is"], v["green"], v["[SEP]"],
        v["the"], v["sea"], v["is"], v["wet"], v["[SEP]"],
    ]  # fmt: skip
    assert window.type_ids == [0] * 5 + [1] * 5
    assert window.span == (0, len(premise))


@pytest.mark.parametrize(
    ("premise", "claim", "label"),
    [
        ("The sky is blue.", "the sky is blue", "entailment"),
        ("the sky is not blue", "the sky is blue", "contradiction"),
        ("the sky is blue", "the sky is not blue", "contradiction"),
        ("grass is green", "the sea is wet", "neutral"),
    ],
)
def test_verdicts(judge: OnnxNliJudge, premise: str, claim: str, label: str) -> None:
    j = judge.judge(premise, claim)
    assert j.error is None
    assert j.label == label
    assert max(j.probabilities, key=lambda k: j.probabilities[k]) == label
    assert sum(j.probabilities.values()) == pytest.approx(1.0)
    assert set(j.probabilities) == {"entailment", "neutral", "contradiction"}


def test_labels_come_from_config_not_from_a_default_order(model_dir: Path, tmp_path: Path) -> None:
    judge = OnnxNliJudge(model_dir)
    assert judge.labels == OUTPUT_ORDER == ("contradiction", "entailment", "neutral")
    # The same graph described with the usual order: the judge must believe config.json,
    # so output 1 (really entailment) is now reported as "neutral".
    usual = {"0": "entailment", "1": "neutral", "2": "contradiction"}
    misdescribed = OnnxNliJudge(build_model_dir(tmp_path / "usual", id2label=usual))
    assert judge.judge("the sky is blue", "sky is blue").label == "entailment"
    assert misdescribed.judge("the sky is blue", "sky is blue").label == "neutral"


def test_label_names_map_case_insensitively(tmp_path: Path) -> None:
    shouting = {"0": "CONTRADICTION", "1": "Entailment", "2": " neutral "}
    judge = OnnxNliJudge(build_model_dir(tmp_path / "m", id2label=shouting))
    assert judge.labels == OUTPUT_ORDER


def test_batching_gives_the_same_results_as_one_by_one(model_dir: Path) -> None:
    pairs = [
        ("the sky is blue", "sky is blue"),
        ("grass is green and the sea is wet", "the sea is not wet"),
        (f"{FILLER} {FILLER} the sky is blue {FILLER}", "the sky is blue"),
        ("revenue rose in 2026", "revenue fell in 2026"),
        ("x", "grass is green"),
        (f"{FILLER} revenue rose", "revenue rose"),
    ]
    batched = OnnxNliJudge(model_dir, max_length=16, stride=4, batch_size=4).judge_many(pairs)
    single = OnnxNliJudge(model_dir, max_length=16, stride=4, batch_size=1)
    one_by_one = [single.judge(p, h) for p, h in pairs]
    assert [j.label for j in batched] == [j.label for j in one_by_one]
    assert [j.window for j in batched] == [j.window for j in one_by_one]
    for a, b in zip(batched, one_by_one, strict=True):
        assert a.probabilities == pytest.approx(b.probabilities, abs=1e-6)


def test_long_premise_slides_a_window_and_finds_the_fact_at_the_end(judge: OnnxNliJudge) -> None:
    fact = "the sky is blue"
    premise = " ".join([FILLER] * 40) + " " + fact
    claim = "the sky is blue"
    windows = judge.encode_windows(premise, claim)
    assert len(windows) > 40  # far longer than max_length=16
    claim_ids = [VOCAB[w] for w in claim.split()]
    for w in windows:
        assert len(w.ids) <= judge.max_length
        # The claim is whole in every window: [CLS] premise.. [SEP] claim [SEP].
        assert w.ids[-len(claim_ids) - 1 : -1] == claim_ids
    j = judge.judge(premise, claim)
    assert j.label == "entailment"
    start, end = j.window
    assert fact in premise[start:end]
    assert end == len(premise) and start > len(premise) - 80


def test_window_is_a_character_range_even_after_non_ascii_text(judge: OnnxNliJudge) -> None:
    # Offsets must be characters, not UTF-8 bytes, or the range drifts past emoji.
    premise = "Ünïcödé ✓ 😀 " * 12 + "the sky is blue ✓"
    j = judge.judge(premise, "the sky is blue")
    assert j.label == "entailment"
    assert premise[j.window[0] : j.window[1]].endswith("the sky is blue ✓")


def test_empty_premise_is_judged_neutral(judge: OnnxNliJudge) -> None:
    j = judge.judge("", "the sky is blue")
    assert (j.label, j.window, j.error) == ("neutral", (0, 0), None)
    assert judge.judge_many([]) == []


def test_overlap_rescues_a_fact_cut_by_a_window_edge(model_dir: Path) -> None:
    # Budget is 16 - 3 specials - 3 claim tokens = 10 premise tokens; the fact sits on
    # tokens 8-10, so without overlap no window holds it whole.
    premise = "alpha beta gamma delta epsilon zeta eta theta sky is blue iota kappa"
    no_overlap = OnnxNliJudge(model_dir, max_length=16, stride=0)
    overlap = OnnxNliJudge(model_dir, max_length=16, stride=4)
    assert no_overlap.judge(premise, "sky is blue").label == "neutral"
    j = overlap.judge(premise, "sky is blue")
    assert j.label == "entailment"
    assert "sky is blue" in premise[j.window[0] : j.window[1]]


def test_windows_cover_the_whole_premise_with_overlap(judge: OnnxNliJudge) -> None:
    premise = " ".join([FILLER] * 5)
    spans = [w.span for w in judge.encode_windows(premise, "sky")]
    assert spans[0][0] == 0 and spans[-1][1] == len(premise)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start < end  # consecutive windows share tokens


def test_entailment_in_any_window_wins_over_contradiction(judge: OnnxNliJudge) -> None:
    early, late = "the sky is not blue", "the sky is blue"
    premise = f"{early} {FILLER} {FILLER} {late} {FILLER}"
    j = judge.judge(premise, "the sky is blue")
    assert j.label == "entailment"
    assert premise[j.window[0] : j.window[1]].count("not") == 0
    assert late in premise[j.window[0] : j.window[1]]


def test_contradiction_in_one_window_beats_neutral_ones(judge: OnnxNliJudge) -> None:
    premise = f"{FILLER} {FILLER} the sky is not blue {FILLER} {FILLER}"
    j = judge.judge(premise, "the sky is blue")
    assert j.label == "contradiction"
    assert "sky is not blue" in premise[j.window[0] : j.window[1]]


def test_claim_too_long_is_an_error_never_a_truncation(judge: OnnxNliJudge) -> None:
    claim = " ".join(["sky"] * 14)  # 14 + 3 specials > 16: no room for any premise
    with pytest.raises(LimitExceeded, match="never truncated"):
        judge.encode_windows("the sky is blue", claim)
    bad, good = judge.judge_many([("the sky is blue", claim), ("the sky is blue", "sky is blue")])
    assert bad.error is not None and "14 tokens" in bad.error and "max_length=16" in bad.error
    assert bad.probabilities == {}
    assert good.error is None and good.label == "entailment"
    assert combine("supported", bad, accept_paraphrase=False)[0] == "supported"


def test_model_without_token_type_ids_gets_only_its_declared_inputs(tmp_path: Path) -> None:
    judge = OnnxNliJudge(build_model_dir(tmp_path / "roberta", token_type_ids=False))
    assert judge.judge("the sky is blue", "sky is blue").label == "entailment"
    assert judge.judge("the sky is blue", "sky is not blue").label == "contradiction"


def test_inference_failure_becomes_an_error_judgement(model_dir: Path) -> None:
    judge = OnnxNliJudge(model_dir)

    class Broken:
        def run(self, *args: object) -> object:
            raise RuntimeError("device lost")

    judge._session = Broken()
    j = judge.judge("the sky is blue", "sky is blue")
    assert j.error is not None and "device lost" in j.error
    assert combine("supported", j, accept_paraphrase=False)[0] == "supported"


# ---------------------------------------------------------------- bad directories


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist") as info:
        OnnxNliJudge(tmp_path / "nowhere")
    assert "nowhere" in str(info.value)


@pytest.mark.parametrize("name", ["model.onnx", "tokenizer.json", "config.json"])
def test_missing_file_is_named(model_dir: Path, tmp_path: Path, name: str) -> None:
    target = build_model_dir(tmp_path / "partial")
    os.remove(target / name)
    with pytest.raises(ConfigError, match=name) as info:
        OnnxNliJudge(target)
    assert "partial" in str(info.value)


def test_corrupt_model_onnx(tmp_path: Path) -> None:
    target = build_model_dir(tmp_path / "corrupt")
    (target / "model.onnx").write_bytes(os.urandom(512))
    with pytest.raises(InputError, match="not a loadable ONNX model") as info:
        OnnxNliJudge(target)
    assert str(target / "model.onnx") in str(info.value)


def test_corrupt_tokenizer_json(tmp_path: Path) -> None:
    target = build_model_dir(tmp_path / "tok")
    (target / "tokenizer.json").write_text('{"version": "1.0", "model"', encoding="utf-8")
    with pytest.raises(InputError, match="tokenizer.json"):
        OnnxNliJudge(target)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("{not json", "not readable JSON"),
        (json.dumps({"model_type": "bert"}), "no id2label"),
        (json.dumps([1, 2, 3]), "no id2label"),
        (json.dumps({"id2label": {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}}), "LABEL_0"),
        (json.dumps({"id2label": {"0": "entailment", "1": "not_entailment"}}), "cannot be mapped"),
        (json.dumps({"id2label": {"a": "entailment"}}), "output indices"),
        (
            json.dumps({"id2label": {"0": "entailment", "1": "neutral", "2": "neutral"}}),
            "cannot be mapped",
        ),
    ],
)
def test_unusable_config_json(tmp_path: Path, config: str, message: str) -> None:
    target = build_model_dir(tmp_path / "cfg")
    (target / "config.json").write_text(config, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        OnnxNliJudge(target)
    assert "config.json" in str(info.value)
    assert info.value.hint is not None or message == "not readable JSON"


@pytest.mark.parametrize(
    "kwargs", [{"max_length": 2}, {"stride": -1}, {"batch_size": 0}]
)
def test_bad_settings_are_config_errors(model_dir: Path, kwargs: dict[str, int]) -> None:
    with pytest.raises(ConfigError):
        OnnxNliJudge(model_dir, **kwargs)


@pytest.mark.parametrize("module", ["onnxruntime", "tokenizers"])
def test_missing_extra(model_dir: Path, monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    with pytest.raises(MissingExtra) as info:
        OnnxNliJudge(model_dir)
    assert info.value.extra == "nli"
    assert "pip install 'tether[nli]'" in str(info.value)
