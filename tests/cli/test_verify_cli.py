import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from proctree import alive, descendants

from .conftest import cli_env, run_tether

WATER = {"passages": [{"id": "a", "text": "Water boils at 100 °C at sea level."}],
         "sentences": ["Water boils at 100 °C at sea level.", "Water boils at 50 °C."]}


def test_verify_supported_with_span_and_changed_figure_not():
    run = run_tether("verify", stdin=json.dumps(WATER))
    assert run.code == 0, run.err
    first, second = json.loads(run.out)["sentences"]
    assert first["outcome"] == "supported" and first["passage_id"] == "a"
    assert first["span"] == [0, 35] and first["quote"] == WATER["passages"][0]["text"][0:35]
    assert second["outcome"] != "supported"


def test_verify_names_the_rules_that_decided_as_the_registry_and_bench_do():
    from tether.verify.rules import BASE, RULES

    run = run_tether("verify", stdin=json.dumps(WATER))
    assert run.code == 0, run.err
    first, second = json.loads(run.out)["sentences"]
    assert first["rules"] == ["verbatim"]
    assert second["outcome"] == "contradicted" and second["rules"] == ["figures"]
    assert set(first["rules"] + second["rules"]) <= set(RULES) | set(BASE)


def test_a_support_rule_name_that_is_no_rule_is_one_line_exit_2_before_any_answer(tmp_path):
    bad = {"TETHER_SUPPORT_RULES_OFF": "figures, no-such-rule"}
    run = run_tether("verify", stdin=json.dumps(WATER), env=bad)
    assert run.code == 2 and run.out == ""
    assert run.err.count("\n") == 1 and "no-such-rule" in run.err and "Traceback" not in run.err
    # a question refused before any sentence is verified still names the typo
    (tmp_path / "water.txt").write_text("Water boils at 100 °C at sea level.\n")
    assert run_tether("ingest", str(tmp_path / "water.txt"), "--db", str(tmp_path / "t.db")).code == 0
    asked = run_tether("ask", "zzzz qqqq", "--db", str(tmp_path / "t.db"), env=bad)
    assert asked.code == 2 and "no-such-rule" in asked.err and "Traceback" not in asked.err
    # a server with the typo in its settings does not start (not a 400 on every request)
    served = run_tether("serve", "--db", str(tmp_path / "t.db"), "--port", "0", env=bad)
    assert served.code == 2 and "no-such-rule" in served.err and "serving" not in served.err
    good = run_tether("verify", stdin=json.dumps(WATER), env={"TETHER_SUPPORT_RULES_OFF": " figures "})
    assert good.code == 0 and json.loads(good.out)["sentences"][1]["rules"] != ["figures"]


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


def _many(n_sentences: int, n_passages: int) -> dict:
    """Passages alike in their words (the hard case for a prefilter): a few shared
    nouns and one rare tag each; sentences copy, change or miss them."""
    nouns = ["pump", "hatch", "valve", "cylinder", "fan", "sump"]
    passages = [{"id": f"p{i}", "text": f"The {nouns[i % 6]} at unit {i} was checked by fitter tag{i}x."}
                for i in range(n_passages)]
    sentences = []
    for i in range(n_sentences):
        j = (i * 7919) % n_passages
        text = passages[j]["text"]
        sentences.append(text if i % 2 == 0 else text.replace("checked", "replaced"))
    return {"passages": passages, "sentences": sentences}


def test_verify_cost_is_bounded_by_alignments_per_sentence_not_passages():
    # 1,000 x 2,000 pairs: every pair aligned in full would take minutes; the index
    # hands at most max_alignments candidates per sentence to the support test.
    request = _many(1000, 2000)
    run = run_tether("verify", stdin=json.dumps(request), timeout=90)
    assert run.code == 0, run.err
    results = json.loads(run.out)["sentences"]
    assert len(results) == 1000
    for i, result in enumerate(results):
        if i % 2 == 0:  # the copy is found among 2,000 look-alikes
            assert result["outcome"] == "supported", result
            assert result["passage_id"] == f"p{(i * 7919) % 2000}"
        else:  # a changed verb is stated by none of them
            assert result["outcome"] in {"mentioned", "contradicted"}, result


def test_verify_alignment_cap_below_one_is_a_clear_error(tmp_path):
    (tmp_path / "tether.toml").write_text("max_alignments = 0\n", encoding="utf-8")
    run = run_tether("verify", stdin=json.dumps(WATER), cwd=tmp_path)
    assert run.code == 2
    lines = [line for line in run.err.splitlines() if line.strip()]
    assert lines[0] == "error: max_alignments must be at least 1, got 0", run.err


def test_verify_is_the_same_under_every_hash_seed():
    # Two units share equally rare words with the sentence, and their weights sum to the
    # same total in exact arithmetic but not always in floating point, by the order a
    # set hands them out: that order follows PYTHONHASHSEED, and so did the candidate
    # kept under a cap of one alignment. The verdict must not depend on it.
    fill = [f"Filler record number{chr(97 + i % 26)}{chr(97 + i // 26)} about nothing." for i in range(20)]
    units = [*fill[:5], "zorbax quillon marvex", "tolvane brimsel kestrin", *fill[5:]]
    units[7] += " quillon marvex"
    units[8] += " marvex"
    units[9] += " brimsel kestrin"
    units[10] += " kestrin"
    request = json.dumps({"passages": [{"id": f"u{i}", "text": t} for i, t in enumerate(units)],
                          "sentences": ["zorbax quillon marvex tolvane brimsel kestrin."]})
    outputs = set()
    for seed in range(6):
        run = run_tether("verify", stdin=request,
                         env={"PYTHONHASHSEED": str(seed), "TETHER_MAX_ALIGNMENTS": "1"})
        assert run.code == 0, run.err
        outputs.add(run.out)
    assert len(outputs) == 1, outputs


def test_verify_finds_a_copy_among_more_look_alikes_than_the_candidate_pool():
    # 300 units hold every word of the sentence and one more; the copy, without that
    # one more, comes last. The pool (8 x max_alignments) takes the units closest to the
    # sentence, not the first 128 by position, so the copy is checked and supports it.
    passages = [{"id": f"p{i}", "text": f"A man is playing a guitar beside hut{i}q."} for i in range(300)]
    passages.append({"id": "copy", "text": "A man is not playing a guitar."})
    run = run_tether("verify", stdin=json.dumps({"passages": passages,
                                                 "sentences": ["A man is not playing a guitar."]}))
    assert run.code == 0, run.err
    result = json.loads(run.out)["sentences"][0]
    assert (result["outcome"], result["passage_id"]) == ("supported", "copy"), result


def test_verify_workers_change_nothing_in_the_verdicts(tmp_path):
    # 200 x 600 pairs: over the fork threshold, so the default (one worker per core)
    # shares the sentences out; one worker checks them all in this process.
    request = json.dumps(_many(200, 600))
    forked = run_tether("verify", stdin=request)
    alone = run_tether("verify", stdin=request, env={"TETHER_VERIFY_WORKERS": "1"})
    assert forked.code == alone.code == 0, forked.err + alone.err
    assert forked.out == alone.out
    assert len(json.loads(forked.out)["sentences"]) == 200


# Ctrl-C as a terminal's foreground command gets it. A runner that started these tests
# in the background (a shell without job control) hands its children SIGINT ignored,
# which Python keeps: the default is set again before tether's own process starts.
_INTERRUPTIBLE = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execv(sys.executable, [sys.executable, '-m', 'tether', 'verify'])")


def _verify_with_workers(request: dict, tmp_path: Path) -> tuple[subprocess.Popen, set[int]]:
    """``tether verify`` on ``request``, once its workers are running, and their pids."""
    body = tmp_path / "request.json"
    body.write_text(json.dumps(request), encoding="utf-8")
    with body.open("rb") as stdin:
        process = subprocess.Popen([sys.executable, "-c", _INTERRUPTIBLE], stdin=stdin,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env(),
                                   start_new_session=True)
    deadline = time.monotonic() + 60
    while not (workers := descendants(process.pid)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert workers, "tether verify started no workers"
    return process, workers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_verify_interrupted_is_one_line_and_leaves_no_worker(tmp_path):
    process, workers = _verify_with_workers(_many(3000, 2000), tmp_path)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert out == b"" and err.decode().strip() == "error: interrupted"
    assert not any(alive(pid) for pid in workers)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, prctl")
def test_verify_killed_takes_its_workers_with_it(tmp_path):
    process, workers = _verify_with_workers(_many(3000, 2000), tmp_path)
    process.kill()  # SIGKILL: no clean-up runs in the parent
    process.wait(timeout=30)
    # Left to themselves the workers would go on for seconds (the request takes ~7 s).
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and any(alive(pid) for pid in workers):
        time.sleep(0.05)
    assert not any(alive(pid) for pid in workers)

