"""``tether ask``: one question, or a JSON-lines batch answered in one process.

Exit status, so that a script can tell the outcomes apart without ``--json``:
0 answered, 1 refused (no sentence survived the guard), 2 bad input or usage,
3 the store failed (a streamed answer that could not be recorded still shows the
sources of the sentences already shown, ADR 0049), 5 the generator failed before any
sentence was verified (unreachable model server, timeout, HTTP 5xx after retries).
A batch (``--jsonl``) exits 0 once every line is written (each record says whether it
was refused), or 5 when the generator failed on some line.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import click

from ..errors import ConfigError, InputError
from ..facade import Tether
from ..generate import Generator
from ..generate.llm import LLM_GENERATORS
from ..modes import parse_modes
from ..pipeline import Done, Event, Sentence
from ..records import PUBLIC, Answer
from ..retrieve.calibrate import note_once
from ..retrieve.search import check_question
from ._common import (
    UTF8_TEXT,
    cli,
    db_option,
    judge_option,
    open_input,
    open_tether,
    read_json_lines,
    require,
)
from .render import TextStream, answer_json

ANSWERED, REFUSED, GENERATOR_FAILED = 0, 1, 5  # 2: InputError, 3: StoreError


def exit_status(answer: Answer) -> int:
    """0 answered, 1 refused, 5 the generator failed and nothing was verified."""
    if not answer.refused:
        return ANSWERED
    return GENERATOR_FAILED if "generator_failure" in answer.trace else REFUSED


def _principals(as_: tuple[str, ...]) -> list[str] | None:
    # As the service does for a key: every principal also reads public documents.
    return list(dict.fromkeys((*as_, PUBLIC))) if as_ else None


@cli.command()
@click.argument("question", required=False, type=UTF8_TEXT)
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print the Answer record as JSON.")
@click.option("--jsonl", "jsonl", metavar="FILE",
              help='Answer {"id","question"} lines from FILE (- for stdin), one JSON line each.')
@click.option("--as", "as_", multiple=True, type=UTF8_TEXT, metavar="PRINCIPAL",
              help="Answer only from documents these principals may read (repeatable).")
@click.option("--mode", "mode", multiple=True, metavar="GATE=MODE",
              help="off|shadow|on for a gate (abstain, contradiction, figures, judge), "
                   "or one mode for all; repeatable.")
@click.option("--generator", "generator_name", metavar="NAME", default=None,
              help="extractive (default, offline), openai or anthropic; default: the "
                   "generator setting.")
@click.option("--base-url", metavar="URL", default=None,
              help="API root of the model server, e.g. http://127.0.0.1:8000/v1 for an "
                   "OpenAI-compatible one (default: the provider's public API).")
@click.option("--model", metavar="NAME", default=None, help="Model for an LLM generator.")
@click.option("--timeout", type=float, metavar="SECONDS", default=None,
              help="Give up on a silent model server after this long.")
@click.option("--answers", type=click.Choice(["quotes", "free", "citations"]), default=None,
              help="How a model generator answers: quotes (default: it chooses passage "
                   "sentences, shown word for word), free (its own sentences, each "
                   "checked) or citations (anthropic only: the stored sentences Claude's "
                   "citations point at, shown word for word).")
@click.option("--repair/--no-repair", default=None,
              help="With --answers free: show a generated sentence the guard does not accept "
                   "as the passage sentence stating its claim, when that one answers "
                   "(default: the repair setting, on); --no-repair drops it.")
@judge_option
@click.option("--verbose", "-v", is_flag=True,
              help="Print every note (an uncalibrated probe threshold) on every call, "
                   "not only the first time for this store.")
@click.pass_context
def ask(
    ctx: click.Context,
    question: str | None,
    db: str | None,
    as_json: bool,
    jsonl: str | None,
    as_: tuple[str, ...],
    mode: tuple[str, ...],
    generator_name: str | None,
    base_url: str | None,
    model: str | None,
    timeout: float | None,
    answers: str | None,
    repair: bool | None,
    judge: str | None,
    verbose: bool,
) -> None:
    """Answer QUESTION from the store, citing the passage behind every sentence.

    With --generator openai or anthropic a model drafts the answer (key from
    OPENAI_API_KEY or ANTHROPIC_API_KEY) and each sentence is shown as soon as the
    guard has verified it. Exit status: 0 answered, 1 refused, 2 bad input, 3 store
    failure, 5 generator failure (see the README).
    """
    if (question is None) == (jsonl is None):
        raise click.UsageError("give either a QUESTION or --jsonl FILE")
    modes = parse_modes(mode)  # a bad --mode fails before anything is read
    with open_tether(ctx, db, judge=judge, repair=repair) as tether:
        gen = _generator(tether, generator_name, base_url=base_url, model=model, timeout=timeout,
                         answers=answers)
        principals = _principals(as_)
        if jsonl is not None:
            items = _read_batch(tether, jsonl)  # every line checked before any note
            _note(tether, verbose=verbose)
            ctx.exit(_ask_batch(tether, items, principals, gen, modes))
        assert question is not None
        check_question(question, max_chars=tether.settings.max_question_chars)
        _note(tether, verbose=verbose)
        if as_json:
            answer = tether.ask(question, principals=principals, generator=gen, modes=modes)
            click.echo(answer_json(answer))
            ctx.exit(exit_status(answer))
        events = tether.stream(question, principals=principals, generator=gen, modes=modes)
        status = _show_stream(events)
    ctx.exit(status)


def _show_stream(events: Iterator[Event]) -> int:
    """Human mode prints each sentence the moment it is verified, then the sources.

    The answer is recorded after its last sentence; when that (or anything after the
    first sentence) fails, the sentences already shown still get their sources, a line
    says the answer was not recorded, and the error follows (exit 3 for the store):
    no sentence is ever left on the screen without the passage that supports it."""
    view, status = TextStream(), ANSWERED
    try:
        for event in events:
            if isinstance(event, Sentence):
                click.echo(view.sentence(event.sentence), nl=False)
            elif isinstance(event, Done):
                click.echo(view.done(event.answer))
                status = exit_status(event.answer)
    except (BrokenPipeError, KeyboardInterrupt):
        raise  # nobody reads on, or the user stopped it: nothing more to show
    except Exception:
        if shown := view.cut_short():
            click.echo(shown)
        raise
    return status


def _note(tether: Tether, *, verbose: bool) -> None:
    """The uncalibrated-threshold note: once per store, or every time with --verbose."""
    threshold = tether.probe_threshold()
    note = threshold.note if verbose else note_once(tether.store, threshold)
    if note:
        click.echo(f"note: {note}", err=True)


def _generator(tether: Tether, name: str | None, **options: Any) -> Generator:
    name = name or tether.settings.generator
    given = {k: v for k, v in options.items() if v is not None}
    if given and name not in LLM_GENERATORS:
        flags = ", ".join("--" + k.replace("_", "-") for k in given)
        verb = "applies" if len(given) == 1 else "apply"
        raise ConfigError(
            f"{flags} {verb} only to a model generator, not {name!r}",
            hint="add --generator openai or --generator anthropic",
        )
    return tether.generator(name, **given)


def _read_batch(tether: Tether, path: str) -> list[tuple[Any, str]]:
    """Every line validated before any is answered, so bad input produces no partial output."""
    with open_input(path) as stream:
        items = []
        for number, obj in read_json_lines(stream):
            where = f"line {number}"
            if "id" not in obj:
                raise InputError(f"{where}: missing key 'id'")
            question = require(obj, "question", str, where=where)
            try:
                check_question(question, max_chars=tether.settings.max_question_chars)
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from exc
            items.append((obj["id"], question))
    return items


def _ask_batch(
    tether: Tether,
    items: list[tuple[Any, str]],
    principals: list[str] | None,
    gen: Generator | None = None,
    modes: dict[str, str] | None = None,
) -> int:
    """Answer each line; the exit status is 5 when the generator failed on some line."""
    status = ANSWERED
    for item_id, question in items:
        answer = tether.ask(question, principals=principals, generator=gen, modes=modes)
        click.echo(answer_json(answer, id=item_id))
        if exit_status(answer) == GENERATOR_FAILED:
            status = GENERATOR_FAILED
    return status
