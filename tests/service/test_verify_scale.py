"""POST /v1/verify with many sentences and many passages (issue 16, item 3)."""

from __future__ import annotations

from tether.config import Settings

from tests.cli.test_verify_cli import _many


def test_ten_thousand_by_ten_thousand_is_refused_by_the_body_limit(demo_tether, client_for):
    response = client_for(demo_tether).post("/v1/verify", json=_many(10_000, 10_000))
    assert response.status_code == 413
    assert response.headers["content-type"] == "application/problem+json"
    assert "larger than the limit" in response.json()["detail"]
    assert "max_request_bytes" in response.json()["detail"]  # the error names the setting


def test_more_pairs_than_max_verify_pairs_is_refused_naming_the_setting(demo_tether, client_for):
    response = client_for(demo_tether).post("/v1/verify", json=_many(1000, 1000))
    assert response.status_code == 413, response.text
    assert response.headers["content-type"] == "application/problem+json"
    detail = response.json()["detail"]
    assert "1000 sentences x 1000 passages" in detail and "max_verify_pairs" in detail


def test_many_sentences_by_many_passages_answer_within_the_request_timeout(demo_tether, client_for):
    # 1,000 x 2,000 pairs in full take several minutes; the index keeps each sentence to
    # max_alignments alignments (the pair bound raised to let it in). The deadline is
    # generous so a loaded machine does not fail what is a bound on work, not a timing.
    settings = Settings(max_verify_pairs=2_000_000, request_timeout_s=600)
    response = client_for(demo_tether, settings=settings).post("/v1/verify", json=_many(1000, 2000))
    assert response.status_code == 200, response.text
    results = response.json()["sentences"]
    assert [r["outcome"] for r in results[::2]] == ["supported"] * 500
    assert results[2]["passage_id"] == f"p{(2 * 7919) % 2000}"
