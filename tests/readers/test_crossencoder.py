"""The shipped cross-encoders as they run: shapes, order, windows, any text.

Only the rules are tested here (probabilities, order, which window is reported);
how well the models read is measured in bench/.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading

import pytest

from tether import readers
from tether.errors import ConfigError, InputError
from tether.readers import CrossEncoder, ReaderInfo

from .conftest import shipped

EXPECTED = {
    "answerability": (("no", "yes"), "question", "window", "second"),
    "support": (("entailment", "neutral", "contradiction"), "premise", "claim", "first"),
}
ODD_TEXTS = [
    "",
    " ",
    "😀🚀🙂‍↔️ 👩‍👩‍👧",
    "\x00\x01\x07\x1b[31m\x7f\u200b\ufeff\u202e",
    "这是一个中文句子，没有空格。",
    "مرحبا بالعالم",
    "\ud800 a lone surrogate \udfff",
    "a" * 5000,
    "\n\n\t\r\n",
]


def model(name: str) -> CrossEncoder:
    shipped(name)
    return readers.answerability() if name == "answerability" else readers.support()


def assert_probabilities(rows: list[tuple[float, ...]], n: int, size: int) -> None:
    assert len(rows) == n
    for row in rows:
        assert isinstance(row, tuple) and len(row) == size
        assert all(isinstance(p, float) and 0.0 <= p <= 1.0 and math.isfinite(p) for p in row)
        assert sum(row) == pytest.approx(1.0, abs=1e-6)


def test_reader_json_describes_the_model(name: str):
    directory = shipped(name)
    info = model(name).info
    labels, first, second, windowed = EXPECTED[name]
    assert isinstance(info, ReaderInfo)
    assert (info.name, info.labels, info.first, info.second, info.windowed) == (
        name, labels, first, second, windowed)
    assert info.sha256 == hashlib.sha256((directory / "model.onnx").read_bytes()).hexdigest()
    assert info.max_length >= 64 and info.rebuild
    assert json.loads((directory / "reader.json").read_text())["sha256"] == info.sha256


def test_each_model_is_loaded_once_per_process_by_any_thread(name: str):
    first = model(name)
    seen: list[CrossEncoder] = []
    threads = [threading.Thread(target=lambda: seen.append(model(name))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(m is first for m in seen)
    assert readers.model_dir(name) == readers.MODELS / name


def test_a_few_pairs_score_as_probabilities_and_the_same_twice(name: str):
    m = model(name)
    pairs = [
        ("When was the bridge opened?", "The bridge was opened to traffic in 1932."),
        ("The bridge was opened in 1932.", "The bridge opened in 1932."),
        ("Who founded the company?", "Revenue rose to 4.1 million in 2026."),
    ]
    rows = m.predict(pairs)
    assert_probabilities(rows, len(pairs), len(m.info.labels))
    assert m.predict(pairs) == rows
    assert m.predict([]) == []
    for k, label in enumerate(m.info.labels):
        assert m.prob(pairs, label) == [row[k] for row in rows]


def test_an_unknown_label_or_a_pair_that_is_not_two_strings_is_refused(name: str):
    m = model(name)
    with pytest.raises(ConfigError, match="no label"):
        m.prob([("a", "b")], "maybe")
    with pytest.raises(InputError, match="pair 1"):
        m.predict([("a", "b"), ("a", None)])  # type: ignore[list-item]
    with pytest.raises(ConfigError):
        readers.model_dir("sentiment")


@pytest.mark.parametrize("text", ODD_TEXTS, ids=range(len(ODD_TEXTS)))
def test_any_text_on_either_side_gives_probabilities(name: str, text: str):
    m = model(name)
    rows = m.predict([(text, "The bridge opened in 1932."), ("The bridge opened in 1932.", text), (text, text)])
    assert_probabilities(rows, 3, len(m.info.labels))


def test_two_empty_texts_are_the_pair_of_special_tokens_alone(name: str):
    m = model(name)
    (window,) = m.windows("", "")
    tok = m._tokenizer
    assert window.ids == tuple(tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[SEP]"))
    assert window.type_ids == (0, 0, 1)
    assert window.span == (0, 0)


def test_order_is_kept_though_batches_are_sorted_by_length(name: str):
    directory = shipped(name)
    lengths = [40, 1, 17, 0, 90, 5, 33, 2, 60, 9]
    pairs = [(f"item {i} " + "the bridge opened in 1932 " * n, f"claim {i} about the bridge")
             for i, n in enumerate(lengths)]
    # One window per batch: each runs exactly as it does alone, so order is tested exactly.
    one_by_one = CrossEncoder(directory, batch_size=1, threads=1)
    alone = [one_by_one.predict([pair])[0] for pair in pairs]
    assert one_by_one.predict(pairs) == alone


def test_predict_from_several_threads_gives_the_same_numbers(name: str):
    m = model(name)
    pairs = [("When was the bridge opened?", "It opened in 1932."), ("x", "y " * 40)]
    want = m.predict(pairs)
    got: list[list[tuple[float, ...]]] = []
    threads = [threading.Thread(target=lambda: got.append(m.predict(pairs))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4
    for rows in got:
        for a, b in zip(rows, want, strict=True):
            assert a == b


def test_bad_arguments_are_refused(name: str):
    with pytest.raises(ConfigError):
        CrossEncoder(shipped(name), batch_size=0)
    with pytest.raises(ConfigError):
        CrossEncoder(shipped(name), threads=0)
