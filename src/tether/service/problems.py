"""Errors as ``application/problem+json`` (RFC 9457): one JSON shape for every failure.

``TetherError`` subclasses map to status codes here, so a route raises the same
errors the CLI turns into exit codes. ``AccessDenied`` is a 404, never a 403: a
caller must not learn that a document it cannot read exists.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.types import Send

from ..deadline import DeadlineExceeded
from ..errors import (
    AccessDenied,
    ConfigError,
    ExtractionError,
    InputError,
    LimitExceeded,
    MissingExtra,
    ModelFileError,
    NotFound,
    ProviderError,
    StoreError,
    TetherError,
    UnsupportedInput,
)

__all__ = [
    "PROBLEM_JSON",
    "Conflict",
    "Forbidden",
    "NotAvailable",
    "RequestTimeout",
    "Unauthorized",
    "problem",
    "problem_body",
    "send_problem",
    "status_for",
]

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("tether.service")


class Unauthorized(TetherError):
    """A request without a valid ``Authorization: Bearer`` key (service only)."""


class Forbidden(TetherError):
    """The caller may not write there (service only; reads answer 404 instead)."""


class NotAvailable(TetherError):
    """An endpoint whose feature this build does not have (service only)."""


class RequestTimeout(TetherError):
    """A request ran past ``request_timeout_s`` and its work was stopped (service only)."""


class Conflict(TetherError):
    """What the request needs is not in the state it asks for: a document's original
    file is gone or no longer matches the stored version (service only)."""


# Most specific first: the first class the error is an instance of decides.
_STATUS: tuple[tuple[type[TetherError], int, str], ...] = (
    (Unauthorized, 401, "unauthorized"),
    (RequestTimeout, 504, "timeout"),
    (DeadlineExceeded, 504, "timeout"),
    (LimitExceeded, 413, "limit-exceeded"),
    (UnsupportedInput, 415, "unsupported-input"),
    (ExtractionError, 422, "extraction-error"),
    (InputError, 400, "input-error"),
    (ConfigError, 400, "config-error"),
    (Forbidden, 403, "forbidden"),
    (Conflict, 409, "conflict"),
    (NotFound, 404, "not-found"),
    (AccessDenied, 404, "not-found"),
    (StoreError, 503, "store-error"),
    # A shipped reading model's file is missing or altered: the installation is broken,
    # not the request; the detail names the file and how to rebuild it.
    (ModelFileError, 503, "model-file-error"),
    (ProviderError, 502, "provider-error"),
    (MissingExtra, 501, "missing-extra"),
    (NotAvailable, 501, "not-implemented"),
)
_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    408: "Request timeout",
    409: "Conflict",
    413: "Content too large",
    414: "URI too long",
    415: "Unsupported media type",
    421: "Misdirected request",
    422: "Unprocessable content",
    429: "Too many requests",
    431: "Request header fields too large",
    500: "Internal server error",
    501: "Not implemented",
    502: "Bad gateway",
    503: "Service unavailable",
    504: "Gateway timeout",
}


def status_for(exc: TetherError) -> tuple[int, str]:
    """HTTP status and problem slug for a Tether error."""
    for kind, status, slug in _STATUS:
        if isinstance(exc, kind):
            return status, slug
    return 500, "tether-error"


def problem_body(status: int, slug: str, detail: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": f"urn:tether:problem:{slug}",
        "title": _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def problem(exc: TetherError) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Status, body and extra headers for ``exc``."""
    status, slug = status_for(exc)
    if isinstance(exc, AccessDenied):
        # Same words as a document that does not exist: existence must not leak.
        body = problem_body(status, slug, "no such document")
    else:
        body = problem_body(status, slug, exc.args[0] if exc.args else str(exc), hint=exc.hint)
    headers = {"WWW-Authenticate": 'Bearer realm="tether"'} if status == 401 else {}
    return status, body, headers


def encode(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


async def send_problem(
    send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> None:
    """Answer a raw ASGI request with a problem (for middleware, before any route)."""
    payload = encode(body)
    raw = [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(payload)).encode()),
    ]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})
