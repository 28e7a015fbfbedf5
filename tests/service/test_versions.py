"""``GET /v1/documents/{doc_id}/versions/{version}`` and the web page's files without a key."""

from __future__ import annotations

from urllib.parse import quote

from tether.service.app import STATIC_DIR

from .conftest import FINANCE_SOURCE, add_key, bearer


def _path(doc_id: str, version: str) -> str:
    return f"/v1/documents/{quote(doc_id, safe='')}/versions/{quote(version, safe='')}"


def test_a_cited_version_is_served_after_the_document_changed(acl_tether, client_for):
    client = client_for(acl_tether)
    answer = client.post("/v1/answers", json={"question": "What is the boiling point of methanol?"}).json()
    cited = answer["sentences"][0]["citations"][0]
    changed = client.post("/v1/documents", json={
        "source": "https://example.org/methanol", "license": "CC0", "fetched_at": "2026-02-01",
        "text": "Revised sheet.\n\nMethanol boils at 64.7 °C at sea level. Keep it cool."})
    assert changed.status_code == 201 and changed.json()["status"] == "updated"

    old = client.get(_path(cited["doc_id"], cited["version"]))
    assert old.status_code == 200
    body = old.json()
    assert body["text"][cited["start"]:cited["end"]] == cited["quote"]
    assert body["version"] == cited["version"] and body["current"] is False
    assert body["current_version"] == changed.json()["version"]
    assert body["license"] == "CC0" and body["source"] == "https://example.org/methanol"
    assert body["extractor"] and body["created_at"]

    new = client.get(_path(cited["doc_id"], changed.json()["version"])).json()
    assert new["current"] is True and new["text"].startswith("Revised sheet.")
    for p in new["passages"]:
        assert 0 <= p["start"] < p["end"] <= len(new["text"])


def test_unreadable_and_unknown_versions_are_404(acl_tether, client_for):
    finance = add_key(acl_tether, "finance", "finance")
    staff = add_key(acl_tether, "staff", "staff")
    client = client_for(acl_tether)
    secret = next(d for d in acl_tether.store.documents() if d.source == FINANCE_SOURCE)
    version = acl_tether.store.current_version(secret.doc_id)
    assert version is not None
    seen = client.get(_path(secret.doc_id, version), headers=bearer(finance))
    assert seen.status_code == 200 and "Osprey" in seen.json()["text"]

    hidden = client.get(_path(secret.doc_id, version), headers=bearer(staff))
    absent = client.get(_path("doc_" + "0" * 16, version), headers=bearer(staff))
    assert hidden.status_code == absent.status_code == 404
    assert hidden.json()["detail"] == absent.json()["detail"]  # same words: nothing to probe
    assert "osprey" not in hidden.text.lower()
    assert client.get(_path(secret.doc_id, version)).status_code == 401

    unknown = client.get(_path(secret.doc_id, "sha256:" + "0" * 64), headers=bearer(finance))
    assert unknown.status_code == 404 and "version" in unknown.json()["detail"]


def test_the_page_loads_without_a_key_and_nothing_else_does(acl_tether, client_for):
    add_key(acl_tether, "ops", "finance")
    client = client_for(acl_tether)
    page = client.get("/")
    assert page.status_code == 200 and "Tether" in page.text
    for name in ("reader.js", "reader.css", "sse.js", "common.js", "docview.js"):
        assert (STATIC_DIR / name).is_file()
        assert client.get("/" + name).status_code == 200, name
    # Only reads of the page's own files are open; the API and unknown paths are not.
    assert client.post("/reader.js").status_code == 401
    assert client.get("/openapi.json").status_code == 401
    assert client.get("/nothing-here.js").status_code == 401
    assert client.post("/v1/answers", json={"question": "methanol?"}).status_code == 401


def test_the_page_makes_no_external_reference():
    """No CDN, font service or remote image: every URL in the page's files is relative."""
    import re

    for path in STATIC_DIR.rglob("*"):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        for found in re.finditer(r"(?:src|href)\s*=\s*\"([^\"]+)\"|url\(([^)]+)\)|@import", text):
            assert found.group(0) != "@import", path
            target = (found.group(1) or found.group(2) or "").strip("'\"")
            assert not re.match(r"^(?:[a-z]+:)?//", target), (path.name, target)
