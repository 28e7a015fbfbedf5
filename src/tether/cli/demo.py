"""``tether demo``: build a store from the bundled corpus and answer a few questions."""

from __future__ import annotations

import json
import os
import shlex
import tempfile
from importlib.resources import files
from pathlib import Path

import click

from ..config import load_settings
from ..facade import Tether
from ..store import is_postgres_url
from ._common import cli
from .render import answer_text


def demo_dir() -> Path:
    return Path(str(files("tether") / "demo"))


def build_demo_store(db: str | os.PathLike[str]) -> Tether:
    """A Tether over the bundled corpus at ``db``, a SQLite path or a ``postgresql://``
    URL (re-ingesting unchanged files is a no-op)."""
    corpus = demo_dir() / "corpus"
    tether = Tether(db, settings=load_settings())
    for result in tether.ingest(corpus, manifest=corpus / "manifest.json"):
        if result.status == "failed":
            raise click.ClickException(f"demo corpus: {result.path}: {result.error}")
    return tether


@cli.command()
@click.option("--db", type=click.Path(dir_okay=False),
              help="Keep the demo store here, a SQLite file or a postgresql:// URL"
                   " (default: a temporary folder).")
@click.argument("questions", nargs=-1)
def demo(db: str | None, questions: tuple[str, ...]) -> None:
    """Ingest the bundled chemical-safety corpus and answer sample QUESTIONS."""
    asked = list(questions) or json.loads((demo_dir() / "demo_questions.json").read_text("utf-8"))
    with tempfile.TemporaryDirectory(prefix="tether-demo-") as tmp:
        # A URL stays text: a Path would fold its "//" into a SQLite file name.
        location: str | Path = db if db and is_postgres_url(db) else Path(db or Path(tmp) / "demo.db")
        with build_demo_store(location) as tether:
            counts = tether.store.counts()
            where = tether.store.location if db else "a temporary folder, removed when the demo ends"
            click.echo(f"Demo store: {counts['documents']} documents, {counts['passages']} passages"
                       f" ({where})\n")
            for question in asked:
                click.echo(click.style(f"Q: {question}", bold=True))
                click.echo(answer_text(tether.ask(question)))
                click.echo()
            click.echo(next_steps(tether.store.location if db else None, asked[0]))


def next_steps(db: str | None, question: str) -> str:
    """What a user wants after the demo: its store again, their own folder, the web reader.
    ``db`` is the kept store as it names itself (a URL's password masked), or None."""
    first = (f"tether ask --db {shlex.quote(db)} {shlex.quote(question)}"
             if db else "tether demo --db demo.db    # keep the demo store")
    return "\n".join([
        click.style("Next:", bold=True),
        f"  {first}",
        "  tether ingest ./my-docs --db my.db && tether ask --db my.db \"your question\"",
        "  pip install '.[serve]' && tether serve --db my.db    # the web reader on http://127.0.0.1:8000/",
    ])
