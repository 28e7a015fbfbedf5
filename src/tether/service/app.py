"""The ASGI app: routes, auth, limits, metrics and problem+json errors around one Tether.

>>> from tether import Tether                                   # doctest: +SKIP
>>> from tether.service import create_app                       # doctest: +SKIP
>>> app = create_app(Tether("store.db", create=False))          # doctest: +SKIP
>>> # uvicorn.run(app, host="127.0.0.1", port=8000)

Request flow, outermost first: latency timing → OpenAI's error shape on the chat
routes (``chat``) → cross-site rules while no key exists (``crosssite``) → API key → deadline (and the body's
arrival by it) → heavy requests per key → body size limit → route; under uvicorn the
headers' arrival is bounded too (``deadlines.header_timeout_protocol``).
Routes run the synchronous core in worker threads (the core is never duplicated as
async code); see ``answers`` and ``sse``.
"""

from __future__ import annotations

import json
import logging
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, TypeAdapter
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request as StarletteRequest
from starlette.responses import FileResponse
from starlette.routing import Match

from ..config import Settings
from ..errors import TetherError
from ..facade import Tether
from ..records import Answer
from ..verify.rules import rules_off_setting
from . import answers, chat, documents, pages, versions
from .accesslog import AccessLogMiddleware
from .answers import ServiceState
from .apidocs import DOCS_PATHS, install_docs
from .auth import AuthMiddleware, KeyRing
from .chat import CHAT_PATHS, OpenAIError, OpenAIErrorShape
from .crosssite import CrossSiteMiddleware
from .heads import MAX_HEAD_BYTES, MAX_REQUEST_LINE_BYTES
from .deadlines import BodyTimeout, DeadlineMiddleware, HeavyLimitMiddleware
from .jsonbody import BadBody
from .limits import BodyLimitMiddleware, BodyTooLarge, body_limit_for
from .metrics import CONTENT_TYPE, LatencyMiddleware, Metrics
from .problems import PROBLEM_JSON, problem, problem_body
from .schemas import (
    DocumentUpload,
    DocumentView,
    IngestOut,
    Problem,
    SourcesEvent,
    VerifyOut,
    VerifyRequest,
    problem_responses,
)

__all__ = ["STATIC_DIR", "create_app"]

log = logging.getLogger("tether.service")
# The web reader's files: served at ``/`` once an ``index.html`` is there.
STATIC_DIR = Path(__file__).parent / "static"
_DOC_MODELS: tuple[type[BaseModel], ...] = (
    DocumentUpload, DocumentView, IngestOut, OpenAIError, Problem, SourcesEvent, VerifyOut,
    VerifyRequest, versions.DocumentVersionView,
)


def _version() -> str:
    try:
        return version("tether")
    except PackageNotFoundError:
        return "0+unknown"


def _problem_response(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def _slash_twin(request: Request) -> str | None:
    """The request's path with its trailing slash toggled, as a relative URL, when a
    route answers there: Starlette's own redirect builds an absolute URL from the
    request's ``Host`` header, which a client chooses (``redirect_slashes`` is off)."""
    path: str = request.scope["path"]
    if path == "/":
        return None
    other = path[:-1] if path.endswith("/") else path + "/"
    if other.startswith("//"):  # "//host/..." would be read as another host
        return None
    scope = {**request.scope, "path": other}
    if not any(route.matches(scope)[0] != Match.NONE for route in request.app.router.routes):
        return None
    query: str = request.scope.get("query_string", b"").decode("latin-1")
    root: str = request.scope.get("root_path", "")
    return root + other + (f"?{query}" if query else "")


def _install_error_handlers(app: FastAPI) -> None:
    async def tether_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, TetherError)
        return _problem_response(*problem(exc))

    async def validation_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        errors = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
        where = ".".join(str(p) for p in first["loc"] if p != "body") or "body"
        body = problem_body(422, "validation-error", f"{where}: {first['msg']}", errors=errors)
        return _problem_response(422, body)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        twin = _slash_twin(request) if exc.status_code == 404 else None
        if twin is not None:
            return RedirectResponse(twin, status_code=307)
        slug = "limit-exceeded" if isinstance(exc, BodyTooLarge) else "http-error"
        slug = "input-error" if isinstance(exc, BadBody) else slug
        slug = "request-timeout" if isinstance(exc, BodyTimeout) else slug
        body = problem_body(exc.status_code, slug, str(exc.detail), hint=getattr(exc, "hint", None))
        return _problem_response(exc.status_code, body, dict(exc.headers or {}))

    async def internal_error(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error", exc_info=exc)
        return _problem_response(500, problem_body(500, "internal", "internal error"))

    app.add_exception_handler(TetherError, tether_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, internal_error)


# What any route may answer before it runs: the cross-site rules of a keyless server
# (ADR 0045) and the bounds on a request's head (service.heads).
_EVERY_ROUTE_REFUSES = {
    403: "Refused: a cross-site request to a server without keys, or a write a browser "
         "did not preflight (no JSON body, X-Tether-Request or Authorization)",
    414: f"The request line is over {MAX_REQUEST_LINE_BYTES // 1024} KiB",
    421: "Refused: the Host is not this machine (a server without keys)",
    431: f"The request head is over {MAX_HEAD_BYTES // 1024} KiB",
}


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document plus the shapes routes build by hand and the bearer scheme."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(title=app.title, version=app.version, description=app.description,
                         routes=app.routes)
    components: dict[str, Any] = schema.setdefault("components", {}).setdefault("schemas", {})
    ref = "#/components/schemas/{model}"
    found = [m.model_json_schema(ref_template=ref) for m in _DOC_MODELS]
    found.append({"title": "Answer", **TypeAdapter(Answer).json_schema(ref_template=ref, mode="serialization")})
    for model_schema in found:
        components.update(model_schema.pop("$defs", {}))
        components[model_schema["title"]] = model_schema
    # Validation errors are problem+json here, not FastAPI's default shape.
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            if "HTTPValidationError" in json.dumps(responses.get("422", {})):
                responses["422"] = problem_responses(422)[422]
            for code, why in _EVERY_ROUTE_REFUSES.items():
                responses.setdefault(str(code), {**problem_responses(code)[code], "description": why})
    for name in ("HTTPValidationError", "ValidationError"):
        components.pop(name, None)
    app.openapi_schema = schema
    return schema


def with_keys(schema: dict[str, Any], keyed: bool) -> dict[str, Any]:
    """The document as this server stands: the bearer scheme only once a key exists, so
    a keyless server's docs page shows no "Authorize" button and no padlocks."""
    if not keyed:
        return schema
    components = {**schema["components"], "securitySchemes": {
        "bearer": {"type": "http", "scheme": "bearer",
                   "description": "Needed once any API key exists (`tether keys add`)."}}}
    return {**schema, "components": components, "security": [{"bearer": []}]}


def _page_files(static: Path) -> dict[str, Path]:
    """The web page's files by URL path; ``/`` is its ``index.html``."""
    files = {"/" + p.relative_to(static).as_posix(): p for p in static.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    return {"/": static / "index.html", **files}


def _serve_pages(app: FastAPI, files: dict[str, Path]) -> None:
    # One GET route per file rather than a catch-all mount at ``/``: a mount would
    # answer a wrong method on an API route (GET /v1/answers) with 404, not 405.
    for url, path in files.items():

        async def page(request: StarletteRequest, path: Path = path) -> FileResponse:
            # no-cache: revalidate, so an upgraded server never runs yesterday's script.
            return FileResponse(path, headers={"Cache-Control": "no-cache"})

        app.router.add_route(url, page, methods=["GET", "HEAD"], include_in_schema=False)


def create_app(
    tether: Tether,
    settings: Settings | None = None,
    *,
    keys: KeyRing | None = None,
    metrics: Metrics | None = None,
    static_dir: Path | None = None,
    access_log: bool = False,
) -> FastAPI:
    """An ASGI app serving ``tether``; keys come from its store unless given.

    ``access_log``: one line per request on the ``tether.access`` logger (INFO).
    """
    settings = settings or tether.settings
    rules_off_setting(settings.support_rules_off)  # a typo stops the server at start, not each request
    metrics = metrics or Metrics()
    ring = keys or KeyRing(tether.store)
    app = FastAPI(
        title="Tether",
        version=_version(),
        description="Answers from documents where every sentence is tied to the exact "
        "passage that supports it, or it is not shown.",
        docs_url=None,  # FastAPI's docs page loads scripts from a CDN; ours is apidocs
        redirect_slashes=False,  # relative redirects instead: _slash_twin
        redoc_url=None,
    )
    app.state.service = ServiceState(tether=tether, settings=settings, metrics=metrics)
    _install_error_handlers(app)
    app.include_router(answers.router)
    app.include_router(documents.router)
    app.include_router(versions.router)
    app.include_router(pages.router)
    app.include_router(chat.router)

    @app.get("/healthz", summary="Liveness (no key needed)", tags=["operations"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/v1/access", summary="Whether requests need an API key (no key needed)",
             tags=["operations"])
    async def access() -> dict[str, bool]:
        # The web reader asks for a key before the first question when this is true.
        return {"key_required": ring.required()}

    @app.get("/metrics", summary="Prometheus metrics", tags=["operations"],
             response_class=Response,
             responses={200: {"content": {CONTENT_TYPE.split(";")[0]: {"schema": {"type": "string"}}},
                              "description": "Prometheus text format"}})
    async def metrics_text() -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    static = static_dir or STATIC_DIR
    page_files: dict[str, Path] = {}
    if (static / "index.html").is_file():
        page_files = _page_files(static)
        _serve_pages(app, page_files)
    else:
        @app.get("/", include_in_schema=False)
        async def root() -> dict[str, str]:
            return {"service": "tether", "version": app.version, "openapi": "/openapi.json"}

    app.add_middleware(BodyLimitMiddleware, limit_for=body_limit_for(settings))
    app.add_middleware(HeavyLimitMiddleware, cap=lambda: settings.max_heavy_per_key)
    app.add_middleware(DeadlineMiddleware, timeout_s=lambda: settings.request_timeout_s)
    install_docs(app)
    # The docs page's files hold nothing from the collection (apidocs); /openapi.json needs a key.
    open_reads = frozenset(page_files) | DOCS_PATHS
    app.add_middleware(AuthMiddleware, keys=ring, page_files=open_reads,
                       any_key_while_keyless=CHAT_PATHS)
    # Outside the key check: a keyless server's only authority is that the caller is
    # this machine's own client, not a page from another site (ADR 0045).
    app.add_middleware(CrossSiteMiddleware, keyless=lambda: not ring.required())
    # The OpenAI-compatible routes answer every refusal above in OpenAI's error shape.
    app.add_middleware(OpenAIErrorShape)
    app.add_middleware(LatencyMiddleware, metrics=metrics)
    if access_log:
        app.add_middleware(AccessLogMiddleware)
    # Keys can be added while the server runs: the scheme is decided per request.
    app.openapi = lambda: with_keys(_openapi(app), ring.required())  # type: ignore[method-assign]
    return app
