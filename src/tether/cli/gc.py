"""``tether gc``: delete old versions that no recorded answer cites."""

from __future__ import annotations

import click

from ._common import cli, db_option, open_tether


def _size(n: int) -> str:
    if n < 1024:
        return f"{n:,} bytes"
    human = f"{n / 1024:,.1f} KiB" if n < 1024**2 else f"{n / 1024**2:,.1f} MiB"
    return f"{n:,} bytes ({human})"


@cli.command()
@db_option
@click.option("--dry-run", is_flag=True, help="Say what would be removed; change nothing.")
@click.pass_context
def gc(ctx: click.Context, db: str | None, dry_run: bool) -> None:
    """Remove versions that are neither current nor cited by a recorded answer.

    Current versions and every version a recorded answer cites are kept, so every
    citation in the audit log still resolves against the text it quoted.
    """
    with open_tether(ctx, db) as tether:
        result = tether.store.collect_versions(dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    click.echo(
        f"{verb} {result.removed} unreferenced old version(s), "
        f"{_size(result.freed_bytes)} of text; "
        f"kept {result.kept_cited} old version(s) cited by recorded answers"
    )
