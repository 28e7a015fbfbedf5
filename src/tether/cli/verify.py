"""``tether verify``: the guard on its own, for any answer and any passages."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..config import load_settings
from ..errors import InputError
from ..facade import verify_answer
from ._common import cli, parse_json_object, read_json_lines, read_text, require
from .render import json_line


def _verify_request(obj: dict[str, Any], *, where: str) -> dict[str, Any]:
    passages_in = require(obj, "passages", list, where=where)
    passages: dict[str, str] = {}
    for i, passage in enumerate(passages_in):
        if not isinstance(passage, dict):
            raise InputError(f"{where}: passages[{i}] must be an object with 'id' and 'text'")
        pid = passage.get("id")
        text = require(passage, "text", str, where=f"{where}: passages[{i}]")
        if not isinstance(pid, (str, int)) or isinstance(pid, bool):
            raise InputError(f"{where}: passages[{i}] needs an 'id' (string)")
        passages[str(pid)] = text
    if "sentences" in obj:
        sentences = require(obj, "sentences", list, where=where)
        if not all(isinstance(s, str) for s in sentences):
            raise InputError(f"{where}: 'sentences' must be a list of strings")
        return {"passages": passages, "sentences": sentences}
    if "answer" in obj:
        return {"passages": passages, "answer": require(obj, "answer", str, where=where)}
    raise InputError(f"{where}: needs 'sentences' (a list) or 'answer' (free text)")


@cli.command()
@click.option("--jsonl", is_flag=True, help="One request per line (with an 'id'), one result line each.")
@click.pass_context
def verify(ctx: click.Context, jsonl: bool) -> None:
    """Check sentences against passages, read as JSON from stdin.

    Input: {"passages": [{"id", "text"}], "sentences": [...]} or "answer": "free text".
    """
    settings = load_settings(ctx.obj.get("config"))
    stdin = click.get_text_stream("stdin")
    if jsonl:
        requests = []
        for number, obj in read_json_lines(stdin):
            where = f"line {number}"
            if "id" not in obj:
                raise InputError(f"{where}: missing key 'id'")
            requests.append((obj["id"], _verify_request(obj, where=where)))
        for item_id, request in requests:
            result = verify_answer(settings=settings, **request)
            click.echo(json_line({"id": item_id, "sentences": result}))
        return
    text = read_text(stdin)
    if not text.strip():
        raise InputError("no JSON on stdin", hint='pipe {"passages": [...], "sentences": [...]} in')
    request = _verify_request(parse_json_object(text, where="stdin"), where="stdin")
    result = verify_answer(settings=settings, **request)
    json.dump({"sentences": result}, sys.stdout, ensure_ascii=False, indent=2)
    click.echo()
