"""JSON from outside, decoded strictly: the one decoder for CLI stdin and HTTP bodies.

``json.loads`` accepts what no later step can handle: an unpaired surrogate escape
(``"\\ud800"``) decodes to a ``str`` that cannot be encoded again, so it fails at the
first write (a half-printed document, an HTTP 500); nesting 200,000 deep exhausts the
recursion limit; a 100,000-digit number runs into Python's integer conversion limit
(and costs quadratic time below it); a key given twice in one object keeps only its
last value, silently. Each of these is bad input, refused here with an
``InputError`` that says what was wrong, before any work is done.

    >>> loads_strict('{"a": [1, 2.5, "x"]}', where="stdin")
    {'a': [1, 2.5, 'x']}
    >>> loads_strict('"\\\\ud800"', where="stdin")
    Traceback (most recent call last):
    ...
    tether.errors.InputError: stdin: not valid JSON (an unpaired surrogate \\ud800 in a string)
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import InputError

__all__ = ["decode_utf8", "loads_strict"]

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def decode_utf8(data: bytes, *, where: str) -> str:
    """``data`` as UTF-8 text; anything else is bad input, never a crash."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{where}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    deepest = level = 0
    for char in brackets:
        if char in "[{":
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


def _surrogate_in(value: Any) -> str | None:
    """The first unpaired surrogate in any string (key or value) of ``value``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return found.group()
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def loads_strict(text: str | bytes, *, where: str, max_depth: int = 64,
                 max_number_chars: int = 100) -> Any:
    """``text`` decoded as JSON, refusing invalid UTF-8, unpaired surrogates, nesting
    deeper than ``max_depth`` and numbers longer than ``max_number_chars`` characters."""
    if isinstance(text, bytes):
        text = decode_utf8(text, where=where)
    elif _SURROGATE.search(text):  # bytes that were not UTF-8, read with surrogateescape
        raise InputError(f"{where}: not valid UTF-8")
    deepest = _depth(text)
    if deepest > max_depth:
        raise InputError(
            f"{where}: JSON nested {deepest} deep, deeper than max_json_depth ({max_depth})",
            hint="raise max_json_depth in tether.toml or TETHER_MAX_JSON_DEPTH if such "
            "input is genuine",
        )

    def number(kind: type) -> Any:
        def parse(literal: str) -> Any:
            if len(literal) > max_number_chars:
                raise InputError(
                    f"{where}: a JSON number of {len(literal)} characters, longer than "
                    f"max_json_number_chars ({max_number_chars})",
                    hint="raise max_json_number_chars in tether.toml or "
                    "TETHER_MAX_JSON_NUMBER_CHARS if such input is genuine",
                )
            return kind(literal)

        return parse

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found = dict(pairs)
        if len(found) != len(pairs):  # json.loads keeps the last silently: ambiguous input
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise InputError(
                        f"{where}: the key {json.dumps(key)} appears twice in one JSON object")
                seen.add(key)
        return found

    try:
        value = json.loads(text, parse_int=number(int), parse_float=number(float),
                           object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from exc
    except RecursionError as exc:  # only below a max_depth set near the recursion limit
        raise InputError(f"{where}: JSON nested too deep to decode") from exc
    surrogate = _surrogate_in(value)
    if surrogate is not None:
        raise InputError(
            f"{where}: not valid JSON (an unpaired surrogate \\u{ord(surrogate):04x} in a string)"
        )
    return value
