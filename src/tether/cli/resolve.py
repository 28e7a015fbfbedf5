"""``tether resolve``: where stored citations point today.

Reads one citation JSON on stdin (as ``ask --json`` prints it), one per line with
``--jsonl``, or takes every citation of a recorded answer with ``--trace``.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import InputError
from ..ops.cite import Resolution, citation_from_json
from ..records import Citation, to_json
from ._common import (
    UTF8_TEXT,
    cli,
    db_option,
    open_tether,
    parse_json_object,
    read_json_lines,
    read_text,
)
from .render import json_block, json_line


def _line(resolution: Resolution, **extra: Any) -> str:
    return json_line({**extra, **to_json(resolution)})


def _cited(citation: Citation) -> dict[str, Any]:
    keep = ("doc_id", "version", "start", "end", "quote_hash", "passage_id", "kind")
    return {name: getattr(citation, name) for name in keep}


def _one_citation(obj: dict[str, Any], *, where: str) -> Citation:
    if "doc_id" not in obj and "sentences" in obj:
        raise InputError(
            f"{where}: this is a whole answer, not one citation",
            hint="pipe one citation (jq '.sentences[0].citations[0]') or use --trace TRACE_ID",
        )
    return citation_from_json(obj, where=where)


@cli.command()
@db_option
@click.option("--jsonl", is_flag=True,
              help="One citation per line on stdin (an 'id' key is echoed); one result line each.")
@click.option("--trace", "trace_id", metavar="TRACE_ID",
              help="Resolve every citation of the answer recorded under TRACE_ID.")
@click.option("--as", "as_", multiple=True, type=UTF8_TEXT, metavar="PRINCIPAL",
              help="Resolve as these principals (repeatable): unreadable documents are missing.")
@click.pass_context
def resolve(
    ctx: click.Context, db: str | None, jsonl: bool, trace_id: str | None, as_: tuple[str, ...]
) -> None:
    """Where stored citations point today: exact, relocated, changed or missing.

    Each result gives today's version, range, quote and the passages covering it.
    """
    if jsonl and trace_id:
        raise click.UsageError("give --jsonl or --trace, not both")
    principals = list(as_) if as_ else None
    with open_tether(ctx, db) as tether:
        if trace_id is not None:
            results = tether.resolve_trace(trace_id, principals=principals)
            if not results:
                click.echo(f"answer {trace_id} has no citations (it was a refusal)", err=True)
            for sentence, cited, resolution in results:
                click.echo(
                    _line(resolution, trace_id=trace_id, sentence=sentence, cited=_cited(cited))
                )
            return
        stdin = sys.stdin
        if jsonl:
            # Validate every line before resolving any: bad input gives no partial output.
            items = []
            for number, obj in read_json_lines(stdin):
                where = f"line {number}"
                extra = {"id": obj["id"]} if "id" in obj else {}
                items.append((extra, _one_citation(obj, where=where)))
            for extra, citation in items:
                click.echo(_line(tether.resolve(citation, principals=principals), **extra))
            return
        text = read_text(stdin)
        if not text.strip():
            raise InputError("no citation JSON on stdin",
                             hint="pipe one citation from ask --json, or use --jsonl / --trace")
        citation = _one_citation(parse_json_object(text, where="stdin"), where="stdin")
        resolution = tether.resolve(citation, principals=principals)
        click.echo(json_block(to_json(resolution)))
