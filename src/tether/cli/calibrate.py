"""``tether calibrate``: choose the probe threshold from labelled questions."""

from __future__ import annotations

import click

from ..errors import InputError
from ..retrieve.calibrate import calibrate as run_calibration
from ..retrieve.calibrate import describe, histogram, plot, save_calibration
from ._common import cli, db_option, open_input, open_tether, read_json_lines, require


@cli.command()
@click.argument("labeled", metavar="LABELED.jsonl")
@db_option
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Also write both score distributions as a PNG (needs tether[plot]).")
@click.option("--max-false-refusal", type=click.FloatRange(0.0, 1.0), default=0.05,
              show_default=True,
              help="Never choose a threshold that refuses more of the answerable questions.")
@click.option("--as", "as_", multiple=True, metavar="PRINCIPAL",
              help="Calibrate on what these principals may read (repeatable).")
@click.option("--dry-run", is_flag=True, help="Print the calibration without saving it.")
@click.pass_context
def calibrate(
    ctx: click.Context,
    labeled: str,
    db: str | None,
    plot_path: str | None,
    max_false_refusal: float,
    as_: tuple[str, ...],
    dry_run: bool,
) -> None:
    """Calibrate the retrieval probe on LABELED.jsonl over the current store.

    Each line: {"question": "...", "answerable": true|false}. Prints both score
    distributions, the chosen threshold with its margins and the abstain
    precision/recall it implies, and stores it for the store's scorer.
    """
    # Read and check every line before touching the store: bad input changes nothing.
    items: list[tuple[str, bool]] = []
    with open_input(labeled) as stream:
        for number, obj in read_json_lines(stream):
            where = f"line {number}"
            question = require(obj, "question", str, where=where)
            if not question.strip():
                raise InputError(f"{where}: 'question' is empty")
            items.append((question, require(obj, "answerable", bool, where=where)))
    if not any(a for _, a in items) or all(a for _, a in items):
        raise InputError(
            f"{labeled}: calibration needs both answerable and unanswerable questions",
            hint='mark each line "answerable": true or false',
        )
    with open_tether(ctx, db) as tether:
        if tether.store.counts()["passages"] == 0:
            raise InputError("the store is empty", hint="ingest documents before calibrating")
        cal = run_calibration(
            tether.store, items, settings=tether.settings,
            principals=list(as_) or None, max_false_refusal=max_false_refusal,
        )
        click.echo(histogram(cal))
        click.echo()
        for line in describe(cal):
            click.echo(line)
        if cal.threshold == 0.0:
            click.echo("warning: no threshold separates the two distributions within the "
                       "allowed false refusals; the probe will refuse only empty retrievals",
                       err=True)
        if plot_path:
            plot(cal, plot_path)
            click.echo(f"plot: {plot_path}")
        if dry_run:
            click.echo("dry run: nothing saved")
        else:
            save_calibration(tether.store, cal)
            click.echo(f"saved: threshold {cal.threshold:g} for scorer {cal.scorer!r}")
