"""The text shapes the reading models were trained on, shared by training and run time.

A model reads at run time exactly the shape it was trained on, so both build their
inputs here: ``train/build_data.py`` and the product call the same functions.
"""

from __future__ import annotations

from ..text.focus import column_heads

__all__ = ["answer_window", "sentence_path", "support_premise", "title_path"]

# The tokenizer reads "[SEP]" as its separator token: the target sentence comes first
# (a window longer than the model's limit loses context, never the sentence), then
# where it stands: its document's title or heading, the sentence before and after.
_SEPARATOR = " [SEP] "


def _flat(text: str) -> str:
    return " ".join(text.split())


def title_path(title: str, heading: tuple[str, ...] = ()) -> str:
    """What a sentence stands under: its document's title, then its passage's headings."""
    return " / ".join(p for p in (title, *heading) if p.strip())


def sentence_path(title: str, heading: tuple[str, ...], text: str, at: int) -> str:
    """What the sentence at ``at`` of a passage's ``text`` stands under, as the
    answerability model reads it at run time: the title path, and for a table's body
    row its column heads (ADR 0077). The extractive reader and the answer gate read
    the same."""
    return title_path(title, (*heading, column_heads(text, at)))


def answer_window(sentence: str, title: str, previous: str, following: str) -> str:
    """The answerability model's second text for one candidate sentence."""
    context = " ".join(p for p in (_flat(title).rstrip(".") + "." if title.strip() else "",
                                   _flat(previous), _flat(following)) if p)
    return _flat(sentence) + (_SEPARATOR + context if context else "")


def support_premise(sentences: list[str]) -> str:
    """The support model's premise: the passage sentences a claim is aligned to, in order
    (with the sentence before them, which "It …" or "This section …" leans on)."""
    return " ".join(_flat(s) for s in sentences if s.strip())
