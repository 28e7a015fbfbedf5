"""``tether mcp``: the MCP server on one store, over stdio or streamable HTTP (extra ``tether[mcp]``)."""

from __future__ import annotations

import logging

import click

from ..errors import InputError, MissingExtra
from ._common import cli, db_option, judge_option, open_tether
from .serve import bind, is_loopback

# The SDK's own log lines (a session opened, a tool's input refused) are for debugging;
# a tool's error goes back to the client in its result.
_QUIET_LOGGERS = ("mcp", "httpx2", "uvicorn.error")


@cli.command("mcp")
@db_option
@click.option("--http", "http", is_flag=True,
              help="Serve streamable HTTP on loopback (at /mcp) instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Loopback address to listen on with --http.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="Port with --http (0: any free port, printed on start).")
@click.option("--key", envvar="TETHER_API_KEY", default=None, metavar="KEY",
              help="API key whose principals the server acts as (default: $TETHER_API_KEY; "
                   "needed once the store has keys; without keys the server acts as 'public').")
@judge_option
@click.pass_context
def mcp_command(ctx: click.Context, db: str | None, http: bool, host: str, port: int,
                key: str | None, judge: str | None) -> None:
    """Serve the store to MCP clients: tools ask, verify, resolve, search; documents as resources."""
    try:
        import anyio
        import uvicorn

        from ..mcp.access import Caller
        from ..mcp.server import build_server
        from ..mcp.stdio import run_stdio
    except ImportError as exc:
        raise MissingExtra("tether mcp", "mcp") from exc
    if http and not is_loopback(host):
        raise InputError(f"the MCP server listens on loopback only, not {host}",
                         hint="use --host 127.0.0.1 (or ::1), or stdio")
    with open_tether(ctx, db, judge=judge) as tether:
        caller = Caller(tether, key)
        principals = caller.principals()  # a missing or unknown key fails here, exit 2
        server = build_server(tether, caller)
        for name in _QUIET_LOGGERS:
            logging.getLogger(name).setLevel(logging.WARNING)
        who = ", ".join(principals)
        if not http:
            click.echo(f"tether: MCP on stdio for {tether.store.location}, as {who}", err=True)
            anyio.run(run_stdio, server)
            return
        sock = bind(host, port)
        shown = f"[{host}]" if ":" in host else host
        # The SDK refuses a Host or Origin that is not loopback (DNS rebinding) for these hosts.
        app = server.streamable_http_app(host=host.strip("[]"))
        click.echo(f"tether: MCP over streamable HTTP for {tether.store.location}, as {who}, "
                   f"on http://{shown}:{sock.getsockname()[1]}/mcp", err=True)
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                timeout_graceful_shutdown=5)
        uvicorn.Server(config).run(sockets=[sock])
