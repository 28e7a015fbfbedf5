"""The English table (``text.english``): each word list is written once (ADR 0060).

A stage that needs number words, months, usage headings, prepositions or
determiners imports them (or a list derived from them) from ``text.english``; a
literal copy elsewhere in ``src/tether`` fails here, with its file and line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path


from tether.text import english

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "tether"
TABLE = PACKAGE / "text" / "english.py"

# Words of a list, and how many of them in one literal make it a copy of the list.
WORD_LISTS = {
    "number words": (frozenset(english.CARDINALS), 4),
    "months": (frozenset(english.MONTHS) | frozenset(english.MONTH_ABBREVIATIONS), 4),
    "usage headings": (english.USAGE_HEADINGS, 2),
}
# A name that says it holds one of the table's lists, bound to a literal of words.
LIST_NAME = re.compile(r"PREPOSITION|DETERMINER|NUMBER_WORD|MONTH|USAGE_(?:HEADING|SECTION)")


def _sources() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p != TABLE]


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr)
    }


def _words(node: ast.AST, docstrings: set[int]) -> set[str]:
    """The words a literal holds: a collection of strings, or a string (a regex, a
    ``.split()`` list) that is not a docstring."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value.lower() for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
        return {w.lower() for w in re.findall(r"[A-Za-z]+", node.value)}
    return set()


def test_no_module_copies_a_word_list_of_the_table():
    copies = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            words = _words(node, docstrings)
            for name, (listed, enough) in WORD_LISTS.items():
                if len(words & {w.lower() for w in listed}) >= enough:
                    copies.append(f"{path.relative_to(PACKAGE)}:{node.lineno} copies {name}")
    assert not copies, "\n".join(copies)


def test_no_module_defines_its_own_list_under_the_tables_names():
    defined = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name) and LIST_NAME.search(t.id)]
            literal = [n for n in ast.walk(node.value) if isinstance(n, (ast.Tuple, ast.List, ast.Set, ast.Constant))]
            words = set().union(*(_words(n, set()) for n in literal)) if literal else set()
            if names and len(words) >= 3:
                defined.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {names[0]}")
    assert not defined, "\n".join(defined)


def test_the_derived_lists_are_what_they_say():
    assert english.RELATION_WORDS - english.PREPOSITIONS == {"far", "away", "front", "top", "middle", "outdoors",
                                                             "indoors"}
    assert english.OBJECT_PREPOSITIONS - english.PREPOSITIONS == {"than"}
    assert english.THING_DETERMINERS < english.OBJECT_DETERMINERS < english.DETERMINERS
    assert english.NUMBER_WORDS >= set(english.CARDINALS) | set(english.SCALES)
    assert english.FIGURE_WORDS - english.NUMBER_WORDS == {"hundreds", "thousands", "millions", "dozens", "half",
                                                           "several"}
    assert set(english.MONTH_ABBREVIATIONS) == {m[:3] for m in english.MONTHS} | {"sept"}


def test_cardinals_are_in_value_order():
    # verify.figures reads "zero" to "nineteen" as their index, then the tens.
    assert english.cardinals("zero", "nineteen") == english.CARDINALS[:20]
    assert english.cardinals("twenty", "ninety") == english.CARDINALS[20:]
    assert english.cardinals("eight", "eleven") == ("eight", "nine", "ten", "eleven")
