"""``tether documents``: list, show and remove stored documents.

The same path as ``GET``/``DELETE /v1/documents`` (``ops.documents``): a removal is
recorded before the delete, and stored citations of the document then resolve
``missing`` with when, by whom and why.
"""

from __future__ import annotations

import getpass
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ..ops.documents import (
    check_doc_id,
    doc_id_of_source,
    not_found,
    remove_document,
    summaries,
    summary,
    summary_json,
)
from ..records import to_json
from ..store import DocumentSummary, Store
from ._common import UTF8_TEXT, cli, db_option, encodable, open_tether
from .render import json_block, json_line, printable

_PREVIEW = 60  # characters of each passage that ``show`` prints
_TITLE = 40  # characters of a title in the ``list`` table


def _principals(as_: tuple[str, ...]) -> list[str] | None:
    return list(as_) if as_ else None


_as_option = click.option(
    "--as", "as_", multiple=True, type=UTF8_TEXT, metavar="PRINCIPAL",
    help="Only documents these principals may read (repeatable); default: every document.",
)


@cli.group()
def documents() -> None:
    """Browse and remove stored documents."""


def _cut(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(entries: Sequence[DocumentSummary]) -> list[str]:
    rows = [("ID", "KIND", "VERSIONS", "PASSAGES", "INGESTED", "ACL", "TITLE", "SOURCE")]
    for e in entries:
        d = e.document
        rows.append((d.doc_id, d.kind, str(e.versions), str(e.passages), e.ingested_at[:19],
                     ",".join(d.acl), _cut(d.title, _TITLE), d.source))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return ["  ".join([*(cell.ljust(w) for cell, w in zip(row, widths)), row[-1]]).rstrip()
            for row in rows]


@documents.command("list")
@db_option
@click.option("--json", "as_json", is_flag=True, help="One JSON array of document entries.")
@_as_option
@click.pass_context
def list_(ctx: click.Context, db: str | None, as_json: bool, as_: tuple[str, ...]) -> None:
    """Every document (by source): id, kind, versions, passages, ingested, ACL, title, source."""
    with open_tether(ctx, db) as tether:
        entries = list(summaries(tether.store, _principals(as_)))
    if as_json:
        click.echo(json_block([summary_json(e) for e in entries]))
        return
    if not entries:
        click.echo("no documents" + (" readable by " + ", ".join(as_) if as_ else ""), err=True)
        return
    for line in _table(entries):
        click.echo(printable(line))  # one line each: a value's control bytes escaped
    click.echo(f"{len(entries)} document(s)", err=True)


def _view(store: Store, entry: DocumentSummary) -> dict[str, Any]:
    doc_id = entry.document.doc_id
    version = store.version(doc_id)
    passages = store.passages(doc_id, entry.current_version)
    return {
        **summary_json(entry),
        "text": version.text if version else "",
        "passages": [{"passage_id": p.passage_id, "start": p.start, "end": p.end, "kind": p.kind,
                      "region": p.region, "flags": list(p.flags), "text": p.text} for p in passages],
        # Which passages ingest flagged as instruction-like, and why (README "flagged:").
        "flagged_passages": [{"passage_id": p.passage_id, "start": p.start, "end": p.end,
                              "flags": list(p.flags)} for p in passages if p.flags],
    }


def _show_lines(view: dict[str, Any]) -> list[str]:
    kind = view["kind"] + (f" ({view['process']})" if view["process"] else "")
    fields = [
        ("doc_id", view["doc_id"]), ("title", view["title"]), ("source", view["source"]),
        ("kind", kind), ("license", view["license"]), ("fetched_at", view["fetched_at"]),
        ("media_type", view["media_type"]), ("acl", ", ".join(view["acl"])),
        ("version", f"{view['version']} (current; {view['version_count']} stored)"),
        ("ingested_at", view["ingested_at"]),
        ("passages", f"{view['passage_count']} ({len(view['text']):,} characters)"),
    ]
    lines = [f"{name:<12}{value}" for name, value in fields]
    for p in view["passages"]:
        preview = _cut(p["text"], _PREVIEW)
        where = f" {p['region']}" if p["region"] else ""
        flagged = f" flagged: {','.join(p['flags'])}" if p["flags"] else ""
        lines.append(f"  {p['passage_id']} [{p['start']}, {p['end']}) {p['kind']}{where}{flagged}  {preview}")
    return lines


@documents.command("show")
@click.argument("doc_id", metavar="ID")
@db_option
@click.option("--json", "as_json", is_flag=True,
              help="The document as JSON: its list entry, current text and passages.")
@_as_option
@click.pass_context
def show(ctx: click.Context, doc_id: str, db: str | None, as_json: bool, as_: tuple[str, ...]) -> None:
    """One document: metadata, versions, and its passages (exit 4 when there is none)."""
    check_doc_id(doc_id)
    principals = _principals(as_)
    with open_tether(ctx, db) as tether:
        entry = summary(tether.store, doc_id, principals)
        if entry is None:
            raise not_found(tether.store, doc_id, principals)
        view = _view(tether.store, entry)
    if as_json:
        click.echo(json_block(view))
        return
    for line in _show_lines(view):
        click.echo(printable(line))


def _source_ids(source: str) -> list[str]:
    """The ids ``--source S`` may mean: S as given, and for a path, the file URI that
    ``tether ingest PATH`` records as its source."""
    # A path whose bytes are not UTF-8 is a source only as its (percent-encoded) URI.
    found = [doc_id_of_source(source)] if encodable(source) else []
    if "://" not in source:
        found.append(doc_id_of_source(Path(source).expanduser().resolve().as_uri()))
    return found


def _who() -> str:
    try:
        return f"cli ({getpass.getuser()})"
    except (OSError, KeyError):  # no login name (some containers)
        return "cli"


@documents.command("rm")
@click.argument("doc_id", metavar="ID", required=False)
@click.option("--source", metavar="S", help="Remove the document ingested from source S instead.")
@click.option("--reason", metavar="TEXT", help="Why (recorded; resolved citations show it).")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print the removal record as JSON.")
@click.pass_context
def rm(ctx: click.Context, doc_id: str | None, source: str | None, reason: str | None,
       db: str | None, as_json: bool) -> None:
    """Remove a document with all its versions and passages (recorded in the store).

    Stored citations of it then resolve 'missing' with when, by whom and why. An
    unknown id exits 4 and changes nothing.
    """
    if (doc_id is None) == (source is None):
        raise click.UsageError("give a document ID or --source S, exactly one")
    candidates = [check_doc_id(doc_id)] if doc_id is not None else _source_ids(source or "")
    with open_tether(ctx, db) as tether:
        target = next((c for c in candidates if tether.store.document(c)), candidates[0])
        removal = remove_document(tether.store, target, by=_who(), reason=reason)
        if removal is None:
            error = not_found(tether.store, target, None)
            if source is not None:
                error = type(error)(f"{error} (no document from source {source!r})")
            raise error
    if as_json:
        click.echo(json_line(to_json(removal)))
        return
    click.echo(f"removed {removal.doc_id} ({printable(removal.source)}): {removal.versions} version(s), "
               f"{removal.passages} passage(s); stored citations of it now resolve missing")
