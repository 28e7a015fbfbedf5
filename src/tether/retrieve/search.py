"""Retrieve stage: a question → the best passages the caller may read (BM25)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import InputError
from ..records import Hit
from ..store import Store
from ..text.terms import QUERY_STOPWORDS

__all__ = ["check_question", "query_terms", "retrieve"]

_WORD = re.compile(r"[^\W_]+(?:[.,][0-9]+)*", re.UNICODE)


def query_terms(question: str) -> list[str]:
    """Content terms of a question, in order, without duplicates."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(question.lower()):
        word = match.group(0)
        # Question and function words carry no evidence; keeping them in an OR-query
        # only rewards passages for being long. The list is the toolkit's, so the
        # probe and the answer check read a question's terms as retrieval does.
        if word in QUERY_STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        # FTS5's tokenizer splits "64.7" into 64 and 7; match it the same way.
        for part in re.split(r"[.,]", word):
            if part:
                seen.setdefault(part, None)
    return list(seen)


def check_question(question: str, *, max_chars: int) -> None:
    """Refuse an empty question or one over ``max_chars`` (``InputError``); a batch
    checks every question this way before answering any."""
    if not question.strip():
        raise InputError("the question is empty")
    # A command-line argument in another encoding arrives with lone surrogates
    # (Python's surrogateescape); nothing after this point could print or store it.
    if any("\ud800" <= c <= "\udfff" for c in question):
        raise InputError(
            "the question is not valid text (bytes that are not UTF-8, or an unpaired surrogate)",
            hint="pass the question as UTF-8",
        )
    if len(question) > max_chars:
        raise InputError(
            f"the question is {len(question)} characters long; the limit is {max_chars}",
            hint="shorten it or raise max_question_chars",
        )


def retrieve(
    store: Store,
    question: str,
    *,
    k: int,
    principals: Sequence[str] | None = None,
    max_chars: int = 2_000,
) -> list[Hit]:
    """Top ``k`` passages for ``question``; ``principals=None`` means no ACL filter."""
    check_question(question, max_chars=max_chars)
    terms = query_terms(question)
    return store.search(terms, limit=k, principals=principals) if terms else []
