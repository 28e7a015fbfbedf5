"""``/docs``: interactive API docs from the ``serve`` extra's wheel, in headless Chromium.

The page must list the API's operations with no request to any other host and no
Content-Security-Policy violation (the page's policy is as strict as the reader's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from tether import Tether

from .conftest import add_key, serve_process

DOC = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
# Listens before any script of the page runs: every violation, also report-only ones.
CSP_LISTENER = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def _operations() -> list[tuple[str, str]]:
    paths = json.loads(DOC.read_text(encoding="utf-8"))["paths"]
    return sorted((method.upper(), path) for path, ops in paths.items() for method in ops)


def _open_docs(browser: Any, url: str, key: str | None) -> None:
    """Open /docs (typing ``key`` when the page asks) and check what it shows and loads."""
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    console: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(CSP_LISTENER)
    try:
        page.goto(url + "/docs")
        page.wait_for_selector("html[data-ready=true]", state="attached", timeout=20_000)
        if key is not None:
            assert page.locator("#key-form").is_visible()
            assert page.evaluate("document.activeElement.id") == "key-input"
            page.fill("#key-input", key)
            page.press("#key-input", "Enter")
        else:
            assert page.locator("#key-form").is_hidden()
        page.wait_for_selector(".opblock", timeout=20_000)
        shown = sorted(zip(
            (m.strip().upper() for m in page.locator(".opblock-summary-method").all_inner_texts()),
            (p.strip().replace("\u200b", "") for p in page.locator(".opblock-summary-path").all_inner_texts()),
        ))
        assert shown == _operations()
        page.locator(".opblock-summary").first.click()  # an operation opens
        page.wait_for_selector(".opblock.is-open .opblock-body")
        page.wait_for_timeout(200)
        assert page.evaluate("window.__csp") == []
        assert not [c for c in console if "Content Security Policy" in c], console
        assert not errors
        assert requests and all(r.startswith(url + "/") or r.startswith("data:") for r in requests), requests
        assert url + "/docs/swagger-ui-bundle.js" in requests and url + "/openapi.json" in requests
    finally:
        context.close()


def test_docs_page_lists_every_operation_from_this_server_only(browser, tmp_path):
    db = tmp_path / "open.db"
    Tether(db).close()
    with serve_process(db) as (url, _):
        head = httpx.get(url + "/docs")
        assert head.status_code == 200
        csp = head.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp and "unsafe" not in csp
        _open_docs(browser, url, None)


def test_docs_page_asks_for_the_key_when_the_server_needs_one(browser, tmp_path):
    db = tmp_path / "keys.db"
    with Tether(db) as tether:
        key = add_key(tether, "reader", "staff")
    with serve_process(db) as (url, _):
        assert httpx.get(url + "/docs").status_code == 200  # the page opens without a key
        assert httpx.get(url + "/openapi.json").status_code == 401  # the document does not
        _open_docs(browser, url, key)
