"""evaluate_pairs: confusion matrix and rates, never NaN; render_text for people."""

from __future__ import annotations

import math

import pytest

from tether.errors import InputError
from tether.evaluate.verifier import normalise_label
from tether.evaluate.verifier_report import render_text
from tether.evaluate.verifier import evaluate_pairs

PAIRS = [
    ("The valve was replaced in May.", "The valve was replaced in May.", "entailment"),
    ("The dam holds two million litres.", "The dam holds two million litres.", "entailment"),
    ("The ferry leaves at noon from the north pier.", "The ferry leaves at noon.", "entailment"),
    ("The valve was replaced in May.", "The valve was not replaced in May.", "contradiction"),
    ("The dam holds two million litres.", "The dam holds nine million litres.", "contradiction"),
    ("The ferry leaves at noon.", "The ferry is painted blue.", "neutral"),
    ("The library opened in 1990.", "Bees make honey in summer.", "neutral"),
]


def _no_nan(obj):
    if isinstance(obj, float):
        assert not math.isnan(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _no_nan(v)


def test_scores_on_a_small_labelled_set(settings):
    r = evaluate_pairs(PAIRS, settings=settings)
    assert r["n"] == 7
    assert r["counts"] == {"entailment": 3, "neutral": 2, "contradiction": 2, "non_entailed": 4}
    assert r["confusion"]["entailment"]["supported"] == 3
    assert r["confusion"]["contradiction"]["contradicted"] == 2
    assert r["contradiction_recall"] == 1.0
    assert r["over_claiming"] == 0.0
    assert r["entailed_dropped"] == 0.0
    assert r["balanced_accuracy"] == 1.0
    assert sum(sum(row.values()) for row in r["confusion"].values()) == 7
    _no_nan(r)


def test_empty_input_gives_none_with_counts_never_nan(settings):
    r = evaluate_pairs([], settings=settings)
    assert r["n"] == 0
    for key in ("balanced_accuracy", "contradiction_recall", "over_claiming", "entailed_dropped"):
        assert r[key] is None
    assert r["counts"]["non_entailed"] == 0
    _no_nan(r)


def test_one_class_only(settings):
    r = evaluate_pairs(PAIRS[:3], settings=settings)
    assert r["entailed_dropped"] == 0.0
    assert r["over_claiming"] is None and r["balanced_accuracy"] is None
    assert r["contradiction_recall"] is None and r["counts"]["contradiction"] == 0


def test_modes_are_passed_through_and_shadow_counted(settings):
    off = evaluate_pairs(PAIRS, settings=settings, modes={"contradiction": "off", "figures": "off"})
    shadow = evaluate_pairs(PAIRS, settings=settings, modes={"contradiction": "shadow"})
    assert off["over_claiming"] > 0.0  # the flipped "not" gets through without the check
    assert shadow["shadow_changed"] >= 1


@pytest.mark.parametrize(
    "label, gold",
    [("entailment", "entailment"), ("SUPPORTS", "entailment"), ("supported", "entailment"),
     ("Neutral", "neutral"), ("NOT_ENOUGH_INFO", "neutral"), ("partially_supported", "neutral"),
     ("not supported", "neutral"), ("Refutes", "contradiction"), ("contradiction", "contradiction")],
)  # fmt: skip
def test_label_aliases(label, gold):
    assert normalise_label(label) == gold


def test_unknown_label_is_an_input_error(settings):
    with pytest.raises(InputError):
        evaluate_pairs([("a b c", "a b c", "maybe")], settings=settings)


def test_render_text(settings):
    text = render_text(evaluate_pairs(PAIRS, settings=settings), title="mini")
    lines = text.splitlines()
    assert lines[0] == "mini: 7 pairs"
    assert lines[2].split() == ["supported", "contradicted", "mentioned", "unsupported", "total"]
    assert lines[3].split()[0] == "entailment" and lines[3].split()[-1] == "3"
    assert "balanced accuracy     1.0000" in text
    assert "over-claiming" in text and "contradiction recall" in text
    empty = render_text(evaluate_pairs([], settings=settings))
    assert "n/a" in empty and "nan" not in empty.lower()
