"""``tether migrate``: bring a store's schema up to date (PostgreSQL: versioned SQL
migrations; SQLite upgrades itself on open). ``--status`` only reports."""

from __future__ import annotations

import click

from ..config import default_db_location, load_settings
from ..store import is_postgres_url, open_store
from ._common import cli, db_option


@cli.command()
@db_option
@click.option("--status", "status_only", is_flag=True,
              help="Report applied and pending migrations; change nothing.")
@click.pass_context
def migrate(ctx: click.Context, db: str | None, status_only: bool) -> None:
    """Create or upgrade the store's schema (and rebuild the PostgreSQL full-text index
    when search_language changed)."""
    settings = load_settings(ctx.obj.get("config") if ctx.obj else None)
    location = db or default_db_location()
    if not is_postgres_url(location):
        # SQLite migrates whenever it is opened; opening is the whole job.
        if status_only:
            from pathlib import Path

            if not Path(location).exists():
                click.echo(f"{location}: no store yet (it is created on first ingest or migrate)")
                return
        store = open_store(location, create=not status_only, settings=settings)
        try:
            click.echo(f"{location}: SQLite schema {store.get_meta('schema_version')}, up to date")
        finally:
            store.close()
        return

    from ..store import postgres  # the optional extra; MissingExtra without it

    url = str(location)
    if status_only:
        report = postgres.migration_status(url)
        click.echo(f"{report.location}: schema {report.before} of {postgres.SCHEMA_VERSION}"
                   f", search_language {report.language or '-'}")
        for name in report.pending:
            click.echo(f"pending: {name}")
        if not report.pending:
            click.echo("up to date")
        return
    report = postgres.migrate(url, language=settings.search_language, notify=lambda m: None)
    for name in report.applied:
        click.echo(f"applied: {name}")
    if report.reindexed:
        click.echo(f"rebuilt the full-text index for {report.language!r}")
    state = "up to date" if not report.applied and not report.reindexed else "migrated"
    click.echo(f"{report.location}: schema {report.version}, search_language"
               f" {report.language!r}, {state}")
