"""``tether ingest``: files and folders into the store, with a progress bar and a summary."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape as escape_markup
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)

from ..errors import InputError
from ..ingest.batch import collect_files
from ..ingest.files import SKIP_REASONS, IngestResult, Metadata, Skipped
from ..records import KINDS
from ._common import UTF8_TEXT, cli, db_option, open_tether
from .render import printable


@cli.command()
@click.argument("paths", nargs=-1, required=True)
@db_option
@click.option("--source", type=UTF8_TEXT, help="Source URL or name (single file only; default: the file's path).")
@click.option("--title", type=UTF8_TEXT, help="Title (single file only; default: from the document).")
@click.option("--license", "license_", type=UTF8_TEXT, default="unknown", show_default=True, help="License of the text.")
@click.option("--fetched-at", type=UTF8_TEXT, help="When the text was fetched, ISO date (default: today).")
@click.option("--kind", type=click.Choice(KINDS), default="original", show_default=True,
              help="Provenance: original text, or text derived by a process.")
@click.option("--process", type=UTF8_TEXT, help="What produced derived text, e.g. 'OCR: tesseract 5'.")
@click.option("--acl", multiple=True, type=UTF8_TEXT, metavar="PRINCIPAL",
              help="Principals allowed to read (repeatable; default: public).")
@click.option("--manifest", type=click.Path(dir_okay=False),
              help='JSON {"documents": [{"path", "source", "title", ...}]} with per-file metadata.')
@click.option("--verify", is_flag=True,
              help="Read every file the store has seen and compare its bytes (default: trust"
                   " an unchanged size and modification time).")
@click.option("--workers", type=click.IntRange(min=0), default=None,
              help="Processes that extract files (default: ingest_workers, 0 = one per core).")
@click.option("--verbose", "-v", is_flag=True,
              help="List each skipped path with its reason, the PDF reader's warnings, and"
                   " the flags of unchanged files.")
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
    verify: bool,
    workers: int | None,
    verbose: bool,
) -> None:
    """Ingest PATHS (.txt, .md, .html, .pdf files, or folders of them)."""
    base = Metadata(source=source, title=title, license=license_, fetched_at=fetched_at,
                    kind=kind, process=process, acl=acl or Metadata().acl)
    batch = collect_files(paths, base, manifest=manifest or None)
    skipped, files = list(batch.skipped), batch.files
    if not files and not batch.failures:
        raise InputError(
            "no ingestible files found in " + ", ".join(paths)
            + (f" (skipped: {_skip_counts(skipped)})" if skipped else ""),
            hint="supported: .txt .md .html .pdf; --verbose lists what was skipped",
        )
    if (source or title) and len(files) > 1:
        raise click.UsageError("--source and --title name one document; use --manifest for several")
    base.validated()
    err = Console(stderr=True)
    with open_tether(ctx, db, create=True) as tether, Progress(
        TextColumn("[progress.description]{task.description}"), BarColumn(),
        _CountColumn(), TimeElapsedColumn(), console=err, transient=True,
        disable=not err.is_terminal,
    ) as progress:
        files_task = progress.add_task("files", total=len(files))
        bytes_task = progress.add_task("bytes", total=sum(_size(p) for p in files), unit="bytes")

        def done(path: Path, result: IngestResult, size: int) -> None:
            # The name is a value in rich markup: escaped for the terminal and for rich.
            name = escape_markup(printable(path.name[:40]))
            progress.update(files_task, advance=1, description=f"ingested {name}")
            progress.update(bytes_task, advance=size)

        results = tether.ingest_batch(batch, progress=done, workers=workers, verify=verify)
        location = tether.store.location
    # An empty file was read (once) and held nothing: counted with the skipped entries.
    skipped += [Skipped(r.path, "empty", "no text") for r in results if r.status == "empty"]
    results = [r for r in results if r.status != "empty"]
    heard = [(r.path, line) for r in results for line in r.warnings] if verbose else []
    _report(results, skipped, heard, verbose=verbose)
    counts = Counter(r.status for r in results)
    summary = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ingested", "updated", "unchanged", "failed"))
    chars = sum(r.chars for r in results)
    why = f"{_skip_counts(skipped)}; " if skipped else ""
    files_read = f"{len(results)} file" + ("" if len(results) == 1 else "s")
    click.echo(f"{summary}, {len(skipped)} skipped ({why}{files_read}, {chars:,} characters"
               f" of text) → {printable(location)}")
    if counts.get("failed"):
        ctx.exit(1)


class _CountColumn(ProgressColumn):
    """Each row counted in its own unit: files as "61/165", bytes as "1.2/3.4 MB"."""

    def __init__(self) -> None:
        super().__init__()
        self._files, self._bytes = MofNCompleteColumn(), DownloadColumn()

    def render(self, task: Task) -> Any:
        return (self._bytes if task.fields.get("unit") == "bytes" else self._files).render(task)


def _report(
    results: list[IngestResult],
    skipped: list[Skipped],
    heard: list[tuple[str, str]],
    *,
    verbose: bool,
) -> None:
    """One line on stderr per failure, flag and unreadable folder; under --verbose,
    one per skipped path and per warning of the PDF reader."""
    for result in results:
        if result.status == "failed":
            click.echo(f"failed: {printable(result.path)}: {printable(result.error)}", err=True)
        elif result.flags and (verbose or result.status != "unchanged"):  # said when it was new
            click.echo(f"flagged: {printable(result.path)}: instruction-like text"
                       f" ({', '.join(result.flags)})", err=True)
    for skip in skipped:
        if verbose or skip.reason == "unreadable folder":  # a folder unread is news
            why = f"{skip.reason}: {skip.detail}" if skip.detail else skip.reason
            click.echo(f"skipped: {printable(skip.path)} ({printable(why)})", err=True)
    for path, line in heard:
        click.echo(f"warning: {printable(path)}: {printable(line)}", err=True)


def _skip_counts(skipped: list[Skipped]) -> str:
    """``3 unsupported type, 1 hidden``, in the order of SKIP_REASONS."""
    counts = Counter(s.reason for s in skipped)
    return ", ".join(f"{counts[r]} {r}" for r in SKIP_REASONS if counts[r])


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
