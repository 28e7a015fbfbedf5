"""The answer check: typed answers, anchors, absent subjects — and its reasons."""

import pytest

from tether.guard.answercheck import (
    absent_subject,
    anchors,
    check_answer,
    property_terms,
    sentence_answers,
)
from tether.guard.answertype import answer_type, supplies


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When did the plant open?", "date"),
        ("How many workers were evacuated?", "figure"),
        ("Who was the leader when the Franks arrived?", "name"),  # first cue wins
        ("In what country is Normandy located?", "place"),
        ("Why is corvane stored cold?", None),
    ],
)
def test_answer_type(question, kind):
    assert answer_type(question) == kind


def test_a_figure_already_in_the_question_is_no_answer():
    q = "What changed in 2026?"
    assert not supplies("The limit was revised in 2026.", "date", q)
    assert supplies("The limit was revised in March 2026.", "date", q)


def test_anchors_are_names_and_figures_not_the_opening_word():
    assert [t.word for t in anchors("Who owns Norvale's 2024 policy?")] == ["Norvale's", "2024"]
    # A word the passages write only in lower case is a typo, not a name.
    assert anchors("Who did Emma Marry?", ["Emma would marry a king."])[0].word == "Emma"
    assert len(anchors("Who did Emma Marry?", ["Emma would marry a king."])) == 1


def test_sentence_must_supply_the_type_and_mention_the_anchors():
    q = "When did Herve fight the Turks?"
    assert sentence_answers(q, "In the 1060s, Hervé fought the Turks.") is None  # accents fold
    assert sentence_answers(q, "In the 1060s, Crispin fought the Turks.") == "does not mention 'Herve'"
    assert sentence_answers(q, "Hervé fought the Turks bravely.") == "gives no date"
    # The sentence before it may carry the name ("He ...").
    assert sentence_answers(q, "In the 1060s he fought the Turks.", "Hervé was a general.") is None


def test_absent_subject_needs_an_object_no_passage_has():
    passages = ["The OASB limit for toluene is 50 ppm."]
    assert absent_subject("What is the OASB limit for xylene?", passages) == "xylene"
    assert absent_subject("What is the OASB limit for the xylene?", passages) == "xylene"
    # A paraphrased verb is not a subject: questions reword verbs freely.
    assert absent_subject("Where is toluene located?", passages) is None
    assert absent_subject("What is the OASB limit for toluene?", passages) is None


def test_refusal_reasons_say_why():
    passages = ["The OASB limit for toluene is 50 ppm.", "Brisol was made in 1961."]
    assert check_answer("What is the OASB limit for xylene?",
                        [("The OASB limit for toluene is 50 ppm.", "")], passages=passages) == (
        "no passage states the OASB limit for xylene: none of the passages found mentions"
        " 'xylene', so what they state is about something else"
    )
    assert check_answer("When was brisol first sold?", [("Brisol is a pale oil.", "")]) == (
        "no passage answers “When was brisol first sold?”: the question asks for a date,"
        " and the sentences found give none"
    )
    assert check_answer("When was Corvane made?", [("Brisol was made in 1961.", "")]) == (
        "no passage answers “When was Corvane made?”: the sentences found never mention 'Corvane'"
    )
    assert check_answer("When was Brisol made?", [("Brisol was made in 1961.", "")]) is None
    assert check_answer("Anything?", []) is None  # nothing to check: other layers refuse


@pytest.mark.parametrize(
    ("question", "sentence", "context", "answers"),
    [
        ("What is the boiling point of lead?", "Boiling point: about 82.6 °C.", "Isopropanol", False),
        ("What is the boiling point of lead?", "Boiling point: about 1,749 °C.", "Lead", True),
        ("What is the 15-minute limit for ethanol?", "The 15-minute limit for toluene is 150 ppm.", "", False),
        ("What is the 15-minute limit for ethanol?", "The 15-minute limit for ethanol is 1,900 ppm.", "", True),
        # "in"/"on" only qualify the question: answers leave them implicit
        ("What was the peak reading in the final report?", "The peak reading was 38 ppm.", "", True),
    ],
)
def test_what_a_property_belongs_to_is_an_anchor(question, sentence, context, answers):
    why = sentence_answers(question, sentence, context)
    assert (why is None) == answers, why


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("What is the boiling point of lead?", ["boiling"]),
        ("What was the peak carbon monoxide reading during the incident?", ["peak", "carbon", "monoxide"]),
        ("What is the limit for ethanol?", []),  # a bare head: answers paraphrase it
        ("Within how many hours must a result be reported?", ["hours"]),
        ("How much does a container cost?", []),  # "does" counts nothing
        ("Who founded the plant?", []),
    ],
)
def test_property_terms_are_the_modifiers_of_what_is_asked(question, words):
    assert [t.word for t in property_terms(question)] == words


@pytest.mark.parametrize(
    ("question", "sentence", "section", "answers"),
    [
        # A sibling property of the same substance answers another question.
        ("What is the boiling point of lead?", "The melting point of lead is 327.5 °C.", "", False),
        ("What is the boiling point of lead?", "The boiling point of lead is 1,749 °C.", "", True),
        ("What was the peak carbon monoxide reading?", "The peak hydrogen sulfide reading was 38 ppm.", "", False),
        ("How many employees work at the site?", "It is one of the most common solvents.", "", False),
        ("How many employees work at the site?", "The site employs 140 employees.", "", True),
        # The passage the sentence is cut from may state the qualifier: its heading.
        ("What is the 8-hour exposure limit for acetone?", "The 8-hour limit for acetone is 1,000 ppm.",
         "## Exposure limits differ by body\n\n- The 8-hour limit for acetone is 1,000 ppm.", True),
        ("What is the 8-hour exposure limit for acetone?", "The 8-hour limit for acetone is 1,000 ppm.",
         "", False),
        # ...but not anywhere else in it: a solution that can boil is no boiling point.
        ("What is the boiling point of lye?", "The melting point of lye is about 318 °C.",
         "Lye releases heat in water.\n- A solution made too quickly can boil.", False),
    ],
)
def test_the_asked_property_must_be_the_one_stated(question, sentence, section, answers):
    why = sentence_answers(question, sentence, "Sheet", section=section)
    assert (why is None) == answers, why
    if not answers:
        assert why.startswith("does not mention"), why
    # check_answer takes the section as a third item, and pairs without one.
    reason = check_answer(question, [(sentence, "Sheet", section)])
    assert (reason is None) == answers, reason


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When did the plant open?", "date"),
        ("When may an operator silence an alarm?", None),
        ("When should gloves be replaced?", None),
        ("Since when has the limit applied?", "date"),
    ],
)
def test_when_with_a_modal_asks_for_a_condition_not_a_date(question, kind):
    assert answer_type(question) == kind
