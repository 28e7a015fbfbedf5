"""Every rate of a run, with its denominator, on questions whose fate we control."""

import json
import sqlite3
import statistics

import pytest

from tether.evaluate import GoldenItem, load_labels, percentiles, run_eval
from tether.evaluate.runner import REQUIRED_KEYS
from tether.records import Draft


class ScriptedGenerator:
    """Proposes exactly the sentences listed for a question, whatever was retrieved."""

    name = "scripted"

    def __init__(self, script):
        self.script = script

    def generate(self, question, hits, *, steering=None):
        for text in self.script.get(question, []):
            yield Draft(text)


BOIL = "At what temperature does methanol boil?"
LIMIT = "What is the OASB limit for methanol?"
FLASH = "What is the flash point of methanol?"
MONA = "Who painted the Mona Lisa?"
SCRIPT = {
    BOIL: ["Methanol boils at 64.7 °C at sea level.",      # supported
           "Methanol boils at 90 °C at sea level.",        # contradicted: figure changed
           "Penguins huddle together in winter."],         # unsupported: nothing aligns
    LIMIT: ["The OASB 8-hour limit for methanol is 200 ppm."],
    FLASH: ["Penguins huddle together in winter."],
}
ITEMS = [
    GoldenItem("boil", BOIL, True, ("64.7",), ("sheets/methanol.txt",)),
    GoldenItem("limit", LIMIT, True, ("200 PPM",), ("acetone.md",)),
    GoldenItem("flash", FLASH, False),
    GoldenItem("mona", MONA, False),
]


@pytest.fixture
def result(tether, corpus):
    return run_eval(tether, ITEMS, labels=load_labels(corpus / "manifest.json"),
                    generator=ScriptedGenerator(SCRIPT))


def test_sentence_and_draft_rates_pool_counts_over_the_run(result):
    s = result.summary
    assert s["groundedness"] == {"value": 1.0, "count": 2, "n": 2}
    assert s["citation_coverage"] == {"value": 1.0, "count": 2, "n": 2}
    assert s["draft_faithfulness"] == {"value": 0.4, "count": 2, "n": 5}
    # supported drafts and the contradicted one rest on a span; "penguins" on none
    assert s["draft_citation_coverage"] == {"value": 0.6, "count": 3, "n": 5}
    assert s["drop_rate"] == {"value": 0.6, "count": 3, "n": 5}
    assert s["drop_rate_by_outcome"]["contradicted"] == {"value": 0.2, "count": 1, "n": 5}
    assert s["drop_rate_by_outcome"]["unsupported"] == {"value": 0.4, "count": 2, "n": 5}
    assert s["counts"] == {"questions": 4, "answerable": 2, "unanswerable": 2, "refused": 2,
                           "sentences": 2, "drafts": 5, "dropped": 3}


def test_question_rates_refusals_abstention_accuracy_and_retrieval(result):
    s = result.summary
    assert s["refusal_rate"] == {"value": 0.5, "count": 2, "n": 4}
    assert s["refusal_rate_by_layer"] == {"guard": {"value": 0.25, "count": 1, "n": 4},
                                          "probe": {"value": 0.25, "count": 1, "n": 4}}
    assert s["answer_accuracy"] == {"value": 1.0, "count": 2, "n": 2}  # "200 PPM": case-folded
    assert s["overall_accuracy"] == {"value": 1.0, "count": 4, "n": 4}
    assert s["abstain_precision"] == {"value": 1.0, "count": 2, "n": 2}
    assert s["abstain_recall"] == {"value": 1.0, "count": 2, "n": 2}
    # "limit" expected acetone.md: its passages were not what retrieval found
    assert s["retrieval_hit_rate"] == {"value": 0.5, "count": 1, "n": 2}
    rows = {r["id"]: r for r in result.questions}
    assert rows["boil"]["retrieval_hit"] is True and rows["limit"]["retrieval_hit"] is False
    assert rows["mona"]["refusal_layer"] == "probe" and rows["flash"]["refusal_layer"] == "guard"
    assert [d["outcome"] for d in rows["boil"]["dropped"]] == ["contradicted", "unsupported"]
    assert rows["boil"]["sentences"][0]["citations"][0]["quote"].rstrip(".") == "Methanol boils at 64.7 °C at sea level"


def test_json_has_the_promised_keys_and_never_nan(result):
    out = result.to_json()
    assert set(REQUIRED_KEYS) <= set(out)
    assert set(out["latency_ms"]) >= {"p50", "p95"} and out["latency_ms"]["n"] == 4
    json.dumps(out, allow_nan=False)
    assert len(out["questions"]) == 4 and result.gate_failures() == []


def test_a_run_where_everything_is_refused_has_null_sentence_rates_not_nan(tether):
    result = run_eval(tether, [GoldenItem("mona", MONA, False), GoldenItem("boil", BOIL, True, ("64.7",))],
                      generator=ScriptedGenerator({}))
    s = result.summary
    assert s["groundedness"] == {"value": None, "count": 0, "n": 0}
    assert s["draft_faithfulness"] == {"value": None, "count": 0, "n": 0}
    assert s["refusal_rate"]["value"] == 1.0
    assert s["answer_accuracy"] == {"value": 0.0, "count": 0, "n": 1}  # a refusal is a wrong answer
    assert s["abstain_precision"] == {"value": 0.5, "count": 1, "n": 2}
    json.dumps(result.to_json(), allow_nan=False)
    assert result.gate_failures() == []


def test_an_answer_citing_text_the_store_no_longer_holds_fails_groundedness(tether):
    # Corrupt the stored version behind the index: passages still say 64.7, the version not.
    with sqlite3.connect(tether.store.path) as con:
        con.execute("UPDATE versions SET text = replace(text, '64.7', '99.9')")
    result = run_eval(tether, [GoldenItem("boil", BOIL, True, ("64.7",))])
    g = result.summary["groundedness"]
    assert g["n"] >= 1 and g["count"] < g["n"]
    row = result.questions[0]
    assert any("quote differs from the stored text" in p for s in row["sentences"] for p in s["problems"])
    assert result.gate_failures()[0].startswith("groundedness")


def test_leaks_are_counted_per_rendered_sentence(tether):
    item = GoldenItem("boil", BOIL, True, ("64.7",), forbid_contains=("64.7 °C",))
    result = run_eval(tether, [item], generator=ScriptedGenerator(SCRIPT))
    assert result.summary["instruction_leaks"] == {"value": 1.0, "count": 1, "n": 1}
    assert "forbidden text '64.7 °C'" in result.questions[0]["sentences"][0]["leaks"]
    assert "carry an injected instruction" in result.gate_failures()[0]


@pytest.mark.parametrize("values", [[5.0], [1.0, 2.0], [3.0, 1.0, 2.0, 10.0], list(range(1, 42))])
def test_percentiles_match_linear_interpolation(values):
    cuts = statistics.quantiles(values * (2 if len(values) == 1 else 1), n=100, method="inclusive")
    p50, p95 = percentiles(values, 50, 95)
    assert p50 == pytest.approx(cuts[49], abs=0.01) and p95 == pytest.approx(cuts[94], abs=0.01)
    assert percentiles([], 50) == [None]
