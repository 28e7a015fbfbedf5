"""``tether reindex``: re-segment every document; stored citations keep resolving."""

from __future__ import annotations

import click

from ._common import cli, db_option, open_tether


@cli.command()
@db_option
@click.option("--passage-chars", type=click.IntRange(min=1), default=None, metavar="N",
              help="Passages of whole sentences up to about N characters "
                   "(default: the passage_chars setting).")
@click.pass_context
def reindex(ctx: click.Context, db: str | None, passage_chars: int | None) -> None:
    """Cut every document's current version into passages again.

    Citations are character ranges of the versioned text, so every stored citation
    still resolves afterwards, mapped onto the new passages.
    """
    with open_tether(ctx, db) as tether:
        size = passage_chars or tether.settings.passage_chars
        result = tether.reindex(passage_chars=size)
        click.echo(
            f"re-segmented {result.documents} documents: {result.passages_before} → "
            f"{result.passages_after} passages (passage_chars={size}) in {result.seconds:.2f} s"
        )
        if result.skipped:
            click.echo(f"{result.skipped} document(s) were deleted during the run", err=True)
        if size != tether.settings.passage_chars:
            click.echo(
                f"note: new ingests still cut passages at passage_chars="
                f"{tether.settings.passage_chars}; set passage_chars = {size} in tether.toml "
                "to keep the store uniform",
                err=True,
            )
