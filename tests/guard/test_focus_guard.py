"""The answer check refuses what is no answer whatever it states (guard/focus.py, ADR 0022)."""

from __future__ import annotations

import pytest

from tether.guard.answercheck import check_answer, sentence_answers
from tether.guard.focus import not_an_answer


@pytest.mark.parametrize(
    ("question", "sentence", "framing", "title", "why"),
    [
        ("What does grep -v do?", "grep [OPTION...] PATTERNS [FILE...]", (), "grep",
         "is a usage line, not a statement"),
        ("What does grep -v do?", "grep -E PATTERNS", ("SYNOPSIS",), "grep",
         "is a usage line, not a statement"),
        ("What does grep -v do?", "GREP(1) User Commands GREP(1)", (), "grep",
         "is a fragment, not a sentence"),
        ("What is the default highWaterMark?", "Default: false.", ("allowHalfOpen <boolean>",),
         "Stream", "is not about 'highWaterMark'"),
        ("What is the default compression level of bzip2?", "The default compression level is -6.",
         ("-# (-0, -1, -2, -3, -4, -5, -6, -7, -8, -9)",), "zip - package and compress",
         "is not about 'bzip2'"),
        ("What does the -v option of grep do?", "Invert the sense of matching.",
         ("-v, --invert-match",), "grep - print lines that match patterns", None),
    ],
)
def test_not_an_answer(question, sentence, framing, title, why):
    assert not_an_answer(question, sentence, framing, title) == why


def test_the_check_reads_the_frame_in_the_passage():
    section = ("server.keepAliveTimeout#\n- <number> Timeout in milliseconds. Default: 5000.\n"
               "server.timeout#\n- <number> Default: 0 (no timeout)\n")
    question = "What is the default keepAliveTimeout of an HTTP server?"
    assert sentence_answers(question, "Default: 5000.", "HTTP\n", section=section) is None
    assert sentence_answers(question, "<number> Default: 0 (no timeout)", "HTTP\n",
                            section=section) == "is not about 'keepAliveTimeout'"


def test_a_refusal_says_the_sentences_found_are_about_something_else():
    why = check_answer("What does the -x option of mkdir do?",
                       [("no error if existing, make parent directories as needed.", "mkdir\n",
                         ("-p, --parents\n       no error if existing, make parent directories "
                          "as needed."))])
    assert why == ("no passage answers “What does the -x option of mkdir do?”: the sentences found"
                   " are not about '-x'")


def test_a_heading_path_binds_like_a_frame():
    question = "What is the default maxBuffer of child_process.exec?"
    sentence, section = "Default: 1024 * 1024.", "- maxBuffer <number> Largest amount.\nDefault: 1024 * 1024."
    assert sentence_answers(question, sentence, "Node.js\n", section=section) == (
        "is not about 'child_process.exec'")
    path = ("Child process", "child_process.exec(command[, options][, callback])")
    assert sentence_answers(question, sentence, "Node.js\n", section=section, path=path) is None
