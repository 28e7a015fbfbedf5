"""A PDF document whose ``file://`` source became a FIFO (issue 34 item 8): every page
request answers 409 at once, and no server thread is left blocked in ``open()``
(before: 504 after ``request_timeout_s``, and one thread more per request, for good).
Through the real CLI (ingest) and a real ``python -m tether serve``."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from tether import Tether, ids

from .conftest import server_process
from .test_pdf_page import _cli, _pdf

REQUESTS = 45


def threads_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/proc/self/task").is_dir(),
                    reason="needs FIFOs and /proc")
def test_a_fifo_source_answers_409_and_leaves_no_thread_blocked(tmp_path: Path):
    folder = tmp_path / "files"
    folder.mkdir()
    pdf = folder / "manual.pdf"
    pdf.write_bytes(_pdf([[("The Harlow Bend store holds at most 480 litres.", 90.0)]], "manual")[0])
    db = tmp_path / "pages.db"
    _cli("ingest", "--db", str(db), "--license", "CC0", "--fetched-at", "2026-01-05", str(pdf))
    doc_id = ids.doc_id_for(pdf.resolve().as_uri())
    with Tether(db, create=False) as tether:
        found = tether.store.version(doc_id)
        assert found is not None
        version = found.version
    page = f"/v1/documents/{doc_id}/versions/{version}/pages/1"
    # A short deadline, so that a blocked open() would show as 504s within the test.
    env = {"TETHER_REQUEST_TIMEOUT_S": "2"}
    with server_process(db, env=env) as (url, _, proc), httpx.Client(base_url=url, timeout=60) as http:
        assert http.get(page).status_code == 200  # the worker pool is started
        assert http.get(page + ".png").status_code == 200
        before = threads_of(proc.pid)
        pdf.unlink()
        os.mkfifo(pdf)  # no writer ever opens it
        for n in range(REQUESTS):
            response = http.get(page + (".png" if n % 2 else ""))
            assert response.status_code == 409, response.text
            assert response.headers["content-type"] == "application/problem+json"
            assert "not available" in response.json()["detail"]
        after = threads_of(proc.pid)
        assert http.get("/healthz").status_code == 200
    # A request leaves at most its idle pool thread behind, never one per request.
    assert after <= before + 2, (before, after)
