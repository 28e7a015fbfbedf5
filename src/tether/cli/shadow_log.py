"""``tether shadow-log``: what the gates in shadow mode would have suppressed."""

from __future__ import annotations

import click

from ._common import cli, db_option, open_tether
from .render import json_line, printable


@cli.command("shadow-log")
@db_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the most recent N entries.")
@click.pass_context
def shadow_log(ctx: click.Context, db: str | None, as_json: bool, limit: int | None) -> None:
    """Show the shadow log: question, gate, layer, reason, and what would have gone."""
    with open_tether(ctx, db) as tether:
        entries = tether.store.shadow_entries(limit=limit)
    if as_json:
        for entry in entries:
            click.echo(json_line(entry))
        return
    if not entries:
        click.echo("The shadow log is empty (no gate in shadow mode has disagreed yet).")
        return
    for entry in entries:
        lines = [f"{entry['created_at']}  {entry['trace_id']}  {entry['gate']}/{entry['layer']}",
                 f"  Q: {entry['question']}",
                 f"  would suppress {entry['suppressed']}: {entry['text']}",
                 f"  because: {entry['reason']}"]
        for line in lines:  # a question or a text is a value: one line, controls escaped
            click.echo(printable(line))
