"""App assembly: the root page, static files, and keys taking effect on a running app."""

from __future__ import annotations

from .conftest import add_key, bearer


def test_root_is_a_placeholder_until_a_web_page_is_there(acl_tether, client_for, tmp_path):
    root = client_for(acl_tether, static_dir=tmp_path / "no-page").get("/")
    assert root.status_code == 200 and root.json()["openapi"] == "/openapi.json"
    static = tmp_path / "static"
    static.mkdir()
    (static / "index.html").write_text("<h1>Tether reader</h1>", encoding="utf-8")
    client = client_for(acl_tether, static_dir=static)
    page = client.get("/")
    assert page.status_code == 200 and "Tether reader" in page.text
    assert client.get("/healthz").json() == {"status": "ok"}  # routes still win over the mount
    assert client.post("/v1/answers", json={"question": "methanol?"}).status_code == 200


def test_a_key_added_to_a_running_anonymous_app_closes_it(acl_tether, client_for):
    client = client_for(acl_tether)
    assert client.post("/v1/answers", json={"question": "methanol?"}).status_code == 200
    key = add_key(acl_tether, "ops", "finance")
    assert client.post("/v1/answers", json={"question": "methanol?"}).status_code == 401
    assert client.post("/v1/answers", json={"question": "methanol?"}, headers=bearer(key)).status_code == 200
    assert client.get("/healthz").status_code == 200
