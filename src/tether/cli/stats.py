"""``tether stats``: groundedness, coverage, drop and refusal rates of recorded answers
over time windows, with a flag on every window that got worse.

A window is flagged when any rendered sentence failed the re-check (groundedness
below 100%), or when citation coverage, draft faithfulness or draft citation coverage
fell by more than ``drift_margin`` against the previous window (both windows holding
at least ``drift_min_n`` items). ``--check`` exits 1 when the latest window is flagged.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import click

from ..errors import InputError
from ..ops.monitor import AnswerMetrics, metrics_time, parse_time, summarise, windows
from ._common import cli, db_option, open_tether

_DURATION = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w)\s*$", re.IGNORECASE)
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str, *, option: str) -> dt.timedelta:
    found = _DURATION.match(text)
    if not found or int(found.group(1)) == 0:
        raise InputError(f"{option} {text!r} is not a duration",
                         hint="use a number and a unit: 30m, 6h, 1d, 2w")
    return dt.timedelta(seconds=int(found.group(1)) * _UNITS[found.group(2).lower()])


def parse_moment(text: str, *, option: str, now: dt.datetime) -> dt.datetime:
    """An ISO date/time, or a duration meaning that long before ``now``."""
    if _DURATION.match(text):
        return now - parse_duration(text, option=option)
    try:
        return parse_time(text)
    except ValueError as exc:
        raise InputError(f"{option} {text!r} is neither an ISO date/time nor a duration",
                         hint="e.g. --since 2026-03-01 or --since 7d") from exc


def _cell(rate: dict[str, Any]) -> str:
    return "—" if rate["value"] is None else f"{rate['value']:.1%} ({rate['n']})"


COLUMNS = (("groundedness", "grounded"), ("citation_coverage", "coverage"),
           ("draft_faithfulness", "draft faith."), ("draft_citation_coverage", "draft cov."),
           ("drop_rate", "dropped"), ("refusal_rate", "refused"))


@cli.command()
@db_option
@click.option("--since", help="Start: ISO date/time, or a duration back from now (7d, 12h).")
@click.option("--until", help="End (exclusive): ISO date/time, or a duration back from now.")
@click.option("--window", default="1d", show_default=True, help="Window length: 30m, 6h, 1d, 1w.")
@click.option("--json", "as_json", is_flag=True, help="Print the windows as JSON.")
@click.option("--check", is_flag=True, help="Exit 1 when the latest window is flagged.")
@click.pass_context
def stats(ctx: click.Context, db: str | None, since: str | None, until: str | None,
          window: str, as_json: bool, check: bool) -> None:
    """Rates of recorded answers per time window, flagging drops (UTC windows)."""
    now = dt.datetime.now(dt.timezone.utc)
    size = parse_duration(window, option="--window")
    start = parse_moment(since, option="--since", now=now) if since else None
    end = parse_moment(until, option="--until", now=now) if until else None
    if start and end and end <= start:
        raise InputError("--until must be later than --since")
    with open_tether(ctx, db) as tether:
        records = tether.store.metric_records(
            since=metrics_time(start) if start else None, until=metrics_time(end) if end else None
        )
        settings = tether.settings
    parsed = [(created, AnswerMetrics.from_json(m)) for created, m in records]
    found = windows(parsed, size=size, settings=settings)
    latest_flags = list(found[-1].flags) if found else []
    if as_json:
        click.echo(json.dumps({
            "since": metrics_time(start) if start else None,
            "until": metrics_time(end) if end else None,
            "window_s": int(size.total_seconds()),
            "drift_margin": settings.drift_margin,
            "drift_min_n": settings.drift_min_n,
            "total": summarise(m for _, m in parsed),
            "windows": [w.to_json() for w in found],
            "latest_flags": latest_flags,
        }, indent=2))
    elif not found:
        click.echo("no answers recorded" + (f" since {since}" if since else ""))
    else:
        _print_table(found, parsed, size)
    if check and latest_flags:
        ctx.exit(1)


def _print_table(found: list[Any], parsed: list[tuple[str, AnswerMetrics]], size: dt.timedelta) -> None:
    fmt = "%Y-%m-%d" if size.total_seconds() % 86400 == 0 else "%Y-%m-%d %H:%M"
    header = f"{'window (UTC)':17s} {'answers':>7s}  " + "  ".join(f"{t:>16s}" for _, t in COLUMNS)
    click.echo(header)
    for w in found:
        cells = "  ".join(f"{_cell(w.summary[k]):>16s}" for k, _ in COLUMNS)
        mark = "  !" if w.flags else ""
        click.echo(f"{w.start.strftime(fmt):17s} {w.summary['answers']:>7d}  {cells}{mark}")
    total = summarise(m for _, m in parsed)
    cells = "  ".join(f"{_cell(total[k]):>16s}" for k, _ in COLUMNS)
    click.echo(f"{'all':17s} {total['answers']:>7d}  {cells}")
    flagged = [w for w in found if w.flags]
    if flagged:
        click.echo("")
        for w in flagged:
            for flag in w.flags:
                click.echo(f"! {w.start.strftime(fmt)}: {flag}")
