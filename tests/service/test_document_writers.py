"""Reading a document is not the right to rewrite or delete it (issue 19 §3), through a
real ``python -m tether serve`` on loopback: the first uploader's principals are the
document's writers; a reader who is not one cannot re-upload its source with a
narrower ACL (locking its owner out) nor delete it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tether import Tether
from tether.config import Settings

from .conftest import add_key, bearer, ingest_text, serve_process

SOURCE = "https://example.org/lamp-oil"
TEXT = "Lamp oil has a flash point above 55 degrees Celsius."


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[httpx.Client, dict[str, str]]]:
    db = tmp_path / "writers.db"
    with Tether(db, settings=Settings()) as tether:
        keys = {name: add_key(tether, name, name) for name in ("owner", "reader")}
        ingest_text(tether, "https://example.org/cli-public", "CLI public",
                    "Diesel has a flash point above 52 degrees Celsius.", ("public",))
        ingest_text(tether, "https://example.org/cli-owner", "CLI owner's",
                    "The owner's memo is about kerosene.", ("owner",))
    with serve_process(db) as (url, _), httpx.Client(base_url=url, timeout=60) as http:
        yield http, keys


def upload(http: httpx.Client, key: str, text: str, acl: list[str], source: str = SOURCE) -> httpx.Response:
    return http.post("/v1/documents", headers=bearer(key),
                     json={"source": source, "text": text, "acl": acl, "title": "Lamp oil"})


def doc_id_of(http: httpx.Client, key: str, source: str) -> str:
    listed = http.get("/v1/documents", headers=bearer(key), params={"limit": 500}).json()
    return next(d["doc_id"] for d in listed["documents"] if d["source"] == source)


def test_a_reader_cannot_narrow_the_acl_of_a_public_document_nor_delete_it(server):
    http, keys = server
    created = upload(http, keys["owner"], TEXT, ["public"])
    assert created.status_code == 201, created.text
    doc_id = created.json()["doc_id"]
    assert http.get(f"/v1/documents/{doc_id}", headers=bearer(keys["reader"])).status_code == 200

    # The attack of the issue: re-upload the source readable by the attacker alone.
    hijack = upload(http, keys["reader"], TEXT + " Ask mallory.", ["reader"])
    assert hijack.status_code == 403, hijack.text
    assert "only its writers" in hijack.json()["detail"]
    gone = http.delete(f"/v1/documents/{doc_id}", headers=bearer(keys["reader"]))
    assert gone.status_code == 403, gone.text

    # Nothing changed: the owner still reads the same text, the reader still reads it.
    view = http.get(f"/v1/documents/{doc_id}", headers=bearer(keys["owner"])).json()
    assert view["text"] == TEXT and view["acl"] == ["public"]
    assert http.get(f"/v1/documents/{doc_id}", headers=bearer(keys["reader"])).status_code == 200

    # The owner may rewrite and delete it.
    assert upload(http, keys["owner"], TEXT + " Revised.", ["public"]).status_code == 201
    assert http.delete(f"/v1/documents/{doc_id}", headers=bearer(keys["owner"])).status_code == 204
    # Once deleted, the source is free: whoever uploads it next owns it.
    assert upload(http, keys["reader"], TEXT, ["reader"]).status_code == 201
    assert upload(http, keys["owner"], TEXT, ["owner"]).status_code == 403


def test_documents_from_the_cli_are_written_by_the_principals_of_their_acl(server):
    http, keys = server
    public = doc_id_of(http, keys["reader"], "https://example.org/cli-public")
    assert http.delete(f"/v1/documents/{public}", headers=bearer(keys["reader"])).status_code == 403
    assert http.delete(f"/v1/documents/{public}", headers=bearer(keys["owner"])).status_code == 403
    assert upload(http, keys["reader"], "Diesel is safe.", ["reader"],
                  source="https://example.org/cli-public").status_code == 403
    owned = doc_id_of(http, keys["owner"], "https://example.org/cli-owner")
    assert http.delete(f"/v1/documents/{owned}", headers=bearer(keys["owner"])).status_code == 204


def test_a_document_the_caller_cannot_read_still_answers_404_on_delete(server):
    http, keys = server
    owned = doc_id_of(http, keys["owner"], "https://example.org/cli-owner")
    response = http.delete(f"/v1/documents/{owned}", headers=bearer(keys["reader"]))
    assert response.status_code == 404 and response.json()["detail"] == "no such document"
