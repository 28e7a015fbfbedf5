"""The public surface of tether.verify, the Check record and the off/shadow/on modes."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import tether.verify as verify
from tether.config import Settings
from tether.errors import ConfigError
from tether.records import OUTCOMES, Verdict
from tether.verify import Check, check

NEGATED = ("The valve was not replaced in the spring.", "The valve was replaced in the spring.")
# One figure changed out of six content words: coverage stays above 0.66.
FIGURE = (
    "The plant emitted 412500 tonnes of carbon in 2026.",
    "The plant emitted 14125001 tonnes of carbon in 2026.",
)


def test_public_surface_is_pinned():
    assert sorted(verify.__all__) == [
        "Check", "Figure", "VERIFIER_GATES", "check", "extract_figures",
        "prepare_passage", "same_figure", "verifier_modes",
    ]  # fmt: skip
    for name in verify.__all__:
        assert hasattr(verify, name)


def test_check_takes_settings_and_modes_by_keyword_only():
    params = inspect.signature(check).parameters
    assert params["settings"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["modes"].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError):
        check("a", "b", Settings())  # type: ignore[misc]


def test_check_is_a_frozen_slotted_record(settings):
    result = check("Rollo led the Normans.", "Rollo led the Normans.", settings=settings)
    assert isinstance(result, Check)
    assert not hasattr(result, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.outcome = "unsupported"  # type: ignore[misc]
    assert result.outcome in OUTCOMES
    assert isinstance(result.reasons, tuple)


def test_verdict_carries_the_check(settings):
    result = check(*NEGATED, settings=settings)
    verdict = result.verdict("p1")
    assert isinstance(verdict, Verdict)
    assert (verdict.outcome, verdict.span, verdict.checker, verdict.passage_id) == (
        "contradicted", result.span, "polarity", "p1",
    )  # fmt: skip


@pytest.mark.parametrize(
    "modes, outcome, shadow, prefix",
    [
        (None, "contradicted", None, "negation:"),
        ({"contradiction": "on"}, "contradicted", None, "negation:"),
        ({"contradiction": "shadow"}, "supported", "contradicted", "shadow:negation:"),
        ({"contradiction": "off"}, "supported", None, None),
        ({"figures": "off"}, "contradicted", None, "negation:"),
    ],
)
def test_contradiction_gate_modes(settings, modes, outcome, shadow, prefix):
    result = check(*NEGATED, settings=settings, modes=modes)
    assert result.outcome == outcome
    assert result.shadow_outcome == shadow
    fired = [r for r in result.reasons if "negation:" in r]
    if prefix is None:
        assert fired == []
    else:
        assert fired and fired[0].startswith(prefix)


@pytest.mark.parametrize(
    "modes, outcome, shadow",
    [
        (None, "contradicted", None),
        ({"figures": "shadow"}, "supported", "contradicted"),
        ({"figures": "off"}, "supported", None),
        ({"contradiction": "off"}, "contradicted", None),
    ],
)
def test_figure_gate_modes(settings, modes, outcome, shadow):
    result = check(*FIGURE, settings=settings, modes=modes)
    assert (result.outcome, result.shadow_outcome) == (outcome, shadow)
    if modes == {"figures": "shadow"}:
        assert any(r.startswith("shadow:figure:412500") for r in result.reasons)
    if modes == {"figures": "off"}:
        assert not any("figure:" in r for r in result.reasons)
        assert result.checker == "lexical"


def test_shadow_outcome_is_none_when_nothing_would_change(settings):
    result = check(
        "The valve was replaced in the spring.",
        "The valve was replaced in the spring.",
        settings=settings,
        modes={"contradiction": "shadow", "figures": "shadow"},
    )
    assert (result.outcome, result.shadow_outcome) == ("supported", None)


def test_base_lexical_test_cannot_be_switched_off(settings):
    off = {"contradiction": "off", "figures": "off"}
    result = check("Penguins live in deserts.", "The valve was replaced.", settings=settings, modes=off)
    assert result.outcome == "unsupported"


def test_bad_mode_is_a_config_error(settings):
    with pytest.raises(ConfigError):
        check(*NEGATED, settings=settings, modes={"figures": "enforce"})


def test_other_gates_in_modes_are_ignored(settings):
    result = check(*NEGATED, settings=settings, modes={"judge": "on", "probe": "shadow"})
    assert result.outcome == "contradicted"


def test_support_overlap_is_read_from_settings():
    # Two of five claim words aligned: above the mention floor of a loose setting
    # (0.5 x 0.5), below that of a strict one (0.9 x 0.5). No setting lets the
    # unaccounted words ("new", "harbour", "plan") through as support.
    # ("minutes", not "budget": a budget is a plan in WordNet and would license it.)
    sentence = "The committee approved the new harbour plan."
    passage = "The committee approved the minutes."
    loose = check(sentence, passage, settings=Settings(support_overlap=0.5))
    strict = check(sentence, passage, settings=Settings(support_overlap=0.9))
    assert loose.outcome == "mentioned"
    assert strict.outcome == "unsupported"
    assert loose.score == strict.score
