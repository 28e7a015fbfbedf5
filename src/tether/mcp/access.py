"""Whom an MCP server acts as: one caller, fixed when it starts, checked on every call.

The same rule as the HTTP service (``service.auth``): with no API keys in the store the
caller is ``public``; once any key exists the server needs one (``--key`` or
``TETHER_API_KEY``) and acts as that key's principals plus ``public``. The key is looked
up again on every call, so revoking it stops a running server at once, and a key added
to a keyless store closes a server started without one.
"""

from __future__ import annotations

from ..errors import TetherError
from ..facade import Tether
from ..records import PUBLIC

__all__ = ["Caller", "KeyRefused"]

KEY_ENV = "TETHER_API_KEY"


class KeyRefused(TetherError):
    """No key where the store needs one, or a key it does not hold (exit 2)."""

    exit_code = 2


class Caller:
    """The principals this server acts as, from its key (or none) and the store's keys."""

    def __init__(self, tether: Tether, key: str | None) -> None:
        self.tether = tether
        self.key = key or None

    def principals(self) -> tuple[str, ...]:
        """The caller's principals now, or ``KeyRefused``."""
        if self.key is None:
            if self.tether.store.keys():
                raise KeyRefused("this store has API keys: the MCP server needs one",
                                 hint=f"pass --key KEY or set {KEY_ENV}")
            return (PUBLIC,)
        principals = self.tether.key_principals(self.key)
        if principals is None:
            raise KeyRefused("unknown or revoked API key",
                             hint="make one with 'tether keys add NAME --principal P'")
        return principals
