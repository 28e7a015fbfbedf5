"""Negation, quantifier and modality checks, as case tables of hard pairs."""

from __future__ import annotations

import pytest

from tether.verify import check
from tether.verify.align import align, best_windows
from tether.verify.lexical import prepare
from tether.verify.polarity import check_negation, negation_cues

# (sentence, passage, outcome, reason fragment)
POLARITY_CASES = [
    ("The vaccine is effective against measles.", "The vaccine is not effective against measles.",
     "contradicted", "negation:passage says 'not'"),
    ("The vaccine is not effective against measles.", "The vaccine is effective against measles.",
     "contradicted", "negation:sentence says 'not'"),
    ("The bridge isn't safe for trucks.", "The bridge is safe for trucks.",
     "contradicted", "negation:sentence says 'isn't'"),
    ("The bridge is safe for trucks.", "The bridge isn\u2019t safe for trucks.",
     "contradicted", "negation:passage says 'isn't'"),
    ("The committee never approved the budget.", "The committee approved the budget in March.",
     "contradicted", "'never'"),
    ("The tablets contain gluten.", "The tablets are free of gluten.", "contradicted", "'free of'"),
    ("The trial showed an effect on blood pressure.",
     "The trial failed to show an effect on blood pressure.", "contradicted", "'failed to'"),
    ("Patients with diabetes were included.", "Patients without diabetes were included.",
     "contradicted", "'without'"),
    ("Neither drug reduced pain.", "Both drugs reduced pain.", "contradicted", "'neither'"),
    ("The sample contained lead.", "No lead was found in the sample, which contained zinc.",
     "contradicted", "'no'"),
    ("The procedure is invasive.", "The procedure is non-invasive.", "contradicted", "'non'"),
    ("Vitamin D cures the flu.", "There is no evidence that vitamin D cures the flu.",
     "contradicted", "'no'"),
    ("The man is smiling at the camera.",
     "The man does not stand with his arms crossed, smiling at the camera.", "contradicted", "'not'"),
    ("The results were not significant and not replicated.",
     "The results were not significant and were replicated.", "contradicted", "negation:sentence"),
    ("The bridge is not safe for trucks.", "Engineers said the bridge is not safe for trucks.",
     "supported", None),
    ("The second trial succeeded.", "The first trial did not succeed, but the second trial succeeded.",
     "supported", None),
    ("The river is not only wide but also deep.", "The river is wide and also deep.",
     "supported", None),
    # Under negation entailment runs the other way: dropping words is not allowed...
    ("The man is not walking.", "The man is not walking the dog.", "mentioned", "negates more"),
    # ...and adding them is an added detail all the same: logic lets "not walking the
    # dog" give "not walking the dog in the park", but the annotators of negated NLI
    # (Hossain et al. 2020) call such pairs neutral, and over-refusing is the safe side.
    ("The man is not walking the dog in the park.", "The man is not walking the dog.",
     "mentioned", None),
    ("Москва не является столицей России.", "Москва является столицей России.",
     "contradicted", "'не'"),
    ("东京不是日本的首都。", "东京是日本的首都。", "contradicted", "'不'"),
]  # fmt: skip


@pytest.mark.parametrize("sentence, passage, outcome, reason", POLARITY_CASES)
def test_polarity(settings, sentence, passage, outcome, reason):
    result = check(sentence, passage, settings=settings)
    assert result.outcome == outcome, result
    if reason is not None:
        assert any(reason in r for r in result.reasons), result.reasons
        assert result.checker == "polarity"


@pytest.mark.parametrize(
    "text, cues",
    [
        ("it is not so", ["not"]),
        ("it isn't so and won't be", ["isn't", "won't"]),
        ("they failed to act", ["failed to"]),
        ("in the absence of rain", ["absence of"]),
        ("not only this but that", []),
        ("no doubt it works", []),
        ("nobody came and nothing happened", ["nobody", "nothing"]),
        ("neither red nor blue", ["neither", "nor"]),
    ],
)
def test_negation_cues(text, cues):
    p = prepare(text)
    assert negation_cues(p.low, 0, len(p.low)) == cues


def test_check_negation_is_a_pure_function_of_the_alignment():
    s, p = prepare("The dam did not hold."), prepare("The dam did hold.")
    a = align(s, p, best_windows(s.key_set, p)[0])
    first, second = check_negation(a), check_negation(a)
    assert first == second and first[0].effect == "contradicts"


QUANTIFIER_CASES = [
    ("All patients recovered within a week.", "Some patients recovered within a week.",
     "contradicted", "quantifier:all vs some"),
    ("Some patients recovered within a week.", "All patients recovered within a week.",
     "contradicted", "quantifier:some vs all"),
    ("Patients recovered within a week.", "All patients recovered within a week.", "supported", None),
    # Dropping "some" generalises: not stated, though not the opposite either...
    ("Patients recovered within a week.", "Some patients recovered within a week.",
     "mentioned", "quantifier:(none) vs some"),
    # ...while adding it says less than the passage does.
    ("Some kittens are eating.", "The kittens are eating.", "supported", None),
    ("Most voters approved the plan.", "Few voters approved the plan.",
     "contradicted", "quantifier:most vs few"),
    ("The valve always leaks in winter.", "The valve sometimes leaks in winter.",
     "contradicted", "quantifier:always vs sometimes"),
    ("The valve leaks in winter.", "The valve rarely leaks in winter.",
     "contradicted", "quantifier:(none) vs rarely"),
    ("It is the most important bridge in town.", "It is the most important bridge in town.",
     "supported", None),
    ("A few patients recovered.", "Some patients recovered.", "supported", None),
    ("Every member voted for the plan.", "Each member voted for the plan.", "supported", None),
]  # fmt: skip


@pytest.mark.parametrize("sentence, passage, outcome, reason", QUANTIFIER_CASES)
def test_quantifier(settings, sentence, passage, outcome, reason):
    result = check(sentence, passage, settings=settings)
    assert result.outcome == outcome, result
    if reason is not None:
        assert reason in result.reasons, result.reasons
        assert result.checker == "quantifier"


MODALITY_CASES = [
    ("The drug may reduce mortality.", "The drug reduces mortality.", "contradicted",
     "modality:may vs does"),
    ("The drug reduces mortality.", "The drug may reduce mortality.", "contradicted",
     "modality:does vs may"),
    ("The drug reduces mortality.", "The drug could reduce mortality.", "contradicted",
     "modality:does vs could"),
    ("Workers must wear helmets on site.", "Workers can wear helmets on site.", "contradicted",
     "modality:must vs can"),
    ("The drug probably reduces mortality.", "The drug reduces mortality.", "contradicted",
     "modality:probably vs does"),
    ("Workers must wear helmets on site.", "Workers must wear helmets on site at all times.",
     "supported", None),
    ("The drug may reduce mortality.", "Trials suggest the drug might reduce mortality.",
     "supported", None),
]  # fmt: skip


@pytest.mark.parametrize("sentence, passage, outcome, reason", MODALITY_CASES)
def test_modality(settings, sentence, passage, outcome, reason):
    result = check(sentence, passage, settings=settings)
    assert result.outcome == outcome, result
    if reason is not None:
        assert reason in result.reasons, result.reasons
        assert result.checker == "modality"
