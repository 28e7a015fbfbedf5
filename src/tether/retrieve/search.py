"""Retrieve stage: a question → the best passages the caller may read (BM25)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import InputError
from ..records import Hit
from ..store import Store

__all__ = ["STOPWORDS", "check_question", "query_terms", "retrieve"]

# Question words and function words carry no evidence; keeping them in an OR-query
# only rewards passages for being long.
STOPWORDS = frozenset(
    """
    a an and are as at be been being but by can could did do does doing for from had has
    have having he her hers him his how i if in into is it its itself me more most my no
    nor not of off on once only or other our ours out over own same she should so some
    such than that the their theirs them then there these they this those through to too
    under until up very was we were what when where which while who whom why will with
    would you your yours about above after again against all am any because before below
    between both during each few further here just s t don now tell me give list name
    according document documents say says said please much many
    """.split()
)
_WORD = re.compile(r"[^\W_]+(?:[.,][0-9]+)*", re.UNICODE)


def query_terms(question: str) -> list[str]:
    """Content terms of a question, in order, without duplicates."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(question.lower()):
        word = match.group(0)
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
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
