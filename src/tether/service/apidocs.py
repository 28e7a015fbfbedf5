"""Interactive API docs at ``/docs``: Swagger UI from a wheel, never from a CDN.

The script and stylesheet are the Swagger UI distribution shipped inside the
``fastapi-swagger`` wheel (installed by the ``serve`` extra), read from the
installed package and served from this server. The page itself is a fixed HTML
file with no inline code, and its ``Content-Security-Policy`` header is as strict
as the web reader's: scripts, styles and requests from this server only. Without
the package ``/docs`` answers 404 with the ``pip install`` line.

The page and its files are open without a key, like the web reader's files;
``/openapi.json`` is not. When ``/v1/access`` says keys are required, the page asks
for one first (or takes the web reader's, kept for this tab) and sends it as a
bearer token with the document's request and with every "Try it out" request.
"""

from __future__ import annotations

import json
from importlib import resources
from importlib.resources.abc import Traversable

from fastapi import FastAPI
from fastapi.responses import Response
from starlette.requests import Request

from .problems import PROBLEM_JSON, problem_body

__all__ = ["DOCS_PATHS", "install_docs"]

ASSETS_PACKAGE = "fastapi_swagger"
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
       "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Tether API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<form id="key-form" hidden>
<p><label for="key-input">This server needs an API key</label></p>
<input id="key-input" type="password" autocomplete="off" spellcheck="false" required>
<button type="submit">Use key</button>
</form>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
"""

# validatorUrl null: the default badge asks a public validator about this document.
# The key slot is the web reader's (sessionStorage, only when the user kept it there).
_INIT = """const ready = () => { document.documentElement.dataset.ready = "true"; };
function start(key) {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    requestInterceptor: (request) => {
      if (key && !request.headers.Authorization) request.headers.Authorization = "Bearer " + key;
      // "Try it out" is this server's own page: its writes carry the marker a page on
      // another site cannot send (service/crosssite.py), multipart uploads included.
      if (!["GET", "HEAD"].includes((request.method || "GET").toUpperCase())) {
        request.headers["X-Tether-Request"] = "1";
      }
      return request;
    },
    onComplete: ready,
  });
}
async function keyRequired() {
  try {
    const response = await fetch("/v1/access", { credentials: "omit", cache: "no-store" });
    return response.ok && (await response.json()).key_required === true;
  } catch (_) {
    return false;
  }
}
(async () => {
  let kept = null;
  try { kept = window.sessionStorage.getItem("tether.apiKey"); } catch (_) { kept = null; }
  if (kept || !(await keyRequired())) { start(kept); return; }
  const form = document.getElementById("key-form");
  form.hidden = false;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = document.getElementById("key-input").value.trim();
    if (!key) return;
    form.hidden = true;
    start(key);
  });
  document.getElementById("key-input").focus();
  ready();
})();
"""

_ASSETS = {
    "/docs/swagger-ui.css": ("swagger-ui.css", "text/css; charset=utf-8"),
    "/docs/swagger-ui-bundle.js": ("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
}
DOCS_PATHS = frozenset({"/docs", "/docs/init.js", *_ASSETS})


def _assets_dir() -> Traversable | None:
    try:
        folder = resources.files(ASSETS_PACKAGE).joinpath("resources")
    except ModuleNotFoundError:
        return None
    return folder if folder.joinpath("swagger-ui-bundle.js").is_file() else None


def _missing() -> Response:
    body = problem_body(404, "not-found", "the API docs page needs the serve extra",
                        hint="pip install 'tether[serve]' (from a checkout: pip install '.[serve]')")
    return Response(json.dumps(body), status_code=404, media_type=PROBLEM_JSON)


def install_docs(app: FastAPI) -> None:
    """Add ``/docs`` and its files to ``app`` (not in the OpenAPI document)."""
    folder = _assets_dir()
    headers = {"Content-Security-Policy": CSP, "Cache-Control": "no-cache",
               "X-Content-Type-Options": "nosniff"}

    async def page(request: Request) -> Response:
        if folder is None:
            return _missing()
        return Response(_PAGE, media_type="text/html; charset=utf-8", headers=headers)

    async def init(request: Request) -> Response:
        return Response(_INIT, media_type="text/javascript; charset=utf-8", headers=headers)

    app.router.add_route("/docs", page, methods=["GET", "HEAD"], include_in_schema=False)
    app.router.add_route("/docs/init.js", init, methods=["GET", "HEAD"], include_in_schema=False)
    for url, (name, media_type) in _ASSETS.items():

        async def asset(request: Request, name: str = name, media_type: str = media_type) -> Response:
            if folder is None:
                return _missing()
            return Response(folder.joinpath(name).read_bytes(), media_type=media_type, headers=headers)

        app.router.add_route(url, asset, methods=["GET", "HEAD"], include_in_schema=False)
