"""``tether keys``: API keys for the HTTP service (only their hashes are stored)."""

from __future__ import annotations

import click

from ..errors import InputError, NotFound
from ..ops.apikeys import check_principal, hash_key, new_key
from ._common import UTF8_TEXT, cli, db_option, open_tether
from .render import printable


@cli.group()
def keys() -> None:
    """Manage API keys: with any key stored, the service requires one."""


@keys.command("add")
@click.argument("name", type=UTF8_TEXT)
@db_option
@click.option("--principal", "principals", multiple=True, required=True, type=UTF8_TEXT,
              metavar="P",
              help="A principal the key acts as (repeatable); documents list these in --acl.")
@click.pass_context
def add(ctx: click.Context, name: str, db: str | None, principals: tuple[str, ...]) -> None:
    """Create key NAME and print it once (it cannot be shown again)."""
    if not name.strip():
        raise InputError("a key needs a non-empty name")
    for principal in principals:
        check_principal(principal)
    key = new_key()
    with open_tether(ctx, db, create=True) as tether:
        tether.store.add_key(name, list(dict.fromkeys(principals)), hash_key(key))
    click.echo(key)
    click.echo(f"key {printable(repr(name))} added for {printable(', '.join(principals))}; "
               "store it now, it is not shown again", err=True)


@keys.command("list")
@db_option
@click.pass_context
def list_(ctx: click.Context, db: str | None) -> None:
    """List key names, their principals and when they were created."""
    with open_tether(ctx, db) as tether:
        found = tether.store.keys()
    if not found:
        click.echo("no API keys (the service serves anonymously, on loopback only)", err=True)
    for key in found:
        click.echo(f"{printable(key.name)}\t{printable(','.join(key.principals))}\t{key.created_at}")


@keys.command("revoke")
@click.argument("name", type=UTF8_TEXT)
@db_option
@click.pass_context
def revoke(ctx: click.Context, name: str, db: str | None) -> None:
    """Delete key NAME; requests with it fail from now on."""
    with open_tether(ctx, db) as tether:
        if not tether.store.revoke_key(name):
            raise NotFound(f"no API key named {name!r}", hint="see 'tether keys list'")
    click.echo(f"key {printable(repr(name))} revoked", err=True)
