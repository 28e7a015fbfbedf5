import json

from .conftest import run_tether

WATER = {"passages": [{"id": "a", "text": "Water boils at 100 °C at sea level."}],
         "sentences": ["Water boils at 100 °C at sea level.", "Water boils at 50 °C."]}


def test_verify_supported_with_span_and_changed_figure_not():
    run = run_tether("verify", stdin=json.dumps(WATER))
    assert run.code == 0, run.err
    first, second = json.loads(run.out)["sentences"]
    assert first["outcome"] == "supported" and first["passage_id"] == "a"
    assert first["span"] == [0, 35] and first["quote"] == WATER["passages"][0]["text"][0:35]
    assert second["outcome"] != "supported"


def test_verify_free_text_answer_is_split_into_sentences():
    run = run_tether("verify", stdin=json.dumps({
        "passages": WATER["passages"], "answer": "Water boils at 100 °C at sea level. The moon is cheese.",
    }))
    outcomes = [s["outcome"] for s in json.loads(run.out)["sentences"]]
    assert outcomes[0] == "supported" and outcomes[1] == "unsupported"


def test_verify_jsonl_keeps_ids_order_and_ignores_unknown_keys():
    lines = [
        {"id": "x", "extra": True, **WATER},
        {"id": 7, "passages": [{"id": 1, "text": "Ammonia is not flammable at room temperature."}],
         "sentences": ["Ammonia is flammable at room temperature."]},
    ]
    run = run_tether("verify", "--jsonl", stdin="\n".join(json.dumps(x) for x in lines) + "\n")
    assert run.code == 0, run.err
    out = [json.loads(line) for line in run.out.splitlines()]
    assert [o["id"] for o in out] == ["x", 7]
    assert out[1]["sentences"][0]["outcome"] == "contradicted"
