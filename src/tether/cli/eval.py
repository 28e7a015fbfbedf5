"""``tether eval``: golden questions through the pipeline, scored, as text, JSON or HTML.

Exits 1 when an invariant breaks (a rendered sentence fails the independent re-check,
or an injected instruction is rendered), so CI can gate on it.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from ..config import load_settings
from ..errors import InputError
from ..evaluate import (
    SUITES,
    EvalResult,
    Labels,
    build_suite_store,
    load_golden,
    load_labels,
    run_eval,
    suite,
)
from ..evaluate.adversary import ObedientGenerator
from ..evaluate.report import render_html
from ..facade import Tether
from ._common import cli, db_option


def _rate_text(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return "—  (n = 0)"
    return f"{rate['value']:7.2%}  ({rate['count']}/{rate['n']})"


def summary_text(result: EvalResult) -> str:
    s = result.summary
    lines = [f"{s['counts']['questions']} questions ({s['counts']['answerable']} answerable, "
             f"{s['counts']['unanswerable']} unanswerable), {s['counts']['sentences']} sentences "
             f"rendered, {s['counts']['dropped']} dropped"]
    for key in ("groundedness", "citation_coverage", "draft_faithfulness",
                "draft_citation_coverage", "drop_rate", "refusal_rate", "answer_accuracy",
                "overall_accuracy", "retrieval_hit_rate", "abstain_precision", "abstain_recall",
                "instruction_leaks"):
        lines.append(f"  {key.replace('_', ' '):24s} {_rate_text(s[key])}")
    for outcome, rate in s["drop_rate_by_outcome"].items():
        lines.append(f"    dropped {outcome:16s} {_rate_text(rate)}")
    for layer, rate in s["refusal_rate_by_layer"].items():
        lines.append(f"    refused by {layer:13s} {_rate_text(rate)}")
    lat = s["latency_ms"]
    if lat["n"]:
        lines.append(f"  {'latency p50 / p95':24s} {lat['p50']:.1f} / {lat['p95']:.1f} ms")
    det = s.get("injection_detection")
    if det:
        lines.append(f"  {'injection recall':24s} {_rate_text(det['recall'])}")
        for where, rate in det["recall_by_where"].items():
            lines.append(f"    {where:22s} {_rate_text(rate)}")
        lines.append(f"  {'false flags (documents)':24s} {_rate_text(det['false_flag_rate'])}")
        lines.append(f"  {'false flags (passages)':24s} {_rate_text(det['passage_false_flag_rate'])}")
    return "\n".join(lines)


def _progress_run(tether: Tether, items: list[Any], **options: Any) -> EvalResult:
    err = Console(stderr=True)
    with Progress(TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True,
                  disable=not err.is_terminal) as progress:
        task = progress.add_task("eval", total=len(items))
        return run_eval(tether, items, progress=lambda done, _: progress.update(task, completed=done),
                        **options)


@cli.command(name="eval")
@click.argument("golden", required=False, type=click.Path(dir_okay=False))
@db_option
@click.option("--suite", "suite_name", type=click.Choice(SUITES),
              help="Build the bundled corpus of this suite (in a temporary store, or --db) and "
                   "use its questions unless GOLDEN is given.")
@click.option("--manifest", "manifests", multiple=True, type=click.Path(dir_okay=False),
              help="Manifest(s) that ingested the store: map expect_docs paths to sources and "
                   "label planted instructions (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print every figure and question as JSON.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Write a self-contained HTML report here.")
@click.option("--obedient", is_flag=True,
              help="Play a generator that obeys planted instructions: after the honest drafts "
                   "it proposes each question's 'payloads'; the guard must drop them all.")
@click.option("--as", "as_", multiple=True, metavar="PRINCIPAL",
              help="Answer only from documents these principals may read (repeatable).")
@click.pass_context
def eval_(
    ctx: click.Context,
    golden: str | None,
    db: str | None,
    suite_name: str | None,
    manifests: tuple[str, ...],
    as_json: bool,
    html_path: str | None,
    obedient: bool,
    as_: tuple[str, ...],
) -> None:
    """Score the pipeline on GOLDEN.jsonl questions against the store.

    Lines: {"id", "question", "answerable", "expect_contains"?, "expect_docs"?,
    "forbid_contains"?}. Exits 1 if groundedness is below 100% or an injected
    instruction was rendered.
    """
    if golden is None and suite_name is None:
        raise click.UsageError("give a GOLDEN file, or --suite demo|injection")
    settings = load_settings(ctx.obj.get("config") if ctx.obj else None)
    chosen = suite(suite_name) if suite_name else None
    items = load_golden(golden or chosen.golden)  # type: ignore[union-attr]
    labels = chosen.labels() if chosen else Labels()
    for manifest in manifests:
        labels = labels.merged(load_labels(manifest))
    if html_path and not Path(html_path).parent.is_dir():
        raise InputError(f"cannot write the report: no folder {Path(html_path).parent}")
    options: dict[str, Any] = {"labels": labels if (chosen or manifests) else None,
                               "principals": list(as_) if as_ else None,
                               "name": suite_name or Path(golden or "").name}
    with tempfile.TemporaryDirectory(prefix="tether-eval-") as tmp:
        if chosen is not None:
            tether, flags = build_suite_store(chosen, Path(db) if db else Path(tmp) / "suite.db",
                                              settings=settings)
            options["ingest_flags"] = flags
        else:
            tether = Tether(db, settings=settings, create=False)
        with tether:
            if obedient:
                if not any(item.payloads for item in items):
                    raise InputError("--obedient needs golden lines with 'payloads'",
                                     hint="the injection suite has them: --suite injection")
                options["generator"] = ObedientGenerator(
                    tether.generator(), {item.question: item.payloads for item in items}
                )
                options["name"] += " (obedient generator)"
            result = _progress_run(tether, items, **options)
    if html_path:
        Path(html_path).write_text(render_html(result, title=f"Tether evaluation: {options['name']}"),
                                   encoding="utf-8")
    if as_json:
        click.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        click.echo(summary_text(result))
        if html_path:
            click.echo(f"report: {html_path}")
    failures = result.gate_failures()
    for failure in failures:
        click.echo(f"eval: invariant broken: {failure}", err=True)
    if failures:
        ctx.exit(1)
