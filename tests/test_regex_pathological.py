"""No catastrophic backtracking: every regular expression in the package, and every
function that runs them over untrusted text, on long adversarial inputs (runs of
digits, dots, commas, quotes, nested brackets, spaces, dashes...) under a time bound.

The bound is on this process's CPU time (``time.process_time``), not on the wall clock:
a busy machine delays the test but does not make it spend more CPU, while a quadratic
pattern at these sizes spends tens of seconds of CPU, far past every bound.

Two levels:
- each compiled pattern found in any ``tether`` module is run with ``finditer`` over
  every input (the worst way to use it: a match attempt at every position). A few
  patterns are only ever applied to short windows; they are listed in ``WINDOWED``
  with the bound that protects them, and the function-level tests cover those uses.
- each function that applies patterns to document, question, answer or citation text
  is run on 100,000-character inputs.

The default run uses the classic shapes; ``TETHER_TEST_REGEX_FULL=1`` runs every
shape with three framings each, on longer pattern-level inputs.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import pkgutil
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

import tether
from tether.guard import answercheck, answertype
from tether.ingest import segment
from tether.ops import cite
from tether.retrieve import search as retrieve
from tether.instructions import detect as injection
from tether.text import terms
from tether.config import Settings
from tether.generate.assemble import SentenceAssembler, parse_markers
from tether.generate.extractive import ExtractiveGenerator
from tether.ingest.extract import extract_bytes
from tether.ingest.extract.html import detect_html_hidden
from tether.verify import check
from tether.text import sentences as vtext
from tether.verify.figures import extract_figures

FULL = bool(os.environ.get("TETHER_TEST_REGEX_FULL"))
SETTINGS = Settings()

SHAPES = {
    "digits": "1234567890", "dots": ".", "commas": ",", "quotes": "\"'“”‘’",
    "brackets": "([{<", "nested": "[[((", "closers": ")]}>", "spaces": " ", "dashes": "-–—",
    "newlines": "\n", "dot-space": ". ", "digit-dot": "1.", "digit-comma": "1,",
    "digit-dash": "1-", "markers": "[1", "initials": "A. ", "ellipsis": "…", "bangs": "!?",
}
if FULL:
    SHAPES |= {
        "tabs": " \t", "nbsp": "\u00a0", "quote-dot": ".\"", "words": "a ", "hash": "#",
        "percent": "5%", "slash": "1/", "colon": "1:", "lt": "<a ", "mixed": "1.2,3-4 ",
        "year": "2024 ", "power": "3×10^", "number-words": "one hundred ", "div": "<div>",
        "comment": "<!--", "emphasis": "_*", "ignore": "ignore all previous ", "you": "you are ",
        "upper": "AB", "alnum": "a1", "ampersand": "&amp;", "unit": "5 ppm ",
    }


def _framings(core: str) -> list[str]:
    # A run ended by something the pattern does not want is what makes a backtracking
    # pattern fail slowly, once per position; the full run also tries other endings.
    return ["x" + core + "x"] + ([core, core + "!", "x" + core + " y"] if FULL else [])


def _long(shape: str, size: int) -> str:
    return (shape * (size // len(shape) + 1))[:size]


# -- every compiled pattern --------------------------------------------------------------


def _patterns() -> dict[str, re.Pattern[Any]]:
    found: dict[str, re.Pattern[Any]] = {}

    def walk(value: Any, where: str) -> None:
        if isinstance(value, re.Pattern):
            found.setdefault(where, value)
        elif isinstance(value, (list, tuple, set, frozenset)):
            for n, item in enumerate(value):
                walk(item, f"{where}[{n}]")
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{where}[{key!r}]")
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for field in dataclasses.fields(value):  # rule tables (injection) hold patterns
                walk(getattr(value, field.name), f"{where}.{field.name}")

    for info in pkgutil.walk_packages(tether.__path__, "tether."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            walk(value, f"{info.name}.{name}")
    unique: dict[tuple[Any, int], str] = {}
    for where, pattern in sorted(found.items()):
        unique.setdefault((pattern.pattern, pattern.flags), where)
    return {where: found[where] for where in unique.values()}


PATTERNS = _patterns()

# Patterns that are slow under finditer over a long run but are never used that way:
# each is applied only inside a short window, which bounds it.
WINDOWED = {
    "tether.verify.figures._WORD_END": "searched in the 12 characters before a figure",
    "tether.generate.assemble._TRAILING_MARKERS":
        "matched once after a stop, in a buffer of at most two sentence-sized pieces",
    "tether.mcp.stdio._ID_VALUE": "matched once, anchored after a top-level \"id\" key",
}


def test_the_scan_finds_the_package_patterns() -> None:
    assert len(PATTERNS) >= 100
    assert set(WINDOWED) <= set(PATTERNS)
    for where in ("tether.text.sentences._BOUNDARY", "tether.text.fold._QUOTE_MARK", "tether.ingest.extract.htmlpage._TAG",
                  "tether.instructions.rules._DIRECTIVE_BEFORE", "tether.generate.assemble._MARKER"):
        assert where in PATTERNS, where


@pytest.mark.parametrize("where", sorted(set(PATTERNS) - set(WINDOWED)))
def test_pattern_is_linear(where: str) -> None:
    pattern = PATTERNS[where]
    size = 100_000 if FULL else 20_000
    bound = 2.5 if FULL else 0.5  # a quadratic pattern takes several seconds at 20k
    for label, shape in SHAPES.items():
        for text in _framings(_long(shape, size)):
            subject: Any = text.encode("utf-8") if isinstance(pattern.pattern, bytes) else text
            started = time.process_time()
            for _ in pattern.finditer(subject):
                pass
            took = time.process_time() - started
            assert took < bound, f"{where} /{pattern.pattern!r}/ took {took:.2f} s on {label}"


# -- every function that runs them over untrusted text -----------------------------------


def _assemble(text: str) -> None:
    assembler = SentenceAssembler()
    assembler.feed(text)
    assembler.close()


def _stream(text: str) -> None:
    assembler = SentenceAssembler()
    for at in range(0, len(text), 7):
        assembler.feed(text[at : at + 7])
    assembler.close()


def _generate(text: str) -> None:
    from tether.records import Document, Hit, Passage

    doc = Document("doc_x", "s", "t", "l", "2026-01-01", "text/plain", ("public",), "original", None)
    passage = Passage("p_x", "doc_x", "sha256:x", 0, len(text), text, "original", None, None, ())
    list(ExtractiveGenerator().generate("What is the limit?", [Hit(passage, doc, 1.0, 0)]))


def _unretrieved(text: str) -> None:
    from tether.guard.answerable import unretrieved
    from tether.records import Document, Hit, Passage

    doc = Document("doc_x", "s", "t", "l", "2026-01-01", "text/plain", ("public",), "original", None)
    passage = Passage("p_x", "doc_x", "sha256:x", 0, len(text), text, "original", None, None, ())
    unretrieved(text + " What is the limit for xylene?", [Hit(passage, doc, 1.0, 0)])


PASSAGE = "Acetone boils at 56 °C. The limit is 500 ppm over 8 hours."
# (name, function, seconds allowed for 100,000 characters). Figure-dense text costs
# about 20 µs per figure, so the verifier gets more time; quadratic behaviour at this
# size would take minutes, not seconds.
FUNCTIONS: list[tuple[str, Callable[[str], object], float]] = [
    ("segment.sentence_spans", segment.sentence_spans, 2),
    ("segment.passage_spans", lambda t: segment.passage_spans(t, max_chars=600), 2),
    ("verify.split_sentences", vtext.sentence_ranges, 2),
    ("verify.extract_figures", extract_figures, 4),
    ("verify.check (long passage)", lambda t: check("Acetone boils at 56 °C.", t, settings=SETTINGS), 4),
    ("verify.check (long sentence)", lambda t: check(t, PASSAGE, settings=SETTINGS), 4),
    ("injection.detect", injection.detect, 2),
    ("injection.is_instruction_like", injection.is_instruction_like, 2),
    ("injection.detect_html_hidden", detect_html_hidden, 2),
    ("assemble (one chunk)", _assemble, 2),
    ("assemble (streamed)", _stream, 2),
    ("assemble.parse_markers", parse_markers, 2),
    ("cite.locate", lambda t: cite.locate(t, t[1000:3000], near=0), 2),
    ("cite.locate (absent)", lambda t: cite.locate(t, t[:2000] + "x", near=0), 2),
    ("retrieve.query_terms", retrieve.query_terms, 2),
    ("answertype", lambda t: [answertype.answer_type(t)] + [
        answertype.typed_tokens(t, kind) for kind in answertype._TOKEN], 2),
    ("answercheck.anchors", lambda t: answercheck.anchors(t, [t]), 2),
    ("terms.content_terms", terms.content_terms, 2),
    ("extractive generator", _generate, 4),
    ("answerable.unretrieved", _unretrieved, 2),
    ("extract text/markdown", lambda t: extract_bytes(t.encode(), media_type="text/markdown",
                                                      settings=SETTINGS), 2),
    ("extract html", lambda t: extract_bytes(f"<html><body><p>{t}</p></body></html>".encode(),
                                             media_type="text/html", settings=SETTINGS), 4),
]


@pytest.mark.parametrize("name, function, bound", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_function_on_long_hostile_text(name: str, function: Callable[[str], object],
                                       bound: float) -> None:
    from tether.errors import TetherError

    for label, shape in SHAPES.items():
        for text in _framings(_long(shape, 100_000)):
            started = time.process_time()
            try:
                function(text)
            except TetherError:
                pass  # a refusal is a defined outcome; a crash or a hang is not
            took = time.process_time() - started
            assert took < bound, f"{name} took {took:.2f} s on 100,000 characters of {label}"
