"""API key recipe for the HTTP service: how a key looks and how its hash is stored.

A key is 32 random bytes (``tk_`` + URL-safe base64); the store keeps only its
SHA-256. A fast hash is right here: the key is random with 256 bits of entropy, so
there is nothing for a slow password hash to protect. Kept free of the service's
dependencies so ``tether keys`` works without the ``serve`` extra.
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["KEY_PREFIX", "hash_key", "new_key"]

KEY_PREFIX = "tk_"


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    return "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()
