"""``tether ingest``: files and folders into the store, with a progress bar and a summary."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from ..errors import InputError
from ..ingest.sources import (
    IngestResult,
    Metadata,
    ingest_file,
    iter_files,
    load_manifest,
)
from ..records import KINDS
from ._common import cli, db_option, open_tether


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@db_option
@click.option("--source", help="Source URL or name (single file only; default: the file's path).")
@click.option("--title", help="Title (single file only; default: from the document).")
@click.option("--license", "license_", default="unknown", show_default=True, help="License of the text.")
@click.option("--fetched-at", help="When the text was fetched, ISO date (default: today).")
@click.option("--kind", type=click.Choice(KINDS), default="original", show_default=True,
              help="Provenance: original text, or text derived by a process.")
@click.option("--process", help="What produced derived text, e.g. 'OCR: tesseract 5'.")
@click.option("--acl", multiple=True, metavar="PRINCIPAL",
              help="Principals allowed to read (repeatable; default: public).")
@click.option("--manifest", type=click.Path(dir_okay=False),
              help='JSON {"documents": [{"path", "source", "title", ...}]} with per-file metadata.')
@click.pass_context
def ingest(
    ctx: click.Context,
    paths: tuple[str, ...],
    db: str | None,
    source: str | None,
    title: str | None,
    license_: str,
    fetched_at: str | None,
    kind: str,
    process: str | None,
    acl: tuple[str, ...],
    manifest: str | None,
) -> None:
    """Ingest PATHS (.txt, .md, .html, .pdf files, or folders of them)."""
    files = list(iter_files(paths))
    if not files:
        raise InputError(
            "no ingestible files found in " + ", ".join(paths),
            hint="supported: .txt .md .html .pdf",
        )
    if (source or title) and len(files) > 1:
        raise click.UsageError("--source and --title name one document; use --manifest for several")
    base = Metadata(source=source, title=title, license=license_, fetched_at=fetched_at,
                    kind=kind, process=process, acl=acl or Metadata().acl).validated()
    entries = load_manifest(manifest) if manifest else {}
    err = Console(stderr=True)
    results: list[IngestResult] = []
    with open_tether(ctx, db, create=True) as tether, Progress(
        TextColumn("[progress.description]{task.description}"), BarColumn(),
        MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True,
        disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task("ingesting", total=len(files))
        for path in files:
            progress.update(task, description=f"ingesting {path.name[:40]}")
            meta = base.merged(entries.get(Path(path).resolve(), {}))
            results.append(ingest_file(tether.store, path, meta, settings=tether.settings))
            progress.advance(task)
    counts = Counter(r.status for r in results)
    for result in results:
        if result.status == "failed":
            click.echo(f"failed: {result.path}: {result.error}", err=True)
        elif result.flags:
            click.echo(f"flagged: {result.path}: instruction-like text ({', '.join(result.flags)})", err=True)
    summary = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ingested", "updated", "unchanged", "failed"))
    chars = sum(r.chars for r in results)
    click.echo(f"{summary} ({len(results)} files, {chars:,} characters of text) → {tether.store.location}")
    if counts.get("failed"):
        ctx.exit(1)
