"""The framework-free core of the integrations: an answer and sources in, kept
sentences citing their source and dropped ones with verdicts out; and what importing an
adapter without its framework says."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tether.config import Settings
from tether.errors import ConfigError, InputError
from tether.integrations import Guard, GuardedAnswer, Source
from tether.integrations.guarded import source_ids
from tether.judges.trained import TrainedSupportJudge

from .conftest import ANSWER, CONTRADICTED, EXPECTED, PASSAGES, UNSUPPORTED, outcomes


def sources() -> list[Source]:
    return [Source(key, text, {"key": key}) for key, text in PASSAGES.items()]


def test_supported_sentences_are_kept_citing_their_source_and_the_rest_dropped_with_verdicts():
    guarded = Guard().check(ANSWER, sources())
    assert outcomes(guarded).items() >= EXPECTED.items()
    assert outcomes(guarded)[UNSUPPORTED][0] == "unsupported"
    assert [d.text for d in guarded.dropped] == [CONTRADICTED, UNSUPPORTED]
    for sentence in guarded.sentences:
        start, end = sentence.verdict.span
        assert sentence.quote == PASSAGES[sentence.source_id][start:end]
        assert sentence.source == {"key": sentence.source_id}
    assert guarded.text == " ".join(s.text for s in guarded.sentences)
    assert guarded.cited() == [{"key": "water"}, {"key": "acetone"}]
    assert json.loads(json.dumps(guarded.to_json()))["dropped"][0]["verdict"]["outcome"] == "contradicted"


def test_an_empty_answer_keeps_and_drops_nothing():
    assert Guard().check("", sources()) == GuardedAnswer((), ())
    assert Guard().check("  \n ", sources()).text == ""


def test_without_sources_every_sentence_is_dropped_unsupported():
    guarded = Guard().check(ANSWER, [])
    assert guarded.sentences == ()
    assert {(d.verdict.outcome, d.verdict.passage_id) for d in guarded.dropped} == {("unsupported", None)}
    assert len(guarded.dropped) == 4


@pytest.mark.parametrize(
    ("ids", "keys"),
    [
        (["a", "b"], ["a", "b"]),
        ([None, None, "c"], ["#0", "#1", "c"]),
        (["a", "a", ""], ["a", "a#1", "#2"]),
        (["#1", None], ["#1", "#1#1"]),  # an own id that looks like a made one is still one
    ],
)
def test_every_source_gets_one_distinct_id(ids, keys):
    assert source_ids(ids) == keys
    assert len(set(source_ids(ids))) == len(ids)


def test_two_sources_with_one_id_are_cited_apart():
    same = [Source("doc", "Cheese is made from milk.", 0), Source("doc", PASSAGES["water"], 1)]
    guarded = Guard().check(next(iter(EXPECTED)), same)
    assert [(s.source_id, s.source) for s in guarded.sentences] == [("doc#1", 1)]


@pytest.mark.parametrize(
    ("answer", "texts", "message"),
    [
        (b"Water boils.", [], "the answer must be text (str), not bytes"),
        (None, [], "the answer must be text (str), not NoneType"),
        ("Water boils.", [b"\xff\xfe"], "source 0's text must be text (str), not bytes"),
    ],
)
def test_what_is_not_text_is_refused_in_one_line(answer, texts, message):
    with pytest.raises(InputError) as caught:
        Guard().check(answer, [Source("s", text, None) for text in texts])
    assert str(caught.value) == message


def test_a_wrong_gate_is_refused_when_the_guard_is_made():
    with pytest.raises(ConfigError, match="unknown gate 'jduge'"):
        Guard(modes={"jduge": "off"})
    assert Guard(modes={"judge": "off"}).modes == {"judge": "off"}


def test_the_settings_judge_reads_the_verdicts_by_default():
    guard = Guard(settings=Settings(reader="trained"))
    assert isinstance(guard.judge, TrainedSupportJudge)
    guarded = guard.check(ANSWER, sources())
    assert dict(outcomes(guarded))[CONTRADICTED][0] == "contradicted"
    assert {s.source_id for s in guarded.sentences} <= {"water", "acetone"}
    assert Guard(judge=None).judge is None


ADAPTERS = [  # adapter module, the import it needs, the extra that installs it
    ("tether.integrations.llamaindex", "llama_index", "llamaindex"),
    ("tether.integrations.langchain", "langchain_core", "langchain"),
    ("tether.integrations.haystack", "haystack", "haystack"),
]
PROBE = """
import sys
sys.modules[{blocked!r}] = None  # as if the framework were not installed
import tether.integrations
try:
    import {adapter}
except ImportError as exc:
    print(type(exc).__name__, exc)
    sys.exit(3)
"""


@pytest.mark.parametrize(("adapter", "blocked", "extra"), ADAPTERS)
def test_an_adapter_without_its_framework_raises_an_import_error_naming_the_extra(adapter, blocked, extra):
    probe = PROBE.format(blocked=blocked, adapter=adapter)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 3, done.stderr
    assert done.stdout.strip() == (
        f"MissingFramework {adapter} (the {dict(LABELS)[extra]} guard) needs the optional "
        f"dependencies of tether[{extra}] (pip install 'tether[{extra}]')"
    )
    assert "Traceback" not in done.stderr


LABELS = [("llamaindex", "LlamaIndex"), ("langchain", "LangChain"), ("haystack", "Haystack")]
