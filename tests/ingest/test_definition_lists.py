"""A definition list's term stays with its description (ADR 0043): the term is a line
of the stored text right before the description, and ends the passage's heading path.
HTML source line breaks outside ``<pre>`` never cut a sentence. Deep lists stay bounded."""

from __future__ import annotations

import pytest

from tether.config import Settings
from tether.errors import LimitExceeded
from tether.ingest.extract.html import HTML_EXTRACTOR
from tether.ingest.segment import passage_spans
from tether.text.sentences import split_sentences

PAGE = """<html><head><title>Pump settings</title></head><body><main>
<h1>Pump settings</h1>
<p>Each setting of the pump controller is listed below with the value it takes when
the settings file leaves it out.</p>
<dl>
<dt><b><a name="flow_cap">flow_cap</a> (default: 340)</b></dt>
<dd><p>The largest flow in litres per minute that the controller lets the pump
reach before it throttles the motor.</p><p>Raise it only after the seals are
replaced.</p></dd>
<dt><b><a name="purge_delay">purge_delay</a> (default: 45s)</b></dt>
<dd><p>How long the controller waits after a stop before it opens the purge
valve.</p></dd>
</dl>
<pre>
flow_cap = 300
purge_delay = 60s
</pre>
</main></body></html>"""


def _extract(page: str, settings: Settings | None = None) -> str:
    return HTML_EXTRACTOR.extract(page.encode(), settings=settings or Settings(), name="p.html",
                                  charset=None).text


def test_a_term_is_a_line_right_before_its_description() -> None:
    lines = _extract(PAGE).split("\n")
    at = lines.index("## flow_cap (default: 340)")
    assert lines[at + 1].startswith("The largest flow in litres per minute")
    at = lines.index("## purge_delay (default: 45s)")
    assert lines[at + 1].startswith("How long the controller waits")


def test_a_term_and_its_description_are_one_passage_under_the_term() -> None:
    text = _extract(PAGE)
    passages = {c.heading: text[c.start:c.end] for c in passage_spans(text, max_chars=600)}
    flow = passages[("Pump settings", "flow_cap (default: 340)")]
    assert flow.startswith("## flow_cap (default: 340)\nThe largest flow")
    assert "seals" in flow and "purge" not in flow
    # What follows the list's last description stands under its term: the text marks
    # no end of a list.
    assert passages[("Pump settings", "purge_delay (default: 45s)")].startswith(
        "## purge_delay (default: 45s)\nHow long the controller waits")


def test_source_line_breaks_outside_pre_do_not_cut_sentences() -> None:
    text = _extract(PAGE)
    assert ("The largest flow in litres per minute that the controller lets the pump reach "
            "before it throttles the motor.") in split_sentences(text)
    assert "flow_cap = 300\npurge_delay = 60s" in text  # <pre> keeps its lines


def _nested(depth: int) -> str:
    return ("<html><body>" + "<dl><dt>term</dt><dd>text " * depth + "deepest."
            + "</dd></dl>" * depth + "</body></html>")


def test_definition_lists_nested_a_thousand_deep_are_refused_by_the_depth_limit() -> None:
    with pytest.raises(LimitExceeded):
        _extract(_nested(1_000))


def test_deep_definition_lists_within_the_limit_are_read() -> None:
    text = _extract(_nested(400), Settings(max_html_depth=1_000))
    assert "deepest." in text and text.count("term") == 400


def test_a_long_single_line_paragraph_is_read_whole() -> None:
    words = "flow " * 150_000  # 750 KB: under the streaming threshold, one line
    text = _extract(f"<html><body><dl><dt>cap</dt><dd><p>{words}end.</p></dd></dl></body></html>")
    assert "flow flow" in text and text.rstrip().endswith("end.")


def test_a_control_character_in_a_term_or_paragraph_is_read_without_error() -> None:
    text = _extract("<html><body><dl><dt>cap\x01 x</dt><dd><p>a\x01\n b flows.</p></dd></dl>"
                    "<p>The pump\n   stops.</p></body></html>")
    assert "The pump stops." in text
