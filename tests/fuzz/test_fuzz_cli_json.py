"""Fuzz the JSON the CLI reads: ``verify`` (stdin, ``--jsonl``), ``ask --jsonl`` and
``resolve`` (stdin, ``--jsonl``). Whatever arrives, the command either succeeds
(exit 0, JSON out) or refuses the input (exit 2, one ``error:`` line); never an
internal error, a traceback, or partial output before a refusal."""

from __future__ import annotations

import json

import pytest
from citehelp import cite, put_text
from cli.clirun import run
from hypothesis import example, given
from hypothesis import strategies as st

from tether.records import to_json
from tether.store.sqlite import SQLiteStore

from .fuzzhelp import bounded, fuzz_settings
from .strategies import any_json, hostile_text

TEXT = "Methanol boils at 64.7 °C. It is toxic if swallowed. Store it in a cool place."


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> tuple[str, dict]:
    path = tmp_path_factory.mktemp("fuzzcli") / "store.db"
    store = SQLiteStore(path)
    document, version = put_text(store, TEXT)
    store.close()
    return str(path), to_json(cite(document, version, 0, 26))


def _run(target: str, *args: str, stdin: str) -> tuple[int, str, str]:
    code, out, err = bounded(target, 10, run, *args, input=stdin)
    assert code in (0, 2), (code, out, err)
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        errors = [line for line in err.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, err
        assert out == "", out  # refused input produces no partial output
    return code, out, err


def _lines(items: list, raw: list[str]) -> str:
    lines = [json.dumps(item) for item in items] + raw
    return "\n".join(lines) + "\n"


passage = st.fixed_dictionaries({"id": any_json | st.text(max_size=3), "text": any_json | hostile_text})
verify_request = st.fixed_dictionaries(
    {"passages": st.lists(passage | any_json, max_size=3) | any_json},
    optional={"sentences": st.lists(hostile_text | any_json, max_size=3) | any_json,
              "answer": hostile_text | any_json, "id": any_json},
)


@fuzz_settings(120)
@given(verify_request | any_json)
def test_verify_stdin(request) -> None:
    code, out, _ = _run("cli.verify", "verify", stdin=json.dumps(request))
    if code == 0:
        result = json.loads(out)
        assert isinstance(result["sentences"], list)


@fuzz_settings(100)
@given(st.lists(verify_request | any_json, max_size=3), st.lists(hostile_text, max_size=2))
def test_verify_jsonl(requests: list, raw: list[str]) -> None:
    code, out, _ = _run("cli.verify --jsonl", "verify", "--jsonl", stdin=_lines(requests, raw))
    if code == 0:
        assert all("sentences" in json.loads(line) for line in out.splitlines())


ask_line = st.fixed_dictionaries({}, optional={"id": any_json, "question": hostile_text | any_json})


@fuzz_settings(100)
@given(st.lists(ask_line | any_json, max_size=3), st.lists(hostile_text, max_size=2))
# Found: an empty (or over-long) question on a later line was refused only after the
# earlier lines had been answered and printed.
@example([{"id": 1, "question": "0"}, {"id": 2, "question": ""}], [])
@example([{"id": 1, "question": "0"}, {"id": 2, "question": "x" * 2001}], [])
def test_ask_jsonl(db, items: list, raw: list[str]) -> None:
    path, _ = db
    code, out, _ = _run("cli.ask --jsonl", "ask", "--jsonl", "-", "--db", path,
                        stdin=_lines(items, raw))
    if code == 0:
        for line in out.splitlines():
            answer = json.loads(line)
            assert "trace_id" in answer and "sentences" in answer


def _mutated(citation: dict, data: st.DataObject) -> object:
    obj = dict(citation)
    for key in data.draw(st.lists(st.sampled_from(sorted(obj) + ["id", "sentences"]), max_size=3)):
        obj[key] = data.draw(any_json | st.integers(-3, 100) | hostile_text)
    return data.draw(st.just(obj) | any_json)


@fuzz_settings(120)
@given(st.data())
def test_resolve_stdin(db, data: st.DataObject) -> None:
    path, citation = db
    stdin = data.draw(st.just(json.dumps(_mutated(citation, data))) | hostile_text)
    code, out, _ = _run("cli.resolve", "resolve", "--db", path, stdin=stdin)
    if code == 0:
        assert json.loads(out)["status"] in {"exact", "relocated", "changed", "missing"}


@fuzz_settings(100)
@given(st.data())
def test_resolve_jsonl(db, data: st.DataObject) -> None:
    path, citation = db
    items = [_mutated(citation, data) for _ in range(data.draw(st.integers(0, 3)))]
    raw = data.draw(st.lists(hostile_text, max_size=2))
    code, out, _ = _run("cli.resolve --jsonl", "resolve", "--jsonl", "--db", path,
                        stdin=_lines(items, raw))
    if code == 0:
        assert len(out.splitlines()) == sum(1 for line in _lines(items, raw).splitlines()
                                            if line.strip())
