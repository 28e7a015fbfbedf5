"""``tether eval-verifier``: the support test scored on labelled sentence pairs."""

from __future__ import annotations

import click

from ..config import load_settings
from ..errors import InputError
from ..evaluate.verifier import evaluate_pairs, normalise_label
from ..evaluate.verifier_report import render_text
from ..modes import parse_modes
from ._common import cli, open_input, read_json_lines, require
from .render import json_line


@cli.command("eval-verifier")
@click.argument("pairs", metavar="PAIRS.jsonl")
@click.option("--json", "as_json", is_flag=True, help="Print the scores as JSON.")
@click.option("--mode", "mode", multiple=True, metavar="GATE=MODE",
              help="off|shadow|on for the contradiction and figures gates; repeatable.")
@click.pass_context
def eval_verifier(ctx: click.Context, pairs: str, as_json: bool, mode: tuple[str, ...]) -> None:
    """Score the verifier on {"premise", "hypothesis", "label"} lines (- for stdin).

    Labels: entailment, neutral, contradiction (and common aliases). Prints the
    confusion matrix, balanced accuracy (supported vs not), contradiction recall, the
    share of non-entailed pairs judged supported (over-claiming) and the share of
    entailed pairs dropped.
    """
    settings = load_settings(ctx.obj.get("config"))
    modes = parse_modes(mode)
    # Every line is validated before any is scored: bad input gives no partial report.
    rows = []
    with open_input(pairs) as stream:
        for number, obj in read_json_lines(stream):
            where = f"line {number}"
            premise = require(obj, "premise", str, where=where)
            hypothesis = require(obj, "hypothesis", str, where=where)
            try:
                label = normalise_label(require(obj, "label", str, where=where))
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from exc
            rows.append((premise, hypothesis, label))
    result = evaluate_pairs(rows, settings=settings, modes=modes)
    if as_json:
        click.echo(json_line(result))
    else:
        click.echo(render_text(result, title=pairs))
