"""``tether check``: the store's integrity, after a crash, a kill or a hand edit."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..config import default_db_path
from ..errors import StoreError
from ..ops.consistency import CheckReport, Problem, check_store
from ._common import cli, db_option, open_tether
from .render import printable


@cli.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def check(ctx: click.Context, db: str | None, as_json: bool) -> None:
    """Check the store: schema, search index, passages, versions and every citation.

    Exit status 0 when everything is intact, 1 when problems were found (each is
    listed), 3 when there is no store to check.
    """
    location = db or str(default_db_path())
    if "://" not in location and not Path(location).exists():  # URLs name server stores
        raise StoreError(f"no store at {location}", hint="give its path with --db")
    try:
        tether = open_tether(ctx, db)
    except StoreError as exc:
        if "busy" in str(exc):
            raise
        # A file SQLite cannot open (overwritten, truncated) is the gravest finding.
        report = CheckReport(problems=(Problem("file", location, str(exc)),), counts={})
    else:
        with tether:
            report = check_store(tether.store)
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        for problem in report.problems:
            click.echo(printable(f"problem [{problem.check}] {problem.subject}: {problem.message}"))
        if report.unlisted:
            click.echo(f"... and {report.unlisted} more problem(s) of the same kinds")
        c = report.counts
        if not c:
            click.echo("PROBLEMS: the store could not be read, so nothing else was checked")
        else:
            resolved = ", ".join(f"{n} {status}" for status, n in report.citations.items())
            click.echo(
                f"{'ok' if report.ok else 'PROBLEMS'}: {c['documents']} documents, "
                f"{c['versions']} versions, {c['passages']} passages, {c['answers']} answers, "
                f"{c['citations']} citations" + (f" ({resolved})" if resolved else "")
            )
    if not report.ok:
        ctx.exit(1)
