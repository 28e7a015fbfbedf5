"""Headless Chromium for the web reader's end-to-end tests.

Debian's ``chromium`` at /usr/bin/chromium, driven by Python ``playwright`` (its own
browser downloads are never used). Without them the tests skip locally and fail in CI
(``CI=true``), where ``.ci/run`` installs the browser.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("TETHER_CHROMIUM", "/usr/bin/chromium")
REPO = Path(__file__).resolve().parents[2]
# Screenshots land here (git-ignored) so a person can look at what the tests saw.
ARTIFACTS = Path(os.environ.get("TETHER_ARTIFACTS", REPO / "artifacts")) / "web-reader"

# Records, independently of the page's own bookkeeping, the order in which source
# cards and answer sentences are added to the document.
ORDER_SCRIPT = """
window.__order = [];
new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.addedNodes) {
      if (node.nodeType !== 1) continue;
      const found = node.matches('[data-source], [data-sentence]') ? [node]
        : Array.from(node.querySelectorAll('[data-source], [data-sentence]'));
      for (const el of found) {
        window.__order.push(el.hasAttribute('data-source') ? 'source' : 'sentence');
      }
    }
  }
}).observe(document, {childList: true, subtree: true});
"""

FINISHED = "#results:is([data-state=done],[data-state=refused],[data-state=error],[data-state=stopped])"


def _missing_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Python playwright is not installed (pip install -e '.[test]')"
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        return f"{CHROMIUM} is missing (apt-get install -y chromium; .ci/run does this)"
    return None


def require_browser() -> None:
    why = _missing_browser()
    if why is None:
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"the web reader's browser tests cannot run in CI: {why}")
    pytest.skip(f"browser tests skipped: {why}")


@dataclass
class Visit:
    """A page on one server, with every request it made."""

    page: Any
    base: str
    requests: list[str] = field(default_factory=list)

    def external(self) -> list[str]:
        return [u for u in self.requests if not (u.startswith(self.base + "/") or u.startswith("data:"))]

    def ask(self, question: str) -> None:
        self.page.fill("#question", question)
        self.page.press("#question", "Enter")

    def finished(self, timeout: float = 30_000) -> str:
        self.page.wait_for_selector(FINISHED, state="attached", timeout=timeout)
        return str(self.page.get_attribute("#results", "data-state"))

    def state(self, expression: str) -> Any:
        return self.page.evaluate(expression)

    def screenshot(self, name: str, **options: Any) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), **options)
        return path


@contextmanager
def visit(browser: Any, base: str, *, width: int = 1280, height: int = 860) -> Iterator[Visit]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    seen = Visit(page, base)
    errors: list[str] = []
    page.on("request", lambda request: seen.requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(ORDER_SCRIPT)
    page.set_default_timeout(20_000)
    try:
        response = page.goto(base + "/")
        assert response is not None and response.status == 200
        page.wait_for_selector("html[data-ready=true]", state="attached")
        yield seen
        assert not errors, f"script errors on the page: {errors}"
        assert not seen.external(), f"requests left the server: {seen.external()}"
    finally:
        context.close()
