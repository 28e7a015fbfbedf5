"""Cross-site rules of the keyless service: only the operator's own pages may talk to it.

Without API keys the service trusts whoever reaches it on loopback (``tether serve``
binds nothing else). A web page on another origin open in the operator's browser
reaches loopback too, so without keys every request must pass these rules (ADR 0045):

- ``Host`` names a loopback address or name (``localhost``, ``127.0.0.0/8``, ``[::1]``,
  any port) or the literal address the connection arrived at; else **421**. A
  DNS-rebinding page reaches the server under the attacker's name, never these.
- ``Origin``, when a browser sends one, is the server's own origin
  (``scheme://Host``); else **403**.
- ``Sec-Fetch-Site: cross-site`` or ``same-site`` (another port of the same host is
  ``same-site``) is refused with **403**, except a top-level or frame navigation that
  only reads (``GET``/``HEAD`` with ``Sec-Fetch-Mode: navigate``): its answer goes to
  a browsing context the other page cannot read.
- A ``POST`` (the one writing method a page may send without a CORS preflight) must
  be a request no page can send without one: a JSON ``Content-Type``, or an
  ``X-Tether-Request`` header (multipart uploads from scripts and ``curl``), or an
  ``Authorization`` header; else **403**. The server approves no preflight, so such a
  request from another origin never leaves the browser. ``PUT``, ``PATCH`` and
  ``DELETE`` always need a preflight.

With keys configured none of this applies: the key is the authority. Another origin
cannot read the key, cannot send an ``Authorization`` header without a preflight the
server never approves, and a rebinding page holds no key either; while the server
itself may stand behind a proxy under any name and scheme.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from .problems import problem_body, send_problem

__all__ = ["REQUEST_HEADER", "CrossSiteMiddleware", "refusal"]

# The custom header a script or a command-line client adds to a multipart upload.
REQUEST_HEADER = "X-Tether-Request"
LOOPBACK_NAMES = frozenset({"localhost"})
# Methods a page may send cross-origin without a preflight that can change state.
PREFLIGHT_FREE_WRITES = frozenset({"POST"})
# Headers a page cannot set on a cross-origin request without a preflight.
NON_SIMPLE_HEADERS = (REQUEST_HEADER.lower().encode(), b"authorization")
# Content types (essence) that make a request non-simple and that a route reads.
_JSON_TYPE = re.compile(r"^application/(?:[\w.+-]+\+)?json$")
# Sec-Fetch-Site values that name another origin.
OTHER_SITES = frozenset({"cross-site", "same-site"})
# Requests from another origin that are allowed: reading navigations.
NAVIGATING_READS = frozenset({"GET", "HEAD"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_HOST = re.compile(r"^(?P<name>\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::(?P<port>\d{1,5}))?$")
_ORIGIN = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?P<host>[^/?#@]+)$")


@dataclass(frozen=True)
class Refusal:
    status: int
    slug: str
    detail: str
    hint: str | None = None


def _split_host(value: str) -> tuple[str, int | None] | None:
    """(host name or address, port) of a ``Host`` value; ``None`` when malformed."""
    found = _HOST.match(value.strip())
    if found is None:
        return None
    port = found.group("port")
    return found.group("name").lower(), (int(port) if port else None)


def _is_loopback(name: str) -> bool:
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def _arrived_at(scope: Scope) -> str | None:
    """The address the connection arrived at, as a ``Host`` would write it."""
    server = scope.get("server")
    if not server or not isinstance(server[0], str):
        return None
    address = server[0].lower()
    return f"[{address}]" if ":" in address else address


def _host_refusal(host: str | None, scope: Scope) -> Refusal | None:
    parts = _split_host(host) if host is not None else None
    if parts is not None and (_is_loopback(parts[0]) or parts[0] == _arrived_at(scope)):
        return None
    return Refusal(421, "misdirected-request",
                   f"this server answers only requests for its loopback address, not Host {host!r}",
                   "without API keys the service is for this machine only: use "
                   "http://127.0.0.1:PORT, or add a key with 'tether keys add'")


def _origin_refusal(origin: str, host: str, scheme: str) -> Refusal | None:
    found = _ORIGIN.match(origin.strip().lower())
    own = _split_host(host)
    if found is not None and own is not None:
        theirs = _split_host(found.group("host"))
        default = _DEFAULT_PORTS.get(scheme)
        if (theirs is not None and found.group("scheme") == scheme and theirs[0] == own[0]
                and (theirs[1] or _DEFAULT_PORTS.get(found.group("scheme"))) == (own[1] or default)):
            return None
    return Refusal(403, "cross-site-request",
                   f"a request from another origin ({origin!r}) is refused",
                   "without API keys only this server's own pages may use it")


def _fetch_site_refusal(headers: Mapping[bytes, bytes], method: str) -> Refusal | None:
    site = headers.get(b"sec-fetch-site", b"").decode("latin-1").strip().lower()
    if site not in OTHER_SITES:
        return None
    mode = headers.get(b"sec-fetch-mode", b"").decode("latin-1").strip().lower()
    if method in NAVIGATING_READS and mode == "navigate":
        return None
    return Refusal(403, "cross-site-request",
                   f"a request a browser marked {site} is refused",
                   "without API keys only this server's own pages may use it")


def _simple_write_refusal(headers: Mapping[bytes, bytes], method: str) -> Refusal | None:
    if method not in PREFLIGHT_FREE_WRITES:
        return None
    if any(name in headers for name in NON_SIMPLE_HEADERS):
        return None
    content_type = headers.get(b"content-type", b"").decode("latin-1")
    if _JSON_TYPE.match(content_type.split(";")[0].strip().lower()):
        return None
    return Refusal(403, "cross-site-request",
                   f"a {method} must carry a JSON body or the {REQUEST_HEADER} header",
                   f"send '{REQUEST_HEADER}: 1' with multipart uploads (curl -H "
                   f"'{REQUEST_HEADER}: 1'): a page on another site cannot send it")


def refusal(scope: Scope) -> Refusal | None:
    """Why a keyless request is refused, or ``None`` when every rule lets it through."""
    headers = dict(scope.get("headers", ()))
    method = scope.get("method", "GET")
    host_value = headers.get(b"host")
    host = host_value.decode("latin-1") if host_value is not None else None
    found = _host_refusal(host, scope)
    if found is not None or host is None:
        return found
    origin = headers.get(b"origin")
    if origin is not None:
        found = _origin_refusal(origin.decode("latin-1"), host, scope.get("scheme", "http"))
    return (found or _fetch_site_refusal(headers, method)
            or _simple_write_refusal(headers, method))


class CrossSiteMiddleware:
    """Pure ASGI: applies ``refusal`` while ``keyless()`` holds (checked per request, so
    the first key added to a running server hands authority to keys at once)."""

    def __init__(self, app: ASGIApp, *, keyless: Callable[[], bool]) -> None:
        self.app = app
        self.keyless = keyless

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.keyless():
            found = refusal(scope)
            if found is not None:
                body = problem_body(found.status, found.slug, found.detail, hint=found.hint)
                await send_problem(send, found.status, body)
                return
        await self.app(scope, receive, send)
