import json

from .conftest import run_tether

PAIRS = [
    {"premise": "Acetone has a flash point of -20 °C.", "hypothesis": "Acetone has a flash point of -20 °C.",
     "label": "entailment"},
    {"premise": "Acetone has a flash point of -20 °C.", "hypothesis": "Acetone has a flash point of 20 °C.",
     "label": "contradiction"},
    {"premise": "Ammonia is not flammable at room temperature.",
     "hypothesis": "Ammonia is flammable at room temperature.", "label": "contradiction"},
    {"premise": "Chlorine is heavier than air.", "hypothesis": "Chlorine smells of bleach.", "label": "neutral"},
]


def _stdin(rows):
    return "\n".join(json.dumps(r) for r in rows) + "\n"


def test_eval_verifier_json_reports_the_matrix_and_rates():
    run = run_tether("eval-verifier", "-", "--json", stdin=_stdin(PAIRS))
    assert run.code == 0, run.err
    result = json.loads(run.out)
    assert result["n"] == 4
    assert result["confusion"]["entailment"]["supported"] == 1
    assert result["confusion"]["contradiction"]["contradicted"] == 2
    assert result["contradiction_recall"] == 1.0
    assert result["over_claiming"] == 0.0 and result["entailed_dropped"] == 0.0
    assert result["balanced_accuracy"] == 1.0


def test_eval_verifier_text_and_empty_classes_are_not_nan():
    run = run_tether("eval-verifier", "-", stdin=_stdin(PAIRS[:1]))
    assert run.code == 0, run.err
    assert "nan" not in run.out.lower() and "n/a" in run.out


def test_eval_verifier_bad_lines():
    for bad, words in [('{"premise": "a", "hypothesis": "b"}', "missing key 'label'"),
                       ('{"premise": "a", "hypothesis": "b", "label": "maybe"}', "line 1: unknown gold label"),
                       ("{oops", "not valid json")]:
        run = run_tether("eval-verifier", "-", stdin=bad + "\n")
        assert run.code == 2 and words in run.err.lower() and run.out == "", (bad, run.err)
