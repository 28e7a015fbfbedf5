"""``tether calibrate``: the probe threshold (and the reader's) from labelled lines."""

from __future__ import annotations

import click

from ..errors import InputError
from ..evaluate.judge_calibration import (
    calibrate_judge,
    describe_judge,
    save_judge_calibration,
)
from ..evaluate.answer_calibration import calibrate_answers, save_answer_calibration
from ..evaluate.verifier import normalise_label
from ..facade import Tether
from ..judges.reader import ReaderJudge
from ..retrieve.calibrate import calibrate as run_calibration
from ..retrieve.calibrate import describe, histogram, plot, save_calibration
from ._common import (
    cli,
    db_option,
    judge_option,
    open_input,
    open_tether,
    read_json_lines,
    require,
)


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
@judge_option
@click.pass_context
def calibrate(
    ctx: click.Context,
    labeled: str,
    db: str | None,
    plot_path: str | None,
    max_false_refusal: float,
    as_: tuple[str, ...],
    dry_run: bool,
    judge: str | None,
) -> None:
    """Calibrate the retrieval probe (and the reader) on LABELED.jsonl over the store.

    Each line: {"question": "...", "answerable": true|false}, or a labelled pair
    {"premise": "...", "hypothesis": "...", "label": "entailment|neutral|contradiction"}.
    Prints both score distributions, the chosen threshold with its margins and the
    abstain precision/recall it implies, and stores it for the store's scorer. With
    reader = "trained" (the default), also the answer threshold of the shipped
    answerability model, from the same questions. With
    judge = "gguf:PATH", also learns the reader's answers threshold (from the
    questions) and support threshold (from the pairs), stored for that model file.
    """
    # Read and check every line before touching the store: bad input changes nothing.
    items, pairs = _read_lines(labeled)
    with open_tether(ctx, db, judge=judge) as tether:
        reader = _reader(tether, pairs)
        if items:
            _calibrate_probe(tether, items, principals=list(as_) or None, plot_path=plot_path,
                             max_false_refusal=max_false_refusal, dry_run=dry_run)
        if items and tether.settings.reader == "trained":
            _calibrate_answers(tether, items, principals=list(as_) or None,
                               max_false_refusal=max_false_refusal, dry_run=dry_run)
        if reader is not None:
            _calibrate_reader(tether, reader, items, pairs, principals=list(as_) or None,
                              max_false_refusal=max_false_refusal, dry_run=dry_run)


def _read_lines(labeled: str) -> tuple[list[tuple[str, bool]], list[tuple[str, str, bool]]]:
    items: list[tuple[str, bool]] = []
    pairs: list[tuple[str, str, bool]] = []
    with open_input(labeled) as stream:
        for number, obj in read_json_lines(stream):
            where = f"line {number}"
            if "question" not in obj and "premise" in obj:
                premise = require(obj, "premise", str, where=where)
                hypothesis = require(obj, "hypothesis", str, where=where)
                label = normalise_label(require(obj, "label", str, where=where))
                if not premise.strip() or not hypothesis.strip():
                    raise InputError(f"{where}: 'premise' and 'hypothesis' must not be empty")
                pairs.append((premise, hypothesis, label == "entailment"))
                continue
            question = require(obj, "question", str, where=where)
            if not question.strip():
                raise InputError(f"{where}: 'question' is empty")
            items.append((question, require(obj, "answerable", bool, where=where)))
    if (items or not pairs) and (not any(a for _, a in items) or all(a for _, a in items)):
        raise InputError(
            f"{labeled}: calibration needs both answerable and unanswerable questions",
            hint='mark each line "answerable": true or false',
        )
    return items, pairs


def _reader(tether: Tether, pairs: list[tuple[str, str, bool]]) -> ReaderJudge | None:
    judge = tether.judge()
    if isinstance(judge, ReaderJudge):
        return judge
    if pairs:
        raise InputError("labelled pairs calibrate the reader, and no reader is configured",
                         hint='set judge = "gguf:PATH" (or TETHER_JUDGE)')
    return None


def _calibrate_probe(
    tether: Tether, items: list[tuple[str, bool]], *, principals: list[str] | None,
    plot_path: str | None, max_false_refusal: float, dry_run: bool,
) -> None:
    if tether.store.counts()["passages"] == 0:
        raise InputError("the store is empty", hint="ingest documents before calibrating")
    cal = run_calibration(
        tether.store, items, settings=tether.settings,
        principals=principals, max_false_refusal=max_false_refusal,
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
        tether._threshold = None  # the reader's questions below run under the new one


def _calibrate_answers(
    tether: Tether, items: list[tuple[str, bool]], *, principals: list[str] | None,
    max_false_refusal: float, dry_run: bool,
) -> None:
    click.echo()
    cal = calibrate_answers(tether, items, principals=principals,
                            max_false_refusal=max_false_refusal)
    for line in cal.describe():
        click.echo(line)
    if dry_run:
        click.echo("dry run: answer threshold not saved")
        return
    save_answer_calibration(tether, cal)
    click.echo(f"saved: answer threshold {cal.threshold:g} for the shipped answerability model")


def _calibrate_reader(
    tether: Tether, reader: ReaderJudge, items: list[tuple[str, bool]],
    pairs: list[tuple[str, str, bool]], *, principals: list[str] | None,
    max_false_refusal: float, dry_run: bool,
) -> None:
    click.echo()
    click.echo(f"reader: {reader.describe()}")
    cal = calibrate_judge(tether, reader, questions=items, pairs=pairs, principals=principals,
                          max_false_refusal=max_false_refusal)
    for line in describe_judge(cal):
        click.echo(line)
    if dry_run:
        click.echo("dry run: reader thresholds not saved")
        return
    save_judge_calibration(tether.store, cal, reader)
    t = cal.thresholds
    click.echo(f"saved: reader thresholds support {t.support:g}, answers {t.answers:g} "
               f"for model sha256 {t.model_sha256[:16]}…")
