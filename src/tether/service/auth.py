"""The principals a request acts as, from its API key (recipe in ``tether.apikeys``).

The key is found by an index lookup on its SHA-256, so the presented key is never
compared byte by byte with a stored secret: any timing difference concerns a digest,
which a caller cannot steer towards a match without already knowing a key.

With no keys in the store the service is anonymous: every caller is ``public`` (and
``tether serve`` then binds loopback only). Once any key exists, every request except
``/healthz``, ``/v1/access`` and reads of the web page's own files and of the API docs
page's (``/docs``) needs ``Authorization: Bearer KEY``.
Keys are looked up per request, so a revoked key stops working at once, and a key added
to a running anonymous server closes it to anonymous callers at once. Every
authenticated caller also holds ``public``: public documents are readable by everyone.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from ..ops.apikeys import hash_key
from ..records import PUBLIC
from ..store import Store
from .problems import Unauthorized, problem, send_problem

__all__ = ["AuthMiddleware", "KeyRing", "principals_of"]

# Open without a key: liveness checks come from load balancers that carry none, the
# web reader asks /v1/access whether to ask for a key first, and neither answer says
# anything about the collection.
OPEN_PATHS = frozenset({"/healthz", "/v1/access"})
_READS = frozenset({"GET", "HEAD"})


class KeyRing:
    """Keys as the store holds them; ``principals`` authenticates one header value."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def required(self) -> bool:
        return bool(self.store.keys())

    def principals(self, authorization: str | None) -> tuple[str, ...]:
        """The caller's principals, or ``Unauthorized``."""
        return self.identify(authorization)[1]

    def identify(self, authorization: str | None) -> tuple[str | None, tuple[str, ...]]:
        """(the key's name or ``None`` when anonymous, the caller's principals), or ``Unauthorized``."""
        if authorization is None:
            if not self.required():
                return None, (PUBLIC,)
            raise Unauthorized("this server needs an API key",
                               hint="send Authorization: Bearer KEY")
        scheme, _, key = authorization.partition(" ")
        key = key.strip()
        if scheme.lower() != "bearer" or not key:
            raise Unauthorized("the Authorization header must be 'Bearer KEY'")
        found = self.store.key_for(hash_key(key))
        if found is None:
            raise Unauthorized("unknown or revoked API key")
        return found.name, tuple(dict.fromkeys((*found.principals, PUBLIC)))


class AuthMiddleware:
    """Pure ASGI: resolves the caller's principals before any route runs."""

    def __init__(self, app: ASGIApp, *, keys: KeyRing, page_files: frozenset[str] = frozenset(),
                 any_key_while_keyless: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.keys = keys
        # Paths whose clients always send a key (OpenAI's clients and chat front ends
        # need one to be set): on a server without keys it is not checked, since it
        # could grant nothing beyond ``public`` there.
        self.any_key_while_keyless = any_key_while_keyless
        # The web reader's own files (GET only): a browser must load the page before
        # it can ask for a key, and the files hold nothing from the collection.
        self.page_files = page_files

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS or (
            scope["path"] in self.page_files and scope.get("method") in _READS
        ):
            await self.app(scope, receive, send)
            return
        header = None
        for name, value in scope.get("headers", ()):
            if name == b"authorization":
                header = value.decode("latin-1")
                break
        if header is not None and scope["path"] in self.any_key_while_keyless and not self.keys.required():
            header = None
        try:
            key_name, principals = self.keys.identify(header)
        except Unauthorized as exc:
            status, body, headers = problem(exc)
            await send_problem(send, status, body, headers)
            return
        state = scope.setdefault("state", {})
        state["principals"] = principals
        state["key_name"] = key_name  # for the access log; the key itself is never kept
        await self.app(scope, receive, send)


def principals_of(scope: Scope) -> Sequence[str]:
    """The principals ``AuthMiddleware`` put on the request; fails closed without it."""
    principals: Sequence[str] | None = (scope.get("state") or {}).get("principals")
    if principals is None:
        raise Unauthorized("no principals on this request")
    return principals
