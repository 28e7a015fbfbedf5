"""``tether serve``: the HTTP service on one store (extra ``tether[serve]``)."""

from __future__ import annotations

import ipaddress
import logging
import socket

import click

from ..errors import InputError, MissingExtra
from ._common import cli, db_option, judge_option, open_tether


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, bound before uvicorn starts so ``--port 0`` can be reported."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this. Without it a keep-alive response written in
    # two parts (headers, body) waits for the client's delayed ACK: ~40 ms per request,
    # and SSE events held back the same way.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _log_access() -> None:
    """The access log's lines go to stderr at once, whatever the root logger's level."""
    from ..service.accesslog import ACCESS_LOGGER

    handler = logging.StreamHandler()  # stderr, flushed per line
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logger = logging.getLogger(ACCESS_LOGGER)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


@cli.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port (0: any free port, printed on start).")
@click.option("--access-log", is_flag=True,
              help="One line per request on stderr: method, path, status, ms, key name.")
@judge_option
@click.pass_context
def serve(
    ctx: click.Context, db: str | None, host: str, port: int, access_log: bool, judge: str | None
) -> None:
    """Serve answers over HTTP: SSE streams, verify, resolve, documents, /metrics."""
    try:
        import uvicorn

        from ..service import create_app
        from ..service.deadlines import header_timeout_protocol
        from ..service.isolate import warm
    except ImportError as exc:
        raise MissingExtra("tether serve", "serve") from exc
    with open_tether(ctx, db, judge=judge) as tether:
        keys = tether.store.keys()
        if not keys and not is_loopback(host):
            raise InputError(
                f"no API keys configured: refusing to serve {host} anonymously",
                hint="add one with 'tether keys add NAME --principal P', or use --host 127.0.0.1",
            )
        app = create_app(tether, access_log=access_log)  # its settings checked before binding
        sock = bind(host, port)
        warm()  # the process heavy requests are forked from, ready before the first one
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        if keys:
            click.echo(f"tether: {len(keys)} API key(s) configured; every request needs "
                       "'Authorization: Bearer KEY'", err=True)
        else:
            click.echo("tether: no API keys configured; serving anonymously as principal "
                       "'public' on loopback only", err=True)
        # Last, so a supervisor reading the output knows everything above is said.
        click.echo(f"tether: serving {tether.store.location} on http://{shown}:{bound}", err=True)
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        if access_log:
            _log_access()
        # uvicorn's own access lines are off: they are INFO under a WARNING server, and
        # they cannot name the API key; the app's access log does (never the key itself).
        # The h11 protocol with a header timer: uvicorn alone never cuts a client that
        # trickles its headers (ADR 0023).
        config = uvicorn.Config(
            app, log_level="warning", access_log=False,
            timeout_graceful_shutdown=5, lifespan="off",
            http=header_timeout_protocol(tether.settings.header_timeout_s),
        )
        uvicorn.Server(config).run(sockets=[sock])
