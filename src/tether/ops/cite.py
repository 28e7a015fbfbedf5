"""Cite stage: resolve a stored citation against today's store.

A citation is a document identity, a version, a character range and the quote with
its hash; the passage id it carries is only a hint. Resolving it never depends on
how the text is segmented today, so re-segmenting the corpus cannot break it:

- ``exact``: the cited version is still current and holds the quote at the range.
- ``relocated``: the current version holds the quote at the returned range (the
  document was edited, or the cited range was wrong). The quote is found verbatim
  first; failing that, ignoring only differences of whitespace and quote style, and
  heading marks extraction added at a line start (``## ``), and then Markdown's inline
  markup, which rendering Markdown took out of the text (``**``, backticks, link
  syntax: ADR 0046). Never a fuzzy match, which could point at different words.
- ``changed``: the document exists but no longer contains the quote; the result
  points at the document, with a note that the passage changed.
- ``missing``: no document with that id that the caller may read (a document the
  caller may not read looks exactly like one that does not exist). A document
  removed with ``tether documents rm`` (or ``DELETE /v1/documents/…``) says when, by
  whom and why, to a caller who could read it (``ops.documents``).

A citation that contradicts itself (a quote that does not match its hash, a range
whose length is not the quote's, missing fields) is broken input: ``InputError``.

>>> from tether import Tether                                   # doctest: +SKIP
>>> with Tether("store.db") as t:                               # doctest: +SKIP
...     cited = t.ask("What is the flash point of acetone?").sentences[0].citations[0]
...     t.resolve(cited).status
'exact'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .. import ids
from ..errors import InputError, NotFound
from ..records import KINDS, Answer, Citation, Document, Kind
from ..store import Store
from ..text.fold import loose_fold, tolerant_pattern
from .documents import removal_of

__all__ = [
    "Resolution",
    "answer_citations",
    "citation_from_json",
    "locate",
    "resolve",
    "resolve_trace",
]

Status = Literal["exact", "relocated", "changed", "missing"]
Match = Literal["verbatim", "normalized"]

# Characters of the cited version either side of the quote that are compared with the
# current text to tell repeated occurrences of the quote apart.
_CONTEXT = 64
# Beyond any text a store holds; larger offsets would not even bind as SQL integers.
_MAX_OFFSET = 2**53


@dataclass(frozen=True, slots=True)
class Resolution:
    """Where a citation points today.

    ``version``/``start``/``end``/``quote`` describe the *current* version: ``quote`` is
    the text there now (equal to the cited quote when ``match == "verbatim"``; equal up
    to whitespace and quote style when ``"normalized"``). ``passages`` are the ids of
    today's passages overlapping the range. ``kind``/``process``/``region`` are the
    provenance of that text today, ``heading`` where it stands in the document.
    """

    status: Status
    doc_id: str
    version: str | None
    start: int | None
    end: int | None
    quote: str | None
    passages: tuple[str, ...]
    note: str
    match: Match | None = None
    kind: Kind | None = None
    process: str | None = None
    region: str | None = None
    source: str | None = None
    title: str | None = None
    # Where the text stands today in its document's structure (the heading path of
    # the first passage holding it), outermost first; empty when not known.
    heading: tuple[str, ...] = ()


# -- reading citations -----------------------------------------------------------------

_REQUIRED: tuple[tuple[str, type], ...] = (
    ("doc_id", str), ("version", str), ("start", int), ("end", int), ("quote", str),
    ("quote_hash", str),
)
_OPTIONAL = ("passage_id", "source", "title", "license", "fetched_at", "region", "process")


def citation_from_json(obj: Mapping[str, Any], *, where: str = "citation") -> Citation:
    """A checked ``Citation`` from its JSON form (as ``ask --json`` prints it).

    Only the durable fields are required; display fields may be absent. Raises
    ``InputError`` naming the problem and ``where`` it is.
    """
    if not isinstance(obj, Mapping):
        raise InputError(f"{where}: expected a citation object, got {type(obj).__name__}")
    values: dict[str, Any] = {}
    for name, kind in _REQUIRED:
        if name not in obj or obj[name] is None:
            raise InputError(f"{where}: missing key {name!r}")
        value = obj[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(f"{where}: {name!r} must be a {'string' if kind is str else 'integer'}")
        values[name] = value
    for name in _OPTIONAL:
        value = obj.get(name)
        if value is not None and not isinstance(value, str):
            raise InputError(f"{where}: {name!r} must be a string or null")
        values[name] = value
    for name in ("passage_id", "source", "title", "license", "fetched_at"):
        values[name] = values[name] or ""
    values["kind"] = obj.get("kind") or "original"
    values["heading"] = _heading(obj.get("heading"), where)
    citation = Citation(**values)
    check_citation(citation, where=where)
    return citation


def _heading(value: Any, where: str) -> tuple[str, ...]:
    """A citation's heading path: absent, or a list of strings (display only)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(part, str) for part in value):
        raise InputError(f"{where}: 'heading' must be a list of strings or null")
    return tuple(value)


def check_citation(citation: Citation, *, where: str = "citation") -> None:
    """Refuse a citation that contradicts itself; it cannot be resolved honestly."""
    c = citation
    if c.kind not in KINDS:
        raise InputError(f"{where}: unknown kind {c.kind!r}", hint="one of " + ", ".join(KINDS))
    if not 0 <= c.start < c.end <= _MAX_OFFSET:
        raise InputError(f"{where}: range [{c.start}, {c.end}) is not a range of text")
    if c.end - c.start != len(c.quote):
        raise InputError(
            f"{where}: range [{c.start}, {c.end}) is {c.end - c.start} characters but the "
            f"quote is {len(c.quote)}"
        )
    if not c.quote.strip():
        raise InputError(f"{where}: the quote is only whitespace")
    try:
        expected = ids.quote_hash(c.quote)
    except UnicodeEncodeError as exc:
        raise InputError(f"{where}: the quote is not valid Unicode text") from exc
    if c.quote_hash != expected:
        raise InputError(
            f"{where}: quote_hash does not match the quote",
            hint="the citation was altered after it was issued",
        )


def answer_citations(answer: Answer) -> list[tuple[int, Citation]]:
    """``(sentence index, citation)`` pairs of an answer, in order: its audit rows."""
    return [(n, c) for n, sentence in enumerate(answer.sentences) for c in sentence.citations]


# -- finding a quote -------------------------------------------------------------------


# Heading marks extraction puts at the start of a heading line (``## Buffering``,
# docs/adr/0021): markup, not words, so a quote that ran into a heading line before
# headings were marked still matches across one.
_HEADING_MARK = r"(?:\#{1,6}[ \t]+)?"
_MARKED_LINE = re.compile(r"(^|\n)[ \t]*\#{1,6}[ \t]+")
# The fence lines extraction puts around an HTML page's code (ADR 0056): a quote that
# ran from a code example into the prose after it (or into it) before they were there
# still matches across one.
_FENCE = r"(?:```\s+)?"
_FENCE_LINE = re.compile(r"(^|\n)```[ \t]*(?=\n|$)")


def _unfenced(text: str) -> str:
    """``text`` without heading marks and fence lines: the words a quote may span."""
    return _FENCE_LINE.sub(r"\1", _MARKED_LINE.sub(r"\1", text))


def _pattern(quote: str) -> re.Pattern[str]:
    """The quote, with any whitespace run and any quote-mark style left open, a fence
    line allowed in any whitespace and a heading mark after any line break."""
    return tolerant_pattern(quote, space=r"\s+" + _FENCE, line_break=r"\s+" + _FENCE + _HEADING_MARK)


# Markdown's inline markup (ADR 0046): an image, a link's syntax around its text,
# emphasis and code marks at a word's edge (not inside snake_case, not a lone "*"),
# a backslash escape. What a quote from a Markdown source read as text held, and the
# rendered text does not.
# Bracket and parenthesis runs exclude their own opener, so a scan stops at the next
# one: a run of "[" costs one pass, not one per "[".
_MARKDOWN_IMAGE = re.compile(r"!\[[^\[\]\n]*+\]\([^()\n]*+\)")
_MARKDOWN_LINK = re.compile(r"\[([^\[\]\n]*+)\](?:\([^()\n]*+\)|\[[^\[\]\n]*+\])")
_MARKDOWN_MARKS = re.compile(r"(?<![\w*_`~\\])[*_`~]{1,3}(?=\S)|(?<=\S)[*_`~]{1,3}(?![\w*_`~])")
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _unmarked(quote: str) -> str:
    """``quote`` without Markdown's inline markup: the words a rendered page shows."""
    quote = _MARKDOWN_IMAGE.sub("", quote)
    quote = _MARKDOWN_LINK.sub(r"\1", quote)
    return _MARKDOWN_ESCAPE.sub(r"\1", _MARKDOWN_MARKS.sub("", quote))


def _agreement(text: str, start: int, end: int, before: str, after: str) -> int:
    """How many characters around ``text[start:end]`` equal the cited surroundings."""
    n = 0
    for a, b in zip(reversed(before), reversed(text[max(0, start - len(before)) : start])):
        if a != b:
            break
        n += 1
    m = 0
    for a, b in zip(after, text[end : end + len(after)]):
        if a != b:
            break
        m += 1
    return n + m


def locate(
    text: str, quote: str, *, near: int, before: str = "", after: str = "", markup: bool = True
) -> tuple[int, int, Match, int] | None:
    """Where ``quote`` is in ``text``: ``(start, end, match, occurrences)`` or ``None``.

    Verbatim occurrences first; only if there are none, occurrences that differ only
    in whitespace and quote style; only if there are none either (and ``markup``),
    those of its words without Markdown's inline markup (``_unmarked``). Among several, the one whose surroundings agree
    most with ``before``/``after`` (the cited version's text around the quote) wins,
    then the one nearest ``near`` (the cited offset).
    """
    found: list[tuple[int, int]] = []
    match: Match = "verbatim"
    at = text.find(quote)
    while at != -1:
        found.append((at, at + len(quote)))
        at = text.find(quote, at + 1)
    # The folded comparison is a cheap necessary condition (looser than the pattern:
    # it also ignores case and dashes); the pattern finds the range.
    if not found and (loose_fold(quote) in loose_fold(text)
                      or loose_fold(quote) in loose_fold(_unfenced(text))):
        match = "normalized"
        found = [(m.start(), m.end()) for m in _pattern(quote).finditer(text)]
    if not found:
        plain = _unmarked(quote) if markup else quote
        if plain == quote or not plain.strip():
            return None
        located = locate(text, plain, near=near, before=before, after=after, markup=False)
        return None if located is None else (*located[:2], "normalized", located[3])
    if len(found) == 1:
        return (*found[0], match, 1)
    start, end = max(
        found,
        key=lambda r: (_agreement(text, r[0], r[1], before, after), -abs(r[0] - near), -r[0]),
    )
    return start, end, match, len(found)


# -- resolving ---------------------------------------------------------------------------


def _readable(document: Document, principals: Sequence[str] | None) -> bool:
    return principals is None or bool(set(document.acl) & set(principals))


def _missing(citation: Citation, note: str | None = None) -> Resolution:
    # Identical for "deleted", "never ingested" and "not readable by the caller", so
    # a resolution never reveals that a document the caller cannot read exists; only
    # a recorded removal of a document the caller could read says more.
    return Resolution(
        status="missing",
        doc_id=citation.doc_id,
        version=None,
        start=None,
        end=None,
        quote=None,
        passages=(),
        note=note or f"no document {citation.doc_id} in the store (deleted, or never ingested here)",
    )


def _found(
    store: Store,
    citation: Citation,
    document: Document,
    *,
    status: Status,
    version: str,
    span: tuple[int, int],
    quote: str,
    match: Match,
    note: str,
) -> Resolution:
    covering = store.covering_passages(document.doc_id, version, *span)
    first = covering[0] if covering else None
    kind = first.kind if first else document.kind
    process = first.process if first else document.process
    if kind != citation.kind:
        note += f"; the text is now marked {kind} (the citation says {citation.kind})"
    return Resolution(
        status=status,
        doc_id=document.doc_id,
        version=version,
        start=span[0],
        end=span[1],
        quote=quote,
        passages=tuple(p.passage_id for p in covering),
        note=note,
        match=match,
        kind=kind,
        process=process,
        region=first.region if first else None,
        source=document.source,
        title=document.title,
        heading=first.heading if first else (),
    )


def resolve(
    citation: Citation | Mapping[str, Any],
    store: Store,
    *,
    principals: Sequence[str] | None = None,
) -> Resolution:
    """Where ``citation`` points in today's store (see the module docstring).

    ``citation`` is a ``Citation`` or its JSON form; ``principals=None`` means no
    access filter (as for retrieval).
    """
    if isinstance(citation, Citation):
        check_citation(citation)
        c = citation
    else:
        c = citation_from_json(citation)
    document = store.document(c.doc_id)
    current = store.current_version(c.doc_id) if document else None
    if document is None:
        removal = removal_of(store, c.doc_id, principals)
        return _missing(c, removal.note() if removal else None)
    if current is None or not _readable(document, principals):
        return _missing(c)
    span = (c.start, c.end)
    if c.version == current:
        if store.version_slice(c.doc_id, current, c.start, c.end) == c.quote:
            return _found(
                store, c, document, status="exact", version=current, span=span, quote=c.quote,
                match="verbatim", note="the cited version is current and holds the quote",
            )
        why = "the cited range does not hold the quote in the cited version"
        before = after = ""
    else:
        # The quote with its surroundings in the cited version, if that is still stored.
        lo = max(0, c.start - _CONTEXT)
        around = store.version_slice(c.doc_id, c.version, lo, c.end + _CONTEXT)
        before = after = ""
        if around is None:
            why = "the cited version is no longer stored"
        elif around[c.start - lo : c.end - lo] != c.quote:
            why = "the cited range does not hold the quote in the cited version"
        else:
            why = "the document has a newer version"
            before, after = around[: c.start - lo], around[c.end - lo :]
    today = store.version(c.doc_id)
    located = locate(today.text, c.quote, near=c.start, before=before, after=after) if today else None
    if today is None or located is None:
        return Resolution(
            status="changed",
            doc_id=c.doc_id,
            version=current,
            start=None,
            end=None,
            quote=None,
            passages=(),
            note=f"the passage changed: {why}, and the current version does not contain the quote",
            kind=document.kind,
            process=document.process,
            source=document.source,
            title=document.title,
        )
    start, end, match, count = located
    note = f"{why}; the current version holds the quote at [{start}, {end})"
    if match == "normalized":
        note += ", differing only in whitespace or quote style (or a heading mark)"
    if count > 1:
        note += f" (one of {count} occurrences: the one whose surroundings match the citation)"
    return _found(
        store, c, document, status="relocated", version=current, span=(start, end),
        quote=today.text[start:end], match=match, note=note,
    )


def resolve_trace(
    store: Store, trace_id: str, *, principals: Sequence[str] | None = None
) -> list[tuple[int, Citation, Resolution]]:
    """Every citation recorded with answer ``trace_id``: ``(sentence, cited, resolution)``."""
    if store.answer_record(trace_id) is None:
        raise NotFound(f"no recorded answer {trace_id!r}", hint="trace ids look like tr_…")
    return [
        (n, c, resolve(c, store, principals=principals))
        for n, c in store.answer_citations(trace_id)
    ]
