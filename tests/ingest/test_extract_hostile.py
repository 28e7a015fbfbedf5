"""Hostile documents reach nothing outside themselves: extraction resolves no external
entity (XXE), fetches no linked resource, and reads no local file a page points at."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from tether.config import Settings
from tether.ingest.extract import extract_bytes


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server that records every request it gets."""
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            seen.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"FETCHED-SECRET")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_no_entity_file_or_url_is_resolved(tmp_path, listener) -> None:
    url, seen = listener
    secret = tmp_path / "secret.txt"
    secret.write_text("LOCAL-FILE-SECRET")
    page = (
        f'<?xml version="1.0"?><!DOCTYPE html [<!ENTITY f SYSTEM "file://{secret}">'
        f'<!ENTITY u SYSTEM "{url}/entity">]>'
        f'<html><head><link rel="stylesheet" href="{url}/css"><script src="{url}/js"></script>'
        f'<meta http-equiv="refresh" content="0; url={url}/refresh"></head><body>'
        f'<article><h1>Gloves</h1><p>Nitrile gloves resist most solvents &f; &u; for short '
        f'contact.</p><img src="{url}/img"><iframe src="{url}/frame"></iframe>'
        f'<object data="file://{secret}"></object></article></body></html>'
    )
    for data in (page.encode(), page.replace('<?xml version="1.0"?>', "").encode()):
        text = extract_bytes(data, media_type="text/html", settings=Settings()).text
        assert "Nitrile gloves resist most solvents" in text
        assert "SECRET" not in text
    assert seen == []
