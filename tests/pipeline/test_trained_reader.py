"""The trained reader's path through the pipeline (ADR 0044), on the shipped models.

What is tested is the wiring and the gate logic, not the models' quality (that is in
bench/readers_squad.py, bench/readers_support.py and the realdocs benches): every shown
sentence is an exact quote with a citation, the answer gate refuses below its
threshold with the model's score in the reason and answers above it, the threshold
comes from settings, then the store, then the default.
"""

from pathlib import Path

import pytest

from tether import Tether
from tether.config import load_settings
from tether.guard.answerable import DEFAULT_THRESHOLD, answer_threshold, meta_key
from tether.judges.trained import TrainedSupportJudge

DOCS = {
    "kiln.md": "# Kiln K-40 manual\n\nThe K-40 kiln reaches a maximum temperature of 1,300 °C.\n"
               "Its firing chamber holds 40 litres.\n\nThe door must stay shut while the kiln is "
               "above 200 °C. However, the vent may be opened at any temperature.\n",
    "glaze.md": "# Glazes\n\nA celadon glaze turns green in a reduction firing.\n"
                "Glazes are applied to bisque-fired pieces.\n",
}


@pytest.fixture
def store(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    db = tmp_path / "t.db"
    with Tether(db, settings=load_settings(reader="trained")) as t:
        t.ingest(folder, license="CC0")
    return db


def _ask(db: Path, question: str, **settings: object):
    with Tether(db, settings=load_settings(reader="trained", **settings)) as t:
        return t.ask(question, record=False)


def test_shown_sentences_are_exact_quotes_of_their_citations(store: Path):
    answer = _ask(store, "What maximum temperature does the K-40 kiln reach?", answer_threshold=0.001)
    assert not answer.refused and answer.sentences
    # The answer gate read every verified sentence, and its scores are in the trace.
    assert len(answer.trace["answerability"]) == len(answer.sentences)
    for sentence in answer.sentences:
        citation = sentence.citations[0]
        assert citation.quote == sentence.text
        assert sentence.text in DOCS["kiln.md"] + DOCS["glaze.md"]


def test_the_answer_gate_refuses_below_its_threshold_and_names_the_score(store: Path):
    answer = _ask(store, "What maximum temperature does the K-40 kiln reach?", answer_threshold=0.9999)
    assert answer.refused and answer.refusal_layer == "guard"
    assert "answerability model's best score" in answer.refusal_reason
    assert "below 1.00" in answer.refusal_reason or "below 0.9999" in answer.refusal_reason


def test_an_answer_about_another_named_thing_is_refused_with_the_name(store: Path):
    # The model may read the kiln's temperature as an answer about any kiln; what the
    # question names must be bound to the sentence, its headings or its title (ADR 0070).
    named = _ask(store, "What maximum temperature does the kiln of Raku Studio reach?", answer_threshold=0.001)
    assert named.refused and named.refusal_layer == "guard"
    assert "names 'Raku Studio'" in named.refusal_reason
    # Bound by the document's title ("Kiln K-40 manual"), the same sentence answers.
    bound = _ask(store, "What maximum temperature does the kiln of the K-40 manual reach?",
                 answer_threshold=0.001)
    assert not bound.refused


def test_a_subject_nothing_retrieved_mentions_is_refused_with_its_name(store: Path):
    # Lower case, "porcelain" is no name the sentences must bind (ADR 0070); but no
    # retrieved passage mentions it at all, so what they state is about something else.
    absent = _ask(store, "What is the maximum firing temperature for porcelain?", answer_threshold=0.001)
    assert absent.refused and absent.refusal_layer == "guard"
    assert "'porcelain'" in absent.refusal_reason
    # A subject a retrieved passage mentions in any form binds ("kilns": "kiln"), and an
    # idiom governs no subject ("box" is in no passage either).
    assert not _ask(store, "What is the maximum firing temperature for kilns?",
                    answer_threshold=0.001).refused
    assert not _ask(store, "Out of the box, what maximum temperature does the K-40 kiln reach?",
                    answer_threshold=0.001).refused


def test_threshold_from_settings_then_store_then_default(store: Path):
    with Tether(store, settings=load_settings(reader="trained")) as t:
        assert answer_threshold(t.settings, t.store.get_meta) == DEFAULT_THRESHOLD
        t.store.set_meta(meta_key(), "0.42")
        assert answer_threshold(t.settings, t.store.get_meta) == 0.42
        pinned = load_settings(reader="trained", answer_threshold=0.7)
        assert answer_threshold(pinned, t.store.get_meta) == 0.7


def test_the_lexical_reader_does_not_read_with_the_models(store: Path, monkeypatch):
    import tether.readers as readers

    def refuse(*_a, **_k):
        raise AssertionError("a model was loaded under reader = 'lexical'")

    monkeypatch.setattr(readers, "answerability", refuse)
    monkeypatch.setattr(readers, "support", refuse)
    with Tether(store, settings=load_settings(reader="lexical")) as t:
        assert t.judge() is None
        t.ask("What maximum temperature does the K-40 kiln reach?", record=False)


def test_the_default_judge_is_the_shipped_support_model(store: Path):
    with Tether(store, settings=load_settings(reader="trained")) as t:
        judge = t.judge()
    assert isinstance(judge, TrainedSupportJudge)
    verdict = judge.judge("The door must stay shut while the kiln is hot.", "The door is shut.")
    assert verdict.checker.startswith("support-model:")
    assert set(verdict.probabilities) == {"entailment", "neutral", "contradiction"}
    assert abs(sum(verdict.probabilities.values()) - 1) < 1e-4


def test_a_qualifying_next_sentence_comes_with_the_one_it_qualifies():
    from tether.generate.reading import qualifies

    assert qualifies("However, the vent may be opened at any temperature.")
    assert qualifies("This is not recommended on shared hosts.")
    assert qualifies("If left unspecified, the delay defaults to 2000 ms.")
    assert not qualifies("The vent is on the left.")
    assert not qualifies("Iffy wiring is replaced.")


def _man_page_store(tmp_path: Path, name: str, text: str) -> Path:
    """A store of one man page rendered as text, ingested with the trained reader."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / name).write_text(text, encoding="utf-8")
    db = tmp_path / "t.db"
    with Tether(db, settings=load_settings(reader="trained")) as t:
        t.ingest(folder, license="CC0")
    return db


def test_a_description_is_shown_after_the_term_it_describes(tmp_path: Path):
    db = _man_page_store(tmp_path, "kilnctl.txt", (
        "KILNCTL(1)\n\nOPTIONS\n       -w, --warm-up\n              Holds the kiln at 100 degrees for"
        " two hours before firing.\n\n       -q, --quiet\n              Prints nothing.\n"))
    answer = _ask(db, "How long does kilnctl hold the kiln at 100 degrees before firing?",
                  answer_threshold=0.001)
    texts = [s.text for s in answer.sentences]
    assert not answer.refused
    described = next(i for i, s in enumerate(texts) if s.startswith("Holds the kiln"))
    assert described > 0 and texts[described - 1] == "-w, --warm-up"
    assert all(s.citations[0].quote == s.text for s in answer.sentences)


def test_a_description_is_shown_before_the_default_its_unit_states(tmp_path: Path):
    db = _man_page_store(tmp_path, "kiln.conf.txt", (
        "KILN.CONF(5)\n\nSETTINGS\n       vent_time SECONDS\n              How long the vent stays open"
        " after a firing. The vent closes by itself afterwards. The default is 45 minutes.\n\n"
        "       glaze_mode MODE\n              Which glaze programme runs. The default is matte.\n"))
    answer = _ask(db, "For how long does the kiln leave its vent open after firing if I never change it?",
                  answer_threshold=0.001)
    texts = [s.text for s in answer.sentences]
    described = texts.index("How long the vent stays open after a firing.")
    assert "The default is 45 minutes." in texts[described + 1:]
    assert "The default is matte." not in texts  # another unit's default is not this one's
    assert all(s.citations[0].quote == s.text for s in answer.sentences)


def test_a_table_row_binds_the_option_its_first_cell_names(tmp_path: Path):
    # docutils sets a long option's description in the row under its name, with an
    # empty first cell: the row above frames it (ADR 0073).
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "kilnctl.md").write_text(
        "# kilnctl\n\n## Options\n\n| Option | Description |\n|---|---|\n"
        "| --vent-time secs |  |\n|  | How long the vent stays open after a firing, in minutes."
        " The default is 45. |\n| --glaze name | Which glaze programme runs. |\n", encoding="utf-8")
    db = tmp_path / "t.db"
    with Tether(db, settings=load_settings(reader="trained")) as t:
        t.ingest(folder, license="CC0")
    answer = _ask(db, "How long does the vent stay open if I never set --vent-time?",
                  answer_threshold=0.001)
    assert not answer.refused, answer.refusal_reason
    assert any("How long the vent stays open" in s.text for s in answer.sentences)
    # The next option's row frames its own sentences, not this option's.
    other = _ask(db, "Which glaze programme runs if I never set --vent-time?", answer_threshold=0.001)
    assert not any("Which glaze programme" in s.text for s in other.sentences)
