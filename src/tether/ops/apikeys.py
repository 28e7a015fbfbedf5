"""API key recipe for the HTTP service: how a key looks and how its hash is stored.

A key is 32 random bytes (``tk_`` + URL-safe base64); the store keeps only its
SHA-256. A fast hash is right here: the key is random with 256 bits of entropy, so
there is nothing for a slow password hash to protect. Kept free of the service's
dependencies so ``tether keys`` works without the ``serve`` extra.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

from ..errors import InputError

__all__ = ["KEY_PREFIX", "check_principal", "hash_key", "new_key"]

KEY_PREFIX = "tk_"


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()


def check_principal(principal: str) -> str:
    """``principal`` if a key may act as it, else an ``InputError`` (exit 2).

    A principal is matched exactly against document ACLs, stored with the key and
    logged: it must be non-empty UTF-8 text without control characters. Bytes that
    are not UTF-8 (lone surrogates from the command line) cannot be stored or logged
    as text, so they are refused here rather than stored as a key that fails on
    every request."""
    if not principal.strip():
        raise InputError("a principal must not be empty")
    try:
        principal.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"principal is not valid UTF-8 (at character {exc.start})") from exc
    controls = [c for c in principal if unicodedata.category(c) == "Cc"]
    if controls:
        raise InputError(f"principal contains control character U+{ord(controls[0]):04X}")
    return principal
