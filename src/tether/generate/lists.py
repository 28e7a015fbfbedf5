"""Lists that answer: "What are the ownership rules?" over the list that states them.

A question that asks for several things ("what are the …", "which options …") is
answered by the items of the list its best sentence announces ("Keep these rules
in mind …:"), each item its own draft (and so its own citation), not by the
announcing sentence. Items are exact slices of the passage, marker left out.

    >>> text = "Keep these rules in mind:\\n- Each value has an owner.\\n- One owner at a time.\\nNext."
    >>> list_items(text, 0)
    ['Each value has an owner.', 'One owner at a time.']
    >>> wants_list("What are the ownership rules in Rust?"), wants_list("What is Memcheck?")
    (True, False)
"""

from __future__ import annotations

import re

__all__ = ["list_items", "wants_list"]

_PLURAL = re.compile(
    r"^\s*(?:what|which)\s+(?:are|were)\b|^\s*which\s+\w+s\b|^\s*(?:list|name)\s+(?:the|all)\b",
    re.IGNORECASE,
)
# Matched at a line start only; the leading blanks are taken where no blank precedes them
# (tried at every blank of a long run, they made a scan quadratic).
_ITEM = re.compile(r"(?<![ \t])([ \t]*)(?:[-*+•]|\d{1,3}[.)])[ \t]+(?=\S)")
_MAX_ITEMS = 10
_MAX_LEAD = 240  # an announcing sentence between the chosen one and the list


def wants_list(question: str) -> bool:
    """Whether ``question`` asks for several things."""
    return bool(_PLURAL.search(question))


def list_items(text: str, after: int) -> list[str]:
    """The items of the list that starts right after offset ``after`` of ``text`` (or
    after one more sentence ending in a colon, the one that announces it)."""
    at = _list_start(text, after)
    if at is None:
        return []
    items: list[str] = []
    indent: str | None = None
    while at < len(text) and len(items) < _MAX_ITEMS:
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        marker = _ITEM.match(text, at, end)
        if marker is None or (indent is not None and marker.group(1) != indent):
            break
        indent = marker.group(1)
        item = text[marker.end() : end].rstrip()
        if item:
            items.append(item)
        at = end + 1
    return items if len(items) >= 2 else []


def _list_start(text: str, after: int) -> int | None:
    """Offset of the first item's line, when the list follows ``after`` at once or
    after one sentence that ends in a colon."""
    line = text.find("\n", after)
    if line < 0:
        return None
    between = text[after:line].strip()
    if between and not (between.endswith(":") and len(between) <= _MAX_LEAD):
        return None
    start = line + 1
    if _ITEM.match(text, start):
        return start
    # One announcing line ("Keep these rules in mind as we work through them:").
    nxt = text.find("\n", start)
    lead = text[start : nxt if nxt >= 0 else len(text)].strip()
    if nxt >= 0 and lead.endswith(":") and len(lead) <= _MAX_LEAD and _ITEM.match(text, nxt + 1):
        return nxt + 1
    return None
