"""SQLite search ranks in the FTS index alone and joins only its top rows; with an ACL
it filters the best candidates and falls back to ranking every readable match when
too few are readable. Either way the hits are exactly those of the full query."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tether import ids
from tether.records import Document, Passage, Version
from tether.store import sqlite as backend
from tether.store.sqlite import SQLiteStore

WORDS = ["valve", "pump", "seal", "gasket", "hose", "drum", "filter", "nozzle", "alarm", "sensor"]


def _store(path: Path) -> SQLiteStore:
    rnd = random.Random(5)
    store = SQLiteStore(path)
    for n in range(120):
        text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 30))) + "."
        source = f"https://t.invalid/{n}"
        acl = ("public",) if n % 5 == 0 else ("team",) if n % 5 < 3 else ("ops",)
        doc = Document(ids.doc_id_for(source), source, f"d{n}", "CC0", "2026-01-01", "text/plain", acl)
        version = Version(doc.doc_id, ids.version_of(text), text, "test", "2026-01-01")
        passage = Passage(ids.passage_id_for(doc.doc_id, version.version, 0, len(text)), doc.doc_id,
                          version.version, 0, len(text), text)
        store.put(doc, version, [passage])
    return store


def _full(store: SQLiteStore, terms: list[str], limit: int, principals: list[str] | None) -> list[str]:
    acl, params = store._acl_clause(principals)
    rows = store._rows(backend._FULL_SEARCH.format(acl=acl), [backend.fts_query(terms), *params, limit])
    return [r["passage_id"] for r in rows]


@pytest.mark.parametrize("candidates", [1, 2, 8])
def test_top_candidates_give_the_hits_of_the_full_query(tmp_path, monkeypatch, candidates):
    monkeypatch.setattr(backend, "_CANDIDATES", candidates)
    store = _store(tmp_path / "s.db")
    try:
        for terms in (["valve"], ["pump", "alarm"], ["seal", "nozzle", "drum"], ["zzz"]):
            for principals in (None, ["public"], ["ops"], ["team", "ops"], ["nobody"]):
                for limit in (1, 5, 40):
                    hits = store.search(terms, limit=limit, principals=principals)
                    assert [h.passage.passage_id for h in hits] == _full(store, terms, limit, principals)
                    scores = [h.score for h in hits]
                    assert scores == sorted(scores, reverse=True)
    finally:
        store.close()
