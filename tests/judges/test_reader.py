"""The reader (judge = "gguf:PATH") through the real llama.cpp path, on SmolLM2-135M.

What is asserted is the plumbing — loading, the prompt's reply read as a label
probability, thresholds keyed by the model's hash, and every way a file or a call can
fail — never the small model's opinion of a claim (quality is measured in bench/).
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

from tether.config import Settings
from tether.errors import ConfigError, MissingExtra
from tether.judges import load_judge
from tether.judges.base import combine
from tether.judges.gguf import (
    ReaderFailure,
    file_sha256,
    label_probability,
    load_model,
    read_header,
)
from tether.judges.reader import (
    META_PREFIX,
    ReaderJudge,
    Thresholds,
    parse_pinned,
)

try:
    from .reader_model import fake_gguf, smollm2_path
except ImportError:
    from reader_model import fake_gguf, smollm2_path  # type: ignore[no-redef]

PASSAGE = "Corvane is a clear solvent. Corvane boils at 71 °C. It was first made in 1961."
CTX = 1024  # small: the tests' prompts are short, and memory is shared
# One thread: on a busy 2-core machine llama.cpp's spinning worker threads slow each
# other down; the timeout is generous for the same reason (one test checks it fires).
KNOBS = {"judge_ctx": CTX, "judge_threads": 1, "judge_timeout": 300.0}


@pytest.fixture(scope="module")
def model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # The sha256 cache goes to a temporary folder, not the user's home.
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    return smollm2_path()


@pytest.fixture(scope="module")
def reader(model_path: Path) -> ReaderJudge:
    judge = load_judge(Settings(judge=f"gguf:{model_path}", **KNOBS))
    assert isinstance(judge, ReaderJudge)
    return judge


# ------------------------------------------------------------------ loading


def test_the_model_is_loaded_once_per_process(reader: ReaderJudge, model_path: Path) -> None:
    again = load_judge(Settings(judge=f"gguf:{model_path}", **KNOBS))
    assert isinstance(again, ReaderJudge)
    assert again.model is reader.model
    assert load_model(model_path, ctx=CTX, threads=1) is reader.model


def test_the_model_is_named_by_its_header_and_hash(reader: ReaderJudge, model_path: Path) -> None:
    header = read_header(model_path)
    assert header.architecture == "llama" and header.tensors > 0
    assert reader.model_sha256 == file_sha256(model_path) and len(reader.model_sha256) == 64
    assert reader.checker.startswith("gguf:")
    assert reader.thresholds.source == "default"


def test_the_embedded_servers_port_needs_a_key_nobody_has(reader: ReaderJudge) -> None:
    import json
    import urllib.error
    import urllib.request

    address = reader.model._server.listening_address
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1})
    request = urllib.request.Request(f"{address}/v1/chat/completions", data=body.encode(),
                                     headers={"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 401


# ------------------------------------------------------- prompt and label


def test_both_questions_give_a_label_probability(reader: ReaderJudge) -> None:
    for judgement in (reader.judge(PASSAGE, "Corvane boils at 71 °C."),
                      reader.answers(PASSAGE, "What does corvane boil at?")):
        assert judgement.ok, judgement.error
        p = judgement.probabilities["entailment"]
        assert 0.0 <= p <= 1.0
        assert judgement.probabilities["neutral"] == pytest.approx(1.0 - p)
        assert judgement.label == ("entailment" if p >= 0.5 else "neutral")
        assert judgement.window == (0, len(PASSAGE))


def test_the_threshold_decides_the_label(reader: ReaderJudge) -> None:
    p, _ = reader.score("support", PASSAGE, "Corvane is a solvent.")
    sha = reader.model_sha256
    low = reader.with_thresholds(Thresholds(sha, support=max(0.0, p - 0.02)))
    high = reader.with_thresholds(Thresholds(sha, support=min(1.0, p + 0.02)))
    assert low.judge(PASSAGE, "Corvane is a solvent.").label == "entailment"
    if p + 0.02 <= 1.0:
        assert high.judge(PASSAGE, "Corvane is a solvent.").label == "neutral"
    # the answers threshold is a different knob
    assert low.thresholds.answers == 0.5


def test_a_long_passage_is_read_in_windows(reader: ReaderJudge) -> None:
    narrow = ReaderJudge(reader.model, max_premise_chars=200, overlap=40, timeout=300)
    long = " ".join([PASSAGE] * 6)
    p, window = narrow.score("support", long, "Corvane boils at 71 °C.")
    assert 0.0 <= p <= 1.0
    assert window[1] - window[0] <= 200


REPLY_CASES = [
    # (content, top tokens with logprobs, expected P(yes) or None for a failure)
    ("yes", [("Yes", -0.1), ("No", -2.4), ("The", -3.0)], 0.9089),
    ("no", [("No", -0.2), (" no", -2.0), ("yes", -1.9)], 0.1355),
    ("No", [("no.", -0.5), ("Yes", -0.5)], 0.5),
    ("yes", [("The", -0.1), ("It", -1.0)], None),  # neither label among the top tokens
    ("maybe", [("Yes", -0.1)], None),  # sampled text is not a label
]


@pytest.mark.parametrize(("content", "top", "expected"), REPLY_CASES)
def test_label_extraction(content: str, top: list[tuple[str, float]], expected: float | None) -> None:
    reply = {"choices": [{"message": {"content": content}, "logprobs": {"content": [
        {"top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}]}}]}
    if expected is None:
        with pytest.raises(ReaderFailure):
            label_probability(reply)
    else:
        assert label_probability(reply) == pytest.approx(expected, abs=1e-3)


def test_a_malformed_reply_is_a_failure() -> None:
    with pytest.raises(ReaderFailure, match="malformed"):
        label_probability({"choices": [{"message": {"content": "yes"}}]})


# ------------------------------------------------------------ failed calls


def test_a_prompt_over_the_context_fails_and_the_lexical_outcome_stands(model_path: Path) -> None:
    tiny = ReaderJudge(load_model(model_path, ctx=256, threads=1), max_premise_chars=20_000,
                       timeout=300)
    judgement = tiny.judge("Corvane boils at 71 °C. " * 200, "Corvane boils at 71 °C.")
    assert not judgement.ok and "context" in str(judgement.error)
    outcome, reason = combine("supported", judgement, accept_paraphrase=False)
    assert outcome == "supported" and "stands" in str(reason)


def test_a_call_past_the_timeout_fails(reader: ReaderJudge) -> None:
    hasty = ReaderJudge(reader.model, timeout=0.001)
    judgement = hasty.judge(PASSAGE + " Brisol boils at 118 °C.", "Brisol boils at 118 °C.")
    assert not judgement.ok and "no reply within" in str(judgement.error)


def test_concurrent_calls_share_the_model_safely(reader: ReaderJudge) -> None:
    claims = ["Corvane boils at 71 °C.", "Corvane was first made in 1961."]
    serial = [reader.score("support", PASSAGE, c)[0] for c in claims]
    got: dict[int, float] = {}

    def work(i: int) -> None:
        got[i] = reader.score("support", PASSAGE, claims[i % 2])[0]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert sorted(got) == list(range(6))
    for i, p in got.items():
        assert p == pytest.approx(serial[i % 2], abs=0.05)


# ------------------------------------------------------------- bad files


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_judge(Settings(judge=f"gguf:{tmp_path / 'none.gguf'}"))


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"PK\x03\x04 not a model" * 50)
    with pytest.raises(ConfigError, match="GGUF magic"):
        load_judge(Settings(judge=f"gguf:{junk}"))


def test_a_corrupt_header_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + (2**40).to_bytes(8, "little") * 2)
    with pytest.raises(ConfigError, match="implausible"):
        read_header(bad)


@pytest.mark.parametrize("keep", [1000, 3])  # inside the header; in the tensor data
def test_a_truncated_model_is_refused(tmp_path: Path, model_path: Path, keep: int) -> None:
    data = model_path.read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(data[:keep] if keep > 100 else data[: len(data) // keep])
    with pytest.raises(ConfigError, match="truncated"):
        load_judge(Settings(judge=f"gguf:{cut}"))


def test_a_wrong_architecture_is_refused_by_llama_cpp(tmp_path: Path, model_path: Path) -> None:
    foreign = fake_gguf(tmp_path / "foreign.gguf", architecture="nosucharch")
    with pytest.raises(ConfigError, match="llama.cpp could not load .*'nosucharch'"):
        load_judge(Settings(judge=f"gguf:{foreign}", judge_ctx=256))


def test_a_file_without_weights_is_refused(tmp_path: Path) -> None:
    empty = fake_gguf(tmp_path / "empty.gguf", architecture="llama", tensors=0)
    with pytest.raises(ConfigError, match="no tensors"):
        load_judge(Settings(judge=f"gguf:{empty}"))


def test_without_the_extra_the_error_names_it(model_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)
    with pytest.raises(MissingExtra, match=r"tether\[reader\]"):
        load_model(model_path, ctx=512, threads=1)  # a new key: not the cached model


# -------------------------------------------------------------- thresholds


def test_pinned_thresholds_are_for_one_model(reader: ReaderJudge, model_path: Path) -> None:
    sha = reader.model_sha256
    pinned = parse_pinned(f"{sha[:8]}=support:0.7,answers:0.3", model_sha256=sha)
    assert (pinned.support, pinned.answers, pinned.source) == (0.7, 0.3, "config")
    judge = load_judge(Settings(judge=f"gguf:{model_path}", **KNOBS,
                                judge_threshold=f"{sha}=support:0.7"))
    assert isinstance(judge, ReaderJudge) and judge.thresholds.support == 0.7
    other = "0" * 64
    with pytest.raises(ConfigError, match="learned for the model"):
        load_judge(Settings(judge=f"gguf:{model_path}", **KNOBS,
                            judge_threshold=f"{other}=support:0.7"))


@pytest.mark.parametrize("text", ["0.5", "abcd=support", "abcd=support:2", "ab=support:0.5",
                                  "abcd=sport:0.5"])
def test_bad_pinned_thresholds_are_config_errors(text: str) -> None:
    with pytest.raises(ConfigError, match="judge_threshold must be"):
        parse_pinned(text, model_sha256="abcd" * 16)


def test_a_stored_calibration_binds_to_its_model_only(reader: ReaderJudge) -> None:
    sha = reader.model_sha256
    meta = {META_PREFIX + sha: Thresholds(sha, support=0.8, answers=0.2).to_meta()}
    bound = reader.calibrated(meta.get)
    assert (bound.thresholds.support, bound.thresholds.answers) == (0.8, 0.2)
    assert bound.thresholds.source == "calibrated" and bound.model is reader.model
    assert reader.calibrated({}.get) is reader  # nothing stored: the defaults stay
    forged = {META_PREFIX + sha: Thresholds("f" * 64, support=0.8).to_meta()}
    with pytest.raises(ConfigError, match="learned for the model"):
        reader.calibrated(forged.get)
    with pytest.raises(ConfigError, match="learned for the model"):
        ReaderJudge(reader.model, thresholds=Thresholds("f" * 64))
