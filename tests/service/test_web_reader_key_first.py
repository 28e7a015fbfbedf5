"""The web reader asks for the API key as it opens when the server needs one.

Before, the page learnt that keys were required only from the 401 of the first
question. Now it asks ``GET /v1/access`` (open) and shows the key form at once;
on a server without keys the form stays hidden.
"""

from __future__ import annotations

import httpx

from .browser import visit
from .conftest import add_key, build_acl_store, serve_process


def test_the_key_is_asked_for_before_the_first_question(browser, tmp_path):
    db = tmp_path / "keys.db"
    with build_acl_store(db) as tether:
        finance = add_key(tether, "finance-team", "finance")
    with serve_process(db) as (url, _):
        assert httpx.get(url + "/v1/access").json() == {"key_required": True}
        with visit(browser, url) as v:
            page = v.page
            assert page.locator("#key-panel").is_visible()  # at data-ready, nothing asked yet
            assert v.state("document.activeElement.id") == "key-input"
            assert "needs an API key" in page.locator("#status").inner_text()
            assert not [r for r in v.requests if "/v1/answers" in r]
            v.screenshot("key-asked-first")
            page.fill("#key-input", finance)
            page.press("#key-input", "Enter")
            assert page.locator("#key-panel").is_hidden()
            assert v.state("document.activeElement.id") == "question"
            v.ask("What is the Kestrel budget?")
            assert v.finished() == "done"
            assert "42 million euros" in page.locator("#answer").inner_text()
            answers = [r for r in v.requests if r.endswith("/v1/answers")]
            assert len(answers) == 1  # the first question went out with the key, once


def test_no_key_form_on_a_server_without_keys(browser, tmp_path):
    db = tmp_path / "open.db"
    build_acl_store(db, with_hidden=False).close()
    with serve_process(db) as (url, _):
        assert httpx.get(url + "/v1/access").json() == {"key_required": False}
        with visit(browser, url) as v:
            assert v.page.locator("#key-panel").is_hidden()
            assert url + "/v1/access" in v.requests  # it did ask
            v.ask("At what temperature does methanol boil?")
            assert v.finished() == "done"
            assert v.page.locator("#key-panel").is_hidden()
