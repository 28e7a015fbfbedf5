"""Calibration on a fixture collection, and which threshold is in force."""

import json
from dataclasses import replace

import pytest
from abstain_corpus import ANSWERABLE, UNANSWERABLE, make_tether

from tether.config import Settings
from tether.errors import ConfigError, InputError
from tether.facade import Tether
from tether.retrieve.calibrate import (
    META_PREFIX,
    calibrate,
    choose_threshold,
    describe,
    histogram,
    load_calibration,
    resolve_threshold,
    save_calibration,
)
from tether.retrieve.probe import DEFAULT_THRESHOLD, MEANING


def test_choose_threshold_separates_with_the_widest_margin():
    assert choose_threshold([0.9, 0.8, 0.7], [0.2, 0.3], max_false_refusal=0.0) == 0.5


def test_choose_threshold_respects_the_false_refusal_cap():
    answerable = [0.1, 0.8, 0.9, 0.95]
    unanswerable = [0.05, 0.2, 0.3]
    # Refusing the 0.1 answerable question would catch two more unanswerable ones.
    assert choose_threshold(answerable, unanswerable, max_false_refusal=0.0) == 0.075
    assert choose_threshold(answerable, unanswerable, max_false_refusal=0.25) == 0.55


def test_choose_threshold_refuses_nothing_without_separation():
    assert choose_threshold([0.5, 0.5], [0.9], max_false_refusal=0.0) == 0.0
    with pytest.raises(InputError):
        choose_threshold([0.5], [], max_false_refusal=0.1)


def _items():
    return [(q, True) for q in ANSWERABLE] + [(q, False) for q in UNANSWERABLE]


def test_calibration_on_a_fixture_collection(tmp_path):
    with make_tether(tmp_path) as tether:
        cal = calibrate(tether.store, _items(), settings=tether.settings)
    assert cal.scorer == "sqlite-fts5-bm25"
    assert len(cal.answerable) == 4 and len(cal.unanswerable) == 3
    # The fixture separates cleanly: every unanswerable question under the line,
    # every answerable one over it, with room on both sides.
    assert max(cal.unanswerable) < cal.threshold < min(cal.answerable)
    assert cal.margin_below == pytest.approx(cal.threshold - max(cal.unanswerable), abs=1e-4)
    assert cal.margin_above == pytest.approx(min(cal.answerable) - cal.threshold, abs=1e-4)
    assert (cal.precision, cal.recall, cal.false_refusal) == (1.0, 1.0, 0.0)
    text = histogram(cal)
    assert "<- threshold" in text and "answerable" in text


def test_default_until_calibrated_then_the_calibration(tmp_path):
    with make_tether(tmp_path) as tether:
        before = resolve_threshold(tether.store, tether.settings)
        assert (before.value, before.source) == (DEFAULT_THRESHOLD, "default")
        assert "not calibrated" in before.note and "tether calibrate" in before.note
        cal = calibrate(tether.store, _items(), settings=tether.settings)
        save_calibration(tether.store, cal)
        after = resolve_threshold(tether.store, tether.settings)
        assert (after.value, after.source, after.note) == (cal.threshold, "calibrated", None)
        assert load_calibration(tether.store) == cal


def test_calibration_says_what_the_meaning_reading_refuses_beside_the_threshold(tmp_path):
    with make_tether(tmp_path / "trained", reader="trained") as tether:
        cal = calibrate(tether.store, _items(), settings=tether.settings)
        save_calibration(tether.store, cal)
        assert load_calibration(tether.store) == cal
    assert cal.meaning_refused is not None
    refused_answerable, refused_unanswerable = cal.meaning_refused
    assert refused_answerable <= len(cal.answerable)
    assert refused_unanswerable <= len(cal.unanswerable)
    assert f"the meaning reading (fixed at {MEANING.at:g}) also refuses {refused_answerable} " \
        f"answerable and {refused_unanswerable} unanswerable" in "\n".join(describe(cal))
    with make_tether(tmp_path / "lexical", reader="lexical", retrieval="bm25") as tether:
        words_only = calibrate(tether.store, _items(), settings=tether.settings)
    assert words_only.meaning_refused is None
    assert "meaning" not in "\n".join(describe(words_only))


def test_threshold_for_another_scorer_is_refused(tmp_path):
    with make_tether(tmp_path) as tether:
        pinned = Settings(probe_threshold="postgres-ts-rank=0.3")
        with pytest.raises(ConfigError, match="calibrated for scorer 'postgres-ts-rank'.*"
                                              "scores with 'sqlite-fts5-bm25'"):
            resolve_threshold(tether.store, pinned)
        with Tether(tmp_path / "store.db", settings=pinned) as pinned_tether:
            with pytest.raises(ConfigError):  # the pipeline refuses it too, before any event
                next(pinned_tether.stream("What is the Kestrel Board limit for brisol?"))
        cal = calibrate(tether.store, _items(), settings=Settings())
        with pytest.raises(ConfigError, match="does not transfer between scorers"):
            save_calibration(tether.store, replace(cal, scorer="postgres-ts-rank"))
        # A stored calibration that names another scorer (a copied store) is refused.
        tether.store.set_meta(META_PREFIX + tether.store.scorer,
                              json.dumps({**json.loads(cal.to_meta()), "scorer": "other"}))
        with pytest.raises(ConfigError, match="calibrated for scorer 'other'"):
            resolve_threshold(tether.store, Settings())


def test_pinned_threshold_for_the_same_scorer_applies(tmp_path):
    with make_tether(tmp_path, probe_threshold="sqlite-fts5-bm25=0.9") as tether:
        assert resolve_threshold(tether.store, tether.settings).source == "config"
        answer = tether.ask("What is the Kestrel Board limit for brisol?")
        assert answer.probe.threshold == 0.9
        with pytest.raises(ConfigError, match="SCORER=VALUE"):
            resolve_threshold(tether.store, Settings(probe_threshold="0.4"))
