"""The cross-site upload of issue 34, tried from a real browser (headless Chromium)
against a real keyless ``python -m tether serve`` on 127.0.0.1.

The attacker's page is served by another server on 127.0.0.2 (another origin on this
machine, as any web page is to the browser). Its simple multipart POST, which a browser
sends without asking, reaches the server and is refused (the access log shows the
403); the same upload with ``X-Tether-Request`` needs a preflight the server never
approves, so it is never sent. A DNS-rebinding page (its name resolved to 127.0.0.1 by
the browser's resolver rules) reads nothing: its ``Host`` is not loopback. The store
is unchanged by all of it, while the same upload from the web reader's own origin works.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from .browser import CHROMIUM, require_browser, visit
from .conftest import build_acl_store, serve_process
from .test_cross_site import PLANTED, TARGET_SOURCE, snapshot

REBIND_NAME = "tether-rebind.test"
# Chromium's features that refuse a public page's requests to loopback (names across
# versions; an unknown name is ignored).
PRIVATE_NETWORK_CHECKS = ("BlockInsecurePrivateNetworkRequests", "PrivateNetworkAccessSendPreflights",
                          "PrivateNetworkAccessRespectPreflightResults", "LocalNetworkAccessChecks")
ACCESS = re.compile(r" (?P<method>[A-Z]+) (?P<path>\S+) (?P<status>\d{3}) [\d.]+ms key=")

# Each attempt's outcome lands in window.attempts: a status the page could read,
# "opaque" (sent, the answer unreadable), or "blocked: TypeError" (never sent, or
# refused by the browser after a failed preflight).
ATTACK = """<!doctype html><title>a page on another site</title><script>
const target = %(target)s, source = %(source)s, text = %(text)s;
function form() {
  const data = new FormData();
  data.append("source", source);
  data.append("title", "Methanol");
  data.append("file", new Blob([text], {type: "text/plain"}), "planted.txt");
  return data;
}
const attempts = {
  simple: () => fetch(target + "/v1/documents", {method: "POST", body: form(), mode: "no-cors"}),
  plainJson: () => fetch(target + "/v1/documents", {method: "POST", mode: "no-cors",
    body: JSON.stringify({source, text})}),
  marked: () => fetch(target + "/v1/documents", {method: "POST", body: form(),
    headers: {"X-Tether-Request": "1"}}),
  json: () => fetch(target + "/v1/documents", {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify({source, text})}),
  read: () => fetch(target + "/v1/documents"),
};
window.attempts = {};
(async () => {
  for (const [name, run] of Object.entries(attempts)) {
    try {
      const response = await run();
      window.attempts[name] = response.type === "opaque" ? "opaque" : response.status;
    } catch (error) {
      window.attempts[name] = "blocked: " + error.name;
    }
  }
  window.finished = true;
})();
</script>"""

# Served under the rebinding name: same-origin, as far as the browser knows, with the
# server it now reaches; it reads what it can.
REBIND = """<!doctype html><title>rebound</title><script>
window.attempts = {};
(async () => {
  for (const path of ["/v1/documents", "/", "/openapi.json"]) {
    const response = await fetch(path);
    window.attempts[path] = {status: response.status, text: await response.text()};
  }
  const data = new FormData();
  data.append("source", %(source)s);
  data.append("file", new Blob([%(text)s], {type: "text/plain"}), "planted.txt");
  const post = await fetch("/v1/documents", {method: "POST", body: data,
                                             headers: {"X-Tether-Request": "1"}});
  window.attempts.upload = {status: post.status, text: await post.text()};
  window.finished = true;
})();
</script>"""


class _Page(BaseHTTPRequestHandler):
    html = b""

    def do_GET(self) -> None:  # noqa: N802 - the http.server hook's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.html)))
        self.end_headers()
        self.wfile.write(self.html)

    def log_message(self, *args: Any) -> None:
        pass


def page_server(host: str, html: str) -> tuple[ThreadingHTTPServer, str]:
    handler = type("AttackPage", (_Page,), {"html": html.encode()})
    server = ThreadingHTTPServer((host, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Chromium whose resolver maps the rebinding name to loopback (what the attacker's
    DNS answers once the page is loaded), without Chromium's own Private Network Access
    checks: other browsers have none, and the server must not rely on them."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=[f"--host-resolver-rules=MAP {REBIND_NAME} 127.0.0.1",
                  "--disable-features=" + ",".join(PRIVATE_NETWORK_CHECKS)])
        yield browser
        browser.close()


@contextmanager
def serving(tmp_path: Path) -> Iterator[tuple[str, Path, list[str]]]:
    """A keyless server with the access log on: (URL, store, its lines once stopped)."""
    db = tmp_path / "acl.db"
    build_acl_store(db, with_hidden=False).close()
    with serve_process(db, "--access-log") as (url, lines):
        yield url, db, lines


def run_page(browser: Any, url: str, route: tuple[str, str] | None = None) -> dict[str, Any]:
    context = browser.new_context()
    try:
        if route is not None:  # the page's own document, fulfilled as the attacker serves it
            context.route(route[0], lambda r: r.fulfill(status=200, content_type="text/html",
                                                        body=route[1]))
        page = context.new_page()
        page.goto(url)
        page.wait_for_function("window.finished === true", timeout=30_000)
        return dict(page.evaluate("window.attempts"))
    finally:
        context.close()


def _posts(lines: list[str]) -> list[str]:
    return [m.group("status") for line in lines
            if (m := ACCESS.search(line)) and m.group("method") == "POST"
            and m.group("path") == "/v1/documents"]


def test_a_page_on_another_origin_cannot_plant_or_overwrite_a_document(chromium, tmp_path):
    with serving(tmp_path) as (url, db, lines):
        before = snapshot(db)
        values = {"target": json.dumps(url), "source": json.dumps(TARGET_SOURCE),
                  "text": json.dumps(PLANTED)}
        attacker, origin = page_server("127.0.0.2", ATTACK % values)
        try:
            got = run_page(chromium, origin + "/")
        finally:
            attacker.shutdown()
            attacker.server_close()
    # The two simple POSTs were sent (the page cannot read the answer) ...
    assert got["simple"] == "opaque" and got["plainJson"] == "opaque", got
    # ... the others needed a preflight, which failed: the browser never sent them.
    for name in ("marked", "json", "read"):
        assert got[name] == "blocked: TypeError", got
    assert snapshot(db) == before
    # The server saw the two sent uploads and refused both (its lines, once it stopped).
    assert _posts(lines) == ["403", "403"], "\n".join(lines)


def test_a_rebinding_page_reads_nothing_and_writes_nothing(chromium, tmp_path):
    with serving(tmp_path) as (url, db, _):
        before = snapshot(db)
        port = url.rsplit(":", 1)[1]
        rebound = f"http://{REBIND_NAME}:{port}/attack.html"
        html = REBIND % {"source": json.dumps(TARGET_SOURCE), "text": json.dumps(PLANTED)}
        got = run_page(chromium, rebound, route=(rebound, html))
    for name, seen in got.items():
        assert seen["status"] == 421, (name, seen)
        assert "Methanol" not in seen["text"] and "misdirected-request" in seen["text"]
    assert snapshot(db) == before


def test_the_same_upload_from_the_web_readers_own_origin_works(chromium, tmp_path):
    with serving(tmp_path) as (url, db, _), visit(chromium, url) as v:
        before = snapshot(db)
        status = v.page.evaluate(
            """async ([source, text]) => {
                 const data = new FormData();
                 data.append("source", source);
                 data.append("file", new Blob([text], {type: "text/plain"}), "notes.txt");
                 const response = await fetch("/v1/documents", {method: "POST", body: data,
                   headers: {"X-Tether-Request": "1"}});
                 return [response.status, (await response.json()).status];
               }""", [TARGET_SOURCE, PLANTED])
    assert status == [201, "updated"]
    assert snapshot(db)[TARGET_SOURCE] != before[TARGET_SOURCE]
