"""``tether verify``: the guard on its own, for any answer and any passages."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ..config import Settings, default_db_location
from ..errors import InputError
from ..facade import Tether, verify_answer
from ..guard.reader import bound_judge
from ..judges import load_judge
from ..judges.base import Judge
from ..modes import parse_modes
from ..workers import default_workers
from ._common import (
    cli,
    command_settings,
    db_option,
    judge_option,
    parse_json_object,
    read_json_lines,
    read_text,
    require,
)
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


def _calibrated_judge(settings: Settings, db: str | None) -> Judge | None:
    """The judge, under the calibration the store (``--db``, else the default store
    when there is one) holds for its model; pinned ``judge_threshold`` wins."""
    judge = load_judge(settings)
    default = default_db_location()
    if judge is None or (db is None and isinstance(default, Path) and not default.exists()):
        return judge
    with Tether(db, settings=settings, create=False) as tether:
        return bound_judge(judge, tether.store.get_meta)


def _judge_field(judge: Judge | None) -> dict[str, str]:
    """``{"judge": ...}``: which judge read the verdicts, under which thresholds."""
    if judge is None:
        return {}
    describe = getattr(judge, "describe", None)
    return {"judge": describe() if callable(describe) else getattr(judge, "checker", "judge")}


@cli.command()
@click.option("--jsonl", is_flag=True, help="One request per line (with an 'id'), one result line each.")
@judge_option
@db_option
@click.option("--mode", "mode", multiple=True, metavar="GATE=MODE",
              help="off|shadow|on for a gate (figures, contradiction, judge), or one mode "
                   "for all; repeatable.")
@click.pass_context
def verify(
    ctx: click.Context, jsonl: bool, judge: str | None, db: str | None, mode: tuple[str, ...]
) -> None:
    """Check sentences against passages, read as JSON from stdin.

    Input: {"passages": [{"id", "text"}], "sentences": [...]} or "answer": "free text".
    With a judge (--judge or the judge setting) every verdict also goes through it, under
    the thresholds the store (--db, or the default store) calibrated for that model.
    """
    settings = command_settings(ctx, judge=judge)
    modes = parse_modes(mode)
    workers = settings.verify_workers or default_workers()
    stdin = sys.stdin
    if jsonl:
        requests = []
        for number, obj in read_json_lines(stdin):
            where = f"line {number}"
            if "id" not in obj:
                raise InputError(f"{where}: missing key 'id'")
            requests.append((obj["id"], _verify_request(obj, where=where)))
        reader = _calibrated_judge(settings, db)  # loaded once every line is known good
        for item_id, request in requests:
            result = verify_answer(settings=settings, modes=modes, judge=reader, workers=workers,
                                   **request)
            click.echo(json_line({"id": item_id, "sentences": result, **_judge_field(reader)}))
        return
    text = read_text(stdin)
    if not text.strip():
        raise InputError("no JSON on stdin", hint='pipe {"passages": [...], "sentences": [...]} in')
    request = _verify_request(parse_json_object(text, where="stdin"), where="stdin")
    reader = _calibrated_judge(settings, db)
    result = verify_answer(settings=settings, modes=modes, judge=reader, workers=workers, **request)
    out = {"sentences": result, **_judge_field(reader)}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
    click.echo()
