"""``GET /v1/documents`` (paging, ACL filtering) and the recorded ``DELETE``, through a
real uvicorn server on loopback and in process."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from tether import Tether, ids
from tether.config import Settings
from tether.service import create_app

from .conftest import (
    FINANCE_SOURCE,
    HR_SOURCE,
    PUBLIC_DOCS,
    add_key,
    bearer,
    build_acl_store,
    ingest_text,
    uvicorn_thread,
)

HIDDEN = (FINANCE_SOURCE, HR_SOURCE, "kestrel", "salary")


def _walk(client: httpx.Client, headers: dict[str, str], limit: int) -> tuple[list[dict], int]:
    """Every entry, following next_cursor; and how many pages that took."""
    entries: list[dict] = []
    params: dict[str, object] = {"limit": limit}
    pages = 0
    while True:
        response = client.get("/v1/documents", params=params, headers=headers)
        assert response.status_code == 200, response.text
        body = response.json()
        assert len(body["documents"]) <= limit
        entries += body["documents"]
        pages += 1
        if body["next_cursor"] is None:
            return entries, pages
        params = {"limit": limit, "cursor": body["next_cursor"]}


@pytest.fixture
def live(tmp_path: Path):
    """A real server over the ACL store, with a public-only key and a finance key."""
    tether = build_acl_store(tmp_path / "acl.db")
    for n in range(5):  # enough public documents for several pages
        ingest_text(tether, f"https://example.org/sheet-{n}", f"Sheet {n}",
                    f"Safety sheet {n} lists the storage class of solvent {n}.", ("public",))
    keys = {"reader": add_key(tether, "reader", "staff"), "finance": add_key(tether, "fin", "finance")}
    try:
        with uvicorn_thread(create_app(tether)) as url, httpx.Client(base_url=url, timeout=30) as client:
            yield client, keys, tether
    finally:
        tether.close()


def test_pages_cover_exactly_the_readable_documents_in_source_order(live):
    client, keys, _ = live
    public_sources = sorted([*PUBLIC_DOCS, *(f"https://example.org/sheet-{n}" for n in range(5))])
    whole, pages = _walk(client, bearer(keys["reader"]), limit=500)
    assert pages == 1 and [e["source"] for e in whole] == public_sources
    paged, pages = _walk(client, bearer(keys["reader"]), limit=2)
    assert paged == whole and pages == 4  # 7 documents, 2 a page
    raw = client.get("/v1/documents", params={"limit": 500}, headers=bearer(keys["reader"])).text.lower()
    assert not any(marker.lower() in raw for marker in HIDDEN)

    finance, _ = _walk(client, bearer(keys["finance"]), limit=3)
    assert [e["source"] for e in finance] == sorted([*public_sources, FINANCE_SOURCE])
    memo = next(e for e in finance if e["source"] == FINANCE_SOURCE)
    assert memo["doc_id"] == ids.doc_id_for(FINANCE_SOURCE) and memo["acl"] == ["finance"]
    assert memo["version_count"] == 1 and memo["passage_count"] >= 1
    one = client.get(f"/v1/documents/{memo['doc_id']}", headers=bearer(keys["finance"])).json()
    assert memo["version"] == one["version"] and memo["passage_count"] == len(one["passages"])
    assert client.get("/v1/documents").status_code == 401  # keys exist: anonymous is refused


@pytest.mark.parametrize("params, status", [
    ({"limit": 0}, 422), ({"limit": 501}, 422), ({"limit": "x"}, 422),
    ({"cursor": "not a cursor"}, 400), ({"cursor": "WzFd"}, 400),  # "[1]": JSON, wrong shape
])
def test_bad_paging_is_problem_json(live, params, status):
    client, keys, _ = live
    response = client.get("/v1/documents", params=params, headers=bearer(keys["reader"]))
    assert response.status_code == status
    assert response.headers["content-type"].startswith("application/problem+json")


def test_delete_records_the_removal_and_citations_resolve_missing_with_the_reason(live):
    client, keys, _ = live
    finance = bearer(keys["finance"])
    answer = client.post("/v1/answers", json={"question": "What is the budget of Project Kestrel?"},
                         headers=finance).json()
    citation = next(c for s in answer["sentences"] for c in s["citations"])
    assert citation["source"] == FINANCE_SOURCE
    doc_id = citation["doc_id"]
    # A key that cannot read it cannot delete it, and learns nothing: 404 as for no document.
    refused = client.delete(f"/v1/documents/{doc_id}", headers=bearer(keys["reader"]))
    assert refused.status_code == 404
    assert refused.json()["detail"] == client.delete(
        "/v1/documents/doc_00000000000000000000", headers=finance).json()["detail"]
    assert client.post("/v1/citations/resolve", json=citation, headers=finance).json()["status"] == "exact"

    deleted = client.delete(f"/v1/documents/{doc_id}", params={"reason": "deal closed"}, headers=finance)
    assert deleted.status_code == 204
    assert doc_id not in {e["doc_id"] for e in _walk(client, finance, limit=500)[0]}
    resolved = client.post("/v1/citations/resolve", json=citation, headers=finance).json()
    assert resolved["status"] == "missing"
    assert resolved["note"].startswith(f"document {doc_id} ({FINANCE_SOURCE}) was removed on 20")
    assert resolved["note"].endswith("by service (finance, public): deal closed")
    hidden = client.post("/v1/citations/resolve", json=citation, headers=bearer(keys["reader"])).json()
    assert hidden["status"] == "missing" and "removed" not in hidden["note"]
    assert not any(marker.lower() in json.dumps(hidden).lower() for marker in ("deal closed", FINANCE_SOURCE))


def test_a_page_boundary_holds_when_a_listed_document_is_removed(tmp_path, client_for):
    with Tether(tmp_path / "s.db", settings=Settings()) as tether:
        for n in range(6):
            ingest_text(tether, f"https://example.org/{n}", f"Doc {n}", f"Document {n} text.", ("public",))
        client = client_for(tether)
        first = client.get("/v1/documents", params={"limit": 3}).json()
        assert [e["title"] for e in first["documents"]] == ["Doc 0", "Doc 1", "Doc 2"]
        # Removing the last entry of the page (the cursor's own document) skips nothing.
        assert client.delete(f"/v1/documents/{first['documents'][-1]['doc_id']}").status_code == 204
        rest = client.get("/v1/documents", params={"limit": 3, "cursor": first["next_cursor"]}).json()
        assert [e["title"] for e in rest["documents"]] == ["Doc 3", "Doc 4", "Doc 5"]
        assert rest["next_cursor"] is None
    with Tether(tmp_path / "empty.db", settings=Settings()) as nothing:
        empty = client_for(nothing).get("/v1/documents")
        assert empty.json() == {"documents": [], "next_cursor": None}
