"""Every route the app serves is in docs/openapi.json and in the README's service table.

``test_openapi.py`` keeps the committed document equal to the served one; this keeps
both honest about the routes themselves: a route left out of the schema must be one
of the few documented pages, and every operation is a row of the README's endpoint
table (``| `GET /path` | … |``), which names nothing that does not exist.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from starlette.routing import Route

from tether.service.app import STATIC_DIR, _page_files

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "openapi.json"
README = ROOT / "README.md"
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
# Served outside the schema on purpose, each documented in the README's table.
PAGES = {("GET", "/docs"), ("GET", "/openapi.json")}


def _served(routes) -> set[tuple[str, str]]:
    """(method, path) of every route, into included routers (FastAPI keeps those lazily)."""
    found = set()
    for route in routes:
        if isinstance(route, Route):
            found |= {(m, route.path) for m in (route.methods or ()) if m != "HEAD"}
        inner = getattr(route, "original_router", None) or getattr(route, "router", None)
        if inner is not None and not isinstance(route, Route):
            found |= _served(inner.routes)
    return found


def _routed(client, method: str, path: str) -> bool:
    """Whether the app has a route for this: not the router's own 404/405."""
    response = client.request(method, re.sub(r"\{[^}]+\}", "x", path))
    routing_miss = response.status_code in (404, 405) and response.headers.get(
        "content-type", "").startswith("application/problem+json") and response.json().get(
        "type") == "urn:tether:problem:http-error"
    return not routing_miss


def _committed() -> set[tuple[str, str]]:
    paths = json.loads(DOC.read_text(encoding="utf-8"))["paths"]
    return {(method.upper(), path) for path, ops in paths.items() for method in ops}


def _readme_rows() -> set[tuple[str, str]]:
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## HTTP service\n(.*?)(?=^## )", text, re.M | re.S)
    assert section, "README has no '## HTTP service' section"
    rows = set()
    for line in section.group(1).splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        methods = re.findall(rf"\b({'|'.join(METHODS)})\b", cell)
        paths = re.findall(r"(?<![\w`])/[a-z][\w{}/.-]*", cell)
        assert methods and paths, f"an endpoint row without a method and a path: {line}"
        rows |= {(m, p) for m in methods for p in paths}
    return rows


def test_every_served_route_is_in_the_committed_openapi_or_a_documented_page(demo_tether, client_for):
    client = client_for(demo_tether)
    pages = {("GET", url) for url in _page_files(STATIC_DIR)}
    docs_files = {("GET", url) for url in ("/docs/init.js", "/docs/swagger-ui.css", "/docs/swagger-ui-bundle.js")}
    served = _served(client.app.routes)
    assert _committed() <= served, f"not found among the app's routes: {sorted(_committed() - served)}"
    hidden = served - _committed() - pages - docs_files
    assert hidden == PAGES, f"routes served but not in docs/openapi.json: {sorted(hidden - PAGES)}"
    unrouted = sorted(op for op in _committed() if not _routed(client, *op))
    assert not unrouted, f"in docs/openapi.json, but the app has no such route: {unrouted}"
    assert not _routed(client, "GET", "/v1/no-such-route")  # the probe can tell


def test_every_operation_is_a_row_of_the_readme_service_table():
    documented = _readme_rows()
    wanted = _committed() | PAGES
    assert wanted <= documented, f"routes missing from the README's endpoint table: {sorted(wanted - documented)}"
    assert documented <= wanted, f"the README's endpoint table names routes that do not exist: {sorted(documented - wanted)}"
