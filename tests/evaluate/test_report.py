"""The HTML report: one self-contained file a person can read."""

import copy
import re

from tether.evaluate import GoldenItem, run_eval
from tether.evaluate.report import render_html
from tether.evaluate.runner import EvalResult
from tether.evaluate.svg import nice_ticks


def _result(tether):
    items = [
        GoldenItem("boil", "At what temperature does methanol boil?", True, ("64.7",)),
        GoldenItem("x<script>", "What is <b>the</b> flash point of methanol?", False),
        GoldenItem("mona", "Who painted the Mona Lisa?", False),
    ]
    return run_eval(tether, items, name="unit")


def test_the_report_is_self_contained_and_escapes_what_it_shows(tether):
    html = render_html(_result(tether), title="Unit <eval>")
    assert html.startswith("<!DOCTYPE html>") and "<style>" in html
    # nothing is fetched: no scripts, external styles, images, frames, fonts or imports
    for pattern in (r"<script", r"<link", r"<img", r"<iframe", r"\bsrc=", r"url\(", r"@import"):
        assert not re.search(pattern, html, re.I), pattern
    assert "Unit &lt;eval&gt;" in html and "x&lt;script&gt;" in html
    assert "What is &lt;b&gt;the&lt;/b&gt; flash point" in html


def test_the_report_shows_figures_plots_and_each_question(tether):
    result = _result(tether)
    html = render_html(result)
    assert html.count("<svg") >= 4  # scores, question outcomes, draft outcomes, latency
    assert "Invariants hold" in html
    assert "Retrieval probe score by answerability" in html  # the probe ran: its score is plotted
    for row in result.questions:
        assert f'id="{row["id"].replace("<", "&lt;").replace(">", "&gt;")}"' in html
    assert "Boiling point" in html or "64.7" in html
    assert "No answer [probe]" in html  # the Mona Lisa refusal, with its layer
    assert "nothing to measure (n = 0)" in html  # retrieval hit rate: no question names a document


def test_probe_scores_are_plotted_with_the_threshold_when_answers_carry_a_probe(tether):
    result = _result(tether)
    rows = copy.deepcopy(result.questions)
    for i, row in enumerate(rows):
        row["probe"] = {"signal": "ok" if row["answerable"] else "weak", "score": 0.2 + 0.3 * i,
                        "threshold": 0.45, "scorer": "bm25-top"}
    html = render_html(EvalResult(result.summary, rows))
    assert "Retrieval probe score by answerability" in html and "bm25-top" in html
    assert "threshold 0.45" in html and 'stroke-dasharray="6 4"' in html


def test_a_broken_invariant_is_the_first_thing_the_report_says(tether):
    result = _result(tether)
    summary = copy.deepcopy(result.summary)
    summary["groundedness"] = {"value": 0.5, "count": 1, "n": 2}
    html = render_html(EvalResult(summary, result.questions))
    assert html.index("Invariant broken") < html.index("<h2>Summary</h2>")
    assert "1 rendered sentence(s) failed the re-check" in html


def test_nice_ticks_cover_the_range_with_round_steps():
    assert nice_ticks(0, 30) == [0, 10, 20, 30]
    assert nice_ticks(4.4, 28.2) == [0, 10, 20, 30]
    ticks = nice_ticks(0.12, 0.87)
    assert ticks[0] <= 0.12 and ticks[-1] >= 0.87 and len(ticks) <= 7
    assert all(t == int(t) for t in nice_ticks(0, 7, 5, integer=True))
