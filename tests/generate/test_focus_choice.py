"""The extractive generator on documentation: the unit the question names, never a
usage line, a list's items for "what are the …" (ADR 0022)."""

from __future__ import annotations

from tether.generate.extractive import ExtractiveGenerator
from tether.generate.lists import list_items, wants_list
from tether.records import Document, Hit, Passage

GREP_TOP = (
    "grep - print lines that match patterns\n\nSYNOPSIS\n"
    "       grep [OPTION...] PATTERNS [FILE...]\n"
    "       grep [OPTION...] -e PATTERNS ... [FILE...]\n"
)
GREP_V = (
    "-v, --invert-match\n"
    "              Invert the sense of matching, to select non-matching lines.\n\n"
    "       -w, --word-regexp\n"
    "              Select only those lines containing matches that form whole words.\n"
)
STREAM = (
    "new stream.Duplex(options)#\n"
    "- options <Object>\n"
    "  - allowHalfOpen <boolean> If set to false, the stream ends the writable side.\n"
    "    Default: false.\n"
    "new stream.Writable([options])#\n"
    "- options <Object>\n"
    "  - highWaterMark <number> Buffer level when stream.write() starts returning false.\n"
    "    Default: 16384 (16 KiB), or 16 for objectMode streams.\n"
)
RULES = (
    "First, let’s take a look at the ownership rules. Keep these rules in mind:\n"
    "- Each value in Rust has an owner.\n"
    "- There can only be one owner at a time.\n"
    "- When the owner goes out of scope, the value will be dropped.\n"
    "Now that we’re past basic syntax, we go on.\n"
)


def _hit(text: str, title: str, rank: int = 0, doc: str = "d") -> Hit:
    document = Document(doc, f"file:{doc}", title, "", "2026-01-01", "text/plain")
    return Hit(Passage(f"{doc}:{rank}", doc, "v", 0, len(text), text), document, 1.0, rank)


def _answer(question: str, *hits: Hit) -> list[str]:
    return [d.text for d in ExtractiveGenerator(max_sentences=3).generate(question, hits)]


def test_an_option_question_gets_its_units_description_not_the_synopsis():
    hits = (_hit(GREP_TOP, "grep - print lines", 0, "g"), _hit(GREP_V, "grep - print lines", 1, "g"))
    shown = _answer("What does the -v option of grep do?", *hits)
    assert shown[0] == "Invert the sense of matching, to select non-matching lines."
    assert not any("[OPTION" in s or "whole words" in s for s in shown)


def test_an_option_no_unit_names_gets_nothing():
    hits = (_hit(GREP_TOP, "grep - print lines", 0, "g"), _hit(GREP_V, "grep - print lines", 1, "g"))
    assert _answer("What does the -y option of grep do?", *hits) == []


def test_a_default_is_taken_from_the_named_identifiers_unit():
    shown = _answer("What is the default highWaterMark of a Node.js writable stream?",
                    _hit(STREAM, "Stream | Node.js v20 Documentation"))
    assert shown and "16384" in shown[0]
    assert "Default: false." not in shown  # allowHalfOpen's default, another option's


def test_what_are_the_rules_is_answered_with_the_list_items():
    shown = _answer("What are the ownership rules in Rust?",
                    _hit(RULES, "What is Ownership? - The Rust Programming Language"))
    assert shown == ["Each value in Rust has an owner.", "There can only be one owner at a time.",
                     "When the owner goes out of scope, the value will be dropped."]


def test_list_items_need_a_list_right_after_the_sentence():
    assert list_items(RULES, RULES.index("Keep")) != []
    assert list_items(RULES, RULES.index("syntax")) == []
    assert list_items("Intro:\n- only one\nProse.", 0) == []  # one item is no list
    assert wants_list("Which options does tar take?") and not wants_list("What does tar -z do?")
