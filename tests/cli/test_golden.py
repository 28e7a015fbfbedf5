"""The JSON shapes printed by the CLI are a contract: pinned by golden files.

Values vary (ids, timings); the golden files pin the keys and the type of each value.
Regenerate deliberately with TETHER_UPDATE_GOLDEN=1 after a reviewed contract change.
"""

import json
import os
from pathlib import Path

from .conftest import run_tether

GOLDEN = Path(__file__).parents[1] / "golden"


def shape(value):
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return "null" if value is None else type(value).__name__


def matches(actual, golden) -> bool:
    """``golden`` may allow alternatives for a scalar or a list: "str|null", "list|null", "dict|null"."""
    if isinstance(golden, str) and "|" in golden:
        kinds = golden.split("|")
        return (
            (isinstance(actual, list) and "list" in kinds)
            or (isinstance(actual, dict) and "dict" in kinds)
            or actual in kinds
        )
    if isinstance(golden, dict):
        return isinstance(actual, dict) and actual.keys() == golden.keys() and all(
            matches(actual[k], golden[k]) for k in golden
        )
    if isinstance(golden, list):
        return isinstance(actual, list) and all(matches(a, golden[0]) for a in actual)
    return actual == golden


def _check(name, value):
    path = GOLDEN / name
    if os.environ.get("TETHER_UPDATE_GOLDEN"):
        path.write_text(json.dumps(shape(value), indent=2, sort_keys=True) + "\n")
    assert matches(shape(value), json.loads(path.read_text())), f"{name} changed shape"


def test_answer_json_shape(tmp_path, mixed_folder):
    db = tmp_path / "t.db"
    run_tether("ingest", str(mixed_folder), "--db", str(db))
    answer = json.loads(run_tether("ask", "What is the flash point of acetone?", "--db", str(db), "--json").out)
    answer["dropped"] = [{"text": "x", "verdict": answer["sentences"][0]["verdict"]}]
    answer["timings_ms"] = {"total_ms": 1.0}
    answer["trace"] = {}
    for key in ("probe",):
        answer.pop(key, None)
    _check("answer.json", answer)
    refused = json.loads(run_tether("ask", "zzzz qqqq", "--db", str(db), "--json").out)
    assert refused["refused"] and refused["refusal_reason"] and refused["sentences"] == []


def test_verify_json_shape():
    run = run_tether("verify", stdin=json.dumps({
        "passages": [{"id": "a", "text": "Water boils at 100 °C."}], "sentences": ["Water boils at 100 °C."],
    }))
    _check("verify.json", json.loads(run.out))
