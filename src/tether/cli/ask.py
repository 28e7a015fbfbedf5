"""``tether ask``: one question, or a JSON-lines batch answered in one process."""

from __future__ import annotations

import click

from ..answer import Tether
from ..errors import InputError
from ..records import PUBLIC
from ..render import answer_json, answer_text
from ._common import cli, db_option, open_input, open_tether, read_json_lines, require


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
@click.pass_context
def ask(
    ctx: click.Context,
    question: str | None,
    db: str | None,
    as_json: bool,
    jsonl: str | None,
    as_: tuple[str, ...],
) -> None:
    """Answer QUESTION from the store, citing the passage behind every sentence."""
    if (question is None) == (jsonl is None):
        raise click.UsageError("give either a QUESTION or --jsonl FILE")
    with open_tether(ctx, db) as tether:
        if jsonl is not None:
            _ask_batch(tether, jsonl, _principals(as_))
            return
        assert question is not None
        answer = tether.ask(question, principals=_principals(as_))
        click.echo(answer_json(answer) if as_json else answer_text(answer))


def _ask_batch(tether: Tether, path: str, principals: list[str] | None) -> None:
    # Validate every line before answering any, so bad input produces no partial output.
    with open_input(path) as stream:
        items = []
        for number, obj in read_json_lines(stream):
            where = f"line {number}"
            if "id" not in obj:
                raise InputError(f"{where}: missing key 'id'")
            items.append((obj["id"], require(obj, "question", str, where=where)))
    for item_id, question in items:
        click.echo(answer_json(tether.ask(question, principals=principals), id=item_id))
