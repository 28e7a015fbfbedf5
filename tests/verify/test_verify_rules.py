"""Every support rule, named, with the pair it decides and one just past its limit
(docs/adr/0059-named-support-rules.md).

A rule decides its pair: ``check`` gives the recorded outcome, and with the rule
switched off (``Settings.support_rules_off``) another. Past its limit it decides
nothing: the recorded outcome, the same with the rule off.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tether.config import Settings
from tether.errors import ConfigError
from tether.verify import lexicon
from tether.verify import check
from tether.verify.rules import BASE, RULES, Rule, RuleUse, rules_off

pytestmark = pytest.mark.skipif(not lexicon.available(), reason="WordNet not installed")


def _pairs_missing(rule: Rule) -> list[str]:
    return [kind for kind in ("decides", "limit") if getattr(rule, kind) is None]


@pytest.mark.parametrize("name", sorted(RULES))
def test_rule_decides_its_pair_and_nothing_past_its_limit(name: str) -> None:
    rule = RULES[name]
    assert not _pairs_missing(rule), f"rule {name!r} is registered without its {_pairs_missing(rule)} pair"
    assert rule.statement and name == name.lower() and " " not in name
    on, off = Settings(), Settings(support_rules_off=name)
    d, lim = rule.decides, rule.limit
    assert d is not None and lim is not None
    got = check(d.claim, d.passage, settings=on)
    assert got.outcome == d.outcome, (name, got)
    assert check(d.claim, d.passage, settings=off).outcome != d.outcome, f"{name} does not decide its pair"
    assert check(lim.claim, lim.passage, settings=on).outcome == lim.outcome
    assert check(lim.claim, lim.passage, settings=off).outcome == lim.outcome, f"{name} decides past its limit"


def test_a_rule_registered_without_both_pairs_is_caught() -> None:
    rule = replace(RULES["wordnet-licence"], limit=None)
    assert _pairs_missing(rule) == ["limit"]


def test_a_verdict_names_the_licence_that_let_it_through() -> None:
    r = check("A cat is sleeping on a container.", "A cat is sleeping on a box.", settings=Settings())
    assert r.outcome == "supported" and r.reasons == ("overlap:1.00",)
    assert r.rules == (RuleUse("overlap", "1.00"), RuleUse("wordnet-licence", "container"))


def test_a_verdict_names_the_rule_that_took_support_away() -> None:
    r = check("A clerk is talking to a person.", "A clerk is talking.", settings=Settings())
    assert r.checker == "lexicon"
    assert r.rules == (RuleUse("unaccounted-word", "added:'person' is not stated by the passage"),)
    assert r.reasons[-1] == r.rules[0].detail  # the string shown is the record's


def test_every_rule_named_by_a_verdict_is_registered() -> None:
    for rule in RULES.values():
        for ex in (rule.decides, rule.limit):
            assert ex is not None
            for use in check(ex.claim, ex.passage, settings=Settings()).rules:
                assert use.rule in RULES or use.rule in BASE, use


def test_an_unknown_rule_name_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError, match="no-such-rule"):
        check("A cat sleeps.", "A cat sleeps.", settings=Settings(support_rules_off="wordnet-licence,no-such-rule"))
    assert rules_off(["names", "years"]) == {"names", "years"}
