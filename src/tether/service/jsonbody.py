"""JSON request bodies decoded strictly, as the CLI decodes its stdin (``text.jsonin``).

FastAPI decodes a JSON body with ``json.loads``, which lets an unpaired surrogate
escape through (the answer then fails with a 500 when it is encoded, or an ``error``
event mid-stream) and crashes on deep nesting. Routes of a router built with
``route_class=StrictJSONRoute`` get a request whose ``json()`` refuses such a body
with a 400 problem (``input-error``) before the route runs; a body that is not JSON
at all stays FastAPI's 422 (``validation-error``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from ..errors import InputError
from ..text.jsonin import loads_strict

__all__ = ["BadBody", "StrictJSONRequest", "StrictJSONRoute", "strict_json"]


class BadBody(HTTPException):
    """An HTTP error, so that FastAPI's body parsing lets it through unchanged."""

    def __init__(self, error: InputError) -> None:
        super().__init__(400, str(error.args[0]) if error.args else str(error))
        self.hint = error.hint


async def strict_json(request: Request) -> Any:
    """The request's body decoded by ``loads_strict``: ``BadBody`` (400) for what it
    refuses, ``json.JSONDecodeError`` (for a 422) when the body is not JSON at all."""
    settings = request.app.state.service.settings
    try:
        return loads_strict(
            await request.body(), where="body", max_depth=settings.max_json_depth,
            max_number_chars=settings.max_json_number_chars,
        )
    except InputError as exc:
        if isinstance(exc.__cause__, json.JSONDecodeError):
            raise exc.__cause__ from None  # FastAPI's 422 json_invalid, as before
        raise BadBody(exc) from exc


class StrictJSONRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = await strict_json(self)
        return self._json


class StrictJSONRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict
