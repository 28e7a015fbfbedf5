"""``tether ask``: one question, or a JSON-lines batch answered in one process."""

from __future__ import annotations

from typing import Any

import click

from ..errors import ConfigError, InputError
from ..facade import Tether
from ..generate import Generator
from ..generate.llm import LLM_GENERATORS
from ..modes import parse_modes
from ..pipeline import Done, Sentence
from ..records import PUBLIC
from ..retrieve.search import check_question
from ._common import cli, db_option, open_input, open_tether, read_json_lines, require
from .render import TextStream, answer_json


def _principals(as_: tuple[str, ...]) -> list[str] | None:
    # As the service does for a key: every principal also reads public documents.
    return list(dict.fromkeys((*as_, PUBLIC))) if as_ else None


@cli.command()
@click.argument("question", required=False)
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print the Answer record as JSON.")
@click.option("--jsonl", "jsonl", metavar="FILE",
              help='Answer {"id","question"} lines from FILE (- for stdin), one JSON line each.')
@click.option("--as", "as_", multiple=True, metavar="PRINCIPAL",
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
) -> None:
    """Answer QUESTION from the store, citing the passage behind every sentence.

    With --generator openai or anthropic a model drafts the answer (key from
    OPENAI_API_KEY or ANTHROPIC_API_KEY) and each sentence is shown as soon as the
    guard has verified it.
    """
    if (question is None) == (jsonl is None):
        raise click.UsageError("give either a QUESTION or --jsonl FILE")
    modes = parse_modes(mode)  # a bad --mode fails before anything is read
    with open_tether(ctx, db) as tether:
        gen = _generator(tether, generator_name, base_url=base_url, model=model, timeout=timeout)
        threshold = tether.probe_threshold()
        if threshold.note:  # once per run, however many questions follow
            click.echo(f"note: {threshold.note}", err=True)
        principals = _principals(as_)
        if jsonl is not None:
            _ask_batch(tether, jsonl, principals, gen, modes)
            return
        assert question is not None
        if as_json:
            answer = tether.ask(question, principals=principals, generator=gen, modes=modes)
            click.echo(answer_json(answer))
            return
        # Human mode prints each sentence the moment it is verified, then the sources.
        view = TextStream()
        for event in tether.stream(question, principals=principals, generator=gen, modes=modes):
            if isinstance(event, Sentence):
                click.echo(view.sentence(event.sentence), nl=False)
            elif isinstance(event, Done):
                click.echo(view.done(event.answer))


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


def _ask_batch(
    tether: Tether,
    path: str,
    principals: list[str] | None,
    gen: Generator | None = None,
    modes: dict[str, str] | None = None,
) -> None:
    # Validate every line before answering any, so bad input produces no partial output.
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
    for item_id, question in items:
        answer = tether.ask(question, principals=principals, generator=gen, modes=modes)
        click.echo(answer_json(answer, id=item_id))
