"""The cross-site rules (ADR 0045) through a real ``python -m tether serve`` on loopback:
without keys, a foreign ``Host`` gets 421, a foreign ``Origin`` or a request a browser
marked ``cross-site`` gets 403, and a ``POST`` a page could send without a preflight
(multipart, form or text/plain with no ``X-Tether-Request``) gets 403 — each a problem,
the store as it was. With keys, the key is the authority."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tether import Tether

from .conftest import UPLOAD, add_key, bearer, build_acl_store, serve_process

PLANTED = "Methanol is safe to drink, the planted page says."
TARGET_SOURCE = "https://example.org/methanol"  # an existing document: an overwrite attempt


def snapshot(db: Path) -> dict[str, str]:
    """Every document's current version, by source."""
    with Tether(db, create=False) as tether:
        found = {}
        for document in tether.store.documents():
            version = tether.store.version(document.doc_id)
            found[document.source] = version.version if version else ""
        return found


def upload(**extra: object) -> dict[str, object]:
    return {"files": {"file": ("planted.txt", PLANTED.encode(), "text/plain")},
            "data": {"source": TARGET_SOURCE, "title": "Methanol"}, **extra}


def assert_problem(response: httpx.Response, status: int, slug: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == status and body["type"] == f"urn:tether:problem:{slug}", body


@pytest.fixture(scope="module")
def keyless(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    db = tmp_path_factory.mktemp("crosssite") / "acl.db"
    build_acl_store(db, with_hidden=False).close()
    with serve_process(db) as (url, _):
        yield url, db


@pytest.fixture
def http(keyless: tuple[str, Path]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=keyless[0], timeout=30) as client:
        yield client


def port_of(client: httpx.Client) -> int:
    port = client.base_url.port
    assert port is not None
    return port


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "LOCALHOST", "[::1]", None])
def test_loopback_hosts_are_answered(http, host):
    headers = {"Host": f"{host}:{port_of(http)}" if host else "localhost"}
    response = http.get("/v1/documents", headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["documents"]


@pytest.mark.parametrize("host", [
    "rebind.example", "127.0.0.1.rebind.example", "localhost.rebind.example", "10.0.0.7",
    "[::ffff:7f00:1", "", "127.0.0.1:80:80", "evil.example@127.0.0.1",
])
def test_a_foreign_host_is_misdirected_and_reads_nothing(http, host):
    for path in ("/v1/documents", "/", "/healthz", "/openapi.json"):
        response = http.get(path, headers={"Host": f"{host}:{port_of(http)}" if host else ""})
        assert_problem(response, 421, "misdirected-request")
        assert "Methanol" not in response.text


def test_the_servers_own_origin_is_answered_and_any_other_is_refused(http, keyless):
    before = snapshot(keyless[1])
    own = f"http://127.0.0.1:{port_of(http)}"
    question = {"question": "At what temperature does methanol boil?"}
    assert http.post("/v1/answers", json=question, headers={"Origin": own}).status_code == 200
    others = [f"http://127.0.0.1:{port_of(http) + 1}", f"http://localhost:{port_of(http)}",
              f"https://127.0.0.1:{port_of(http)}", "http://rebind.example", "null", "garbage"]
    for origin in others:
        for method, path, body in (("POST", "/v1/answers", question),
                                   ("POST", "/v1/documents", {"source": TARGET_SOURCE, "text": PLANTED}),
                                   ("GET", "/v1/documents", None)):
            response = http.request(method, path, json=body, headers={"Origin": origin})
            assert_problem(response, 403, "cross-site-request")
    assert snapshot(keyless[1]) == before


@pytest.mark.parametrize(("site", "mode", "method", "status"), [
    ("cross-site", "cors", "GET", 403),
    ("same-site", "cors", "GET", 403),      # another port of 127.0.0.1 is same-site
    ("cross-site", "no-cors", "GET", 403),  # an <img> of a page image, say
    ("cross-site", "navigate", "POST", 403),  # a form posted from another site
    ("cross-site", "navigate", "GET", 200),   # a link followed: the other page reads nothing
    ("same-origin", "cors", "GET", 200),
    ("none", "navigate", "GET", 200),
])
def test_sec_fetch_site_marks_requests_from_other_sites(http, site, mode, method, status):
    headers = {"Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode, **UPLOAD}
    response = http.request(method, "/v1/documents", headers=headers)
    if status == 403:
        assert_problem(response, 403, "cross-site-request")
    else:
        assert response.status_code != 403, response.text


@pytest.mark.parametrize("request_kwargs", [
    upload(),                                                       # multipart, as a page sends it
    {"data": {"source": TARGET_SOURCE, "text": PLANTED}},           # a form
    {"content": f'{{"source": "{TARGET_SOURCE}", "text": "{PLANTED}"}}',  # JSON as text/plain
     "headers": {"Content-Type": "text/plain"}},
    {"content": b""},                                               # no body, no type
])
def test_a_post_a_page_could_send_without_a_preflight_is_refused(http, keyless, request_kwargs):
    before = snapshot(keyless[1])
    response = http.post("/v1/documents", **request_kwargs)
    assert_problem(response, 403, "cross-site-request")
    assert "X-Tether-Request" in response.json()["hint"]
    assert snapshot(keyless[1]) == before


def test_the_marked_upload_and_json_writes_work(tmp_path):
    db = tmp_path / "acl.db"
    build_acl_store(db, with_hidden=False).close()
    before = snapshot(db)
    with serve_process(db) as (url, _), httpx.Client(base_url=url, timeout=30) as client:
        marked = client.post("/v1/documents", **upload(headers=UPLOAD))
        assert marked.status_code == 201 and marked.json()["status"] == "updated", marked.text
        typed = client.post("/v1/documents", headers={"Content-Type": "application/json; charset=utf-8"},
                            content=f'{{"source": "https://example.org/new", "text": "{PLANTED}"}}')
        assert typed.status_code == 201, typed.text
        assert client.delete(f"/v1/documents/{typed.json()['doc_id']}").status_code == 204
    after = snapshot(db)
    assert after[TARGET_SOURCE] != before[TARGET_SOURCE] and "https://example.org/new" not in after


def test_with_keys_the_key_is_the_authority(tmp_path):
    db = tmp_path / "acl.db"
    with build_acl_store(db, with_hidden=False) as tether:
        key = add_key(tether, "operator", "public")
    before = snapshot(db)
    with serve_process(db) as (url, _), httpx.Client(base_url=url, timeout=30) as client:
        # No key: refused by the key check whatever else the request says.
        assert_problem(client.post("/v1/documents", **upload(headers=UPLOAD)), 401, "unauthorized")
        assert snapshot(db) == before
        # A keyed server may sit behind a proxy under any name: Host is not the authority.
        named = client.get("/v1/documents", headers={**bearer(key), "Host": "tether.example.org"})
        assert named.status_code == 200 and named.json()["documents"]
        # The operator's key alone carries an upload (curl -H 'Authorization: Bearer …' -F …).
        keyed = client.post("/v1/documents", **upload(headers=bearer(key)))
        assert keyed.status_code == 201 and keyed.json()["status"] == "updated", keyed.text
    assert snapshot(db)[TARGET_SOURCE] != before[TARGET_SOURCE]
