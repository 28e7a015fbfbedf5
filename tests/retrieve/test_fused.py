"""Fused retrieval (retrieve/fused.py): BM25's pool re-ranked by reciprocal-rank fusion
with the shipped embedder, through real SQLite and PostgreSQL stores.

The rules are tested (what is fused, from which pool, in what order, what is cached);
how much it finds is measured in bench/retrieval_recall.py."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from tether import readers
from tether.config import Settings, load_settings
from tether.errors import ConfigError
from tether.facade import Tether
from tether.ingest.files import Metadata
from tether.ingest.write import ingest_bytes
from tether.readers import Embedder
from tether.retrieve.fused import PassageVectors, fuse, fused_retrieve, passage_text, ranked
from tether.retrieve.search import retrieve

# One fact said in the question's words nowhere: BM25 ranks the passages that repeat
# "server" and "logs" first; the one about rotating and compressing old files says it
# in other words.
DOCS = {
    "server.txt": "\n\n".join([
        "The server writes logs. The server logs requests. Server logs list server requests.",
        "Each server keeps logs of its own; logs of the server are plain text.",
        "Old log files are rotated every night and compressed with gzip after seven days.",
        "The server reads its configuration at start and logs the settings it read.",
        "Logs show the server version. The server prints logs to standard error too.",
    ]),
    "other.txt": "Unrelated text about gardening: tomatoes need sun, water and the server of soil logs.",
}
QUESTION = "How long does the server keep its logs before shrinking them?"


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    directory = readers.model_dir(readers.EMBEDDER)
    if not (directory / "model.onnx").is_file():
        pytest.skip("the shipped embedder is not in this checkout")
    # One text a run: each vector is then independent of its batch-mates, so the test
    # can recompute the similarity order exactly.
    return Embedder(directory, batch_size=1, threads=1)


def _fill(tether: Tether, acl: Sequence[str] = ("public",)) -> None:
    for name, text in DOCS.items():
        ingest_bytes(tether.store, text.encode(), media_type="text/plain",
                     meta=Metadata(source=f"file:///{name}", title=name, acl=tuple(acl)),
                     settings=tether.settings.replace(passage_chars=90))


@pytest.fixture
def tether(tmp_path):
    with Tether(tmp_path / "t.db", settings=Settings(retrieval="bm25")) as t:
        _fill(t)
        yield t


def test_fuse_sums_reciprocal_ranks_and_breaks_ties_by_the_first_ranking():
    # Reversed: the ends tie and the middles tie (1/60 + 1/63 = 1/63 + 1/60); the
    # first ranking breaks each tie, and the ends beat the middles.
    assert fuse([[0, 1, 2, 3], [3, 2, 1, 0]]) == [0, 3, 1, 2]
    assert fuse([[0, 1, 2], [2, 0, 1]], c=1) == [0, 2, 1]
    assert fuse([[5, 6], [6, 9]], c=1) == [6, 5]  # only the first ranking's items


def _expected(store: Any, embedder: Embedder, k: int, pool: int) -> list[str]:
    hits = retrieve(store, QUESTION, k=max(k, pool))
    question = embedder.embed([QUESTION])[0]
    similarity = [float(embedder.embed([passage_text(h)])[0] @ question) for h in hits]
    by_meaning = sorted(range(len(hits)), key=lambda i: (-similarity[i], i))
    return [hits[i].passage.passage_id for i in fuse([range(len(hits)), by_meaning])[:k]]


def test_the_pool_is_reordered_by_fusion_and_nothing_else_comes_in(tether, embedder):
    pool = retrieve(tether.store, QUESTION, k=6)
    hits = fused_retrieve(tether.store, QUESTION, k=4, pool=6, embedder=embedder,
                          cache=PassageVectors())
    assert [h.passage.passage_id for h in hits] == _expected(tether.store, embedder, 4, 6)
    assert [h.rank for h in hits] == [0, 1, 2, 3]
    by_id = {h.passage.passage_id: h for h in pool}
    for hit in hits:  # each one of BM25's pool, with its BM25 score kept
        assert hit.score == by_id[hit.passage.passage_id].score
    assert any("compressed" in h.passage.text for h in hits)


def test_the_reworded_passage_rises_above_its_bm25_rank(tether, embedder):
    bm25 = [h.passage.text for h in retrieve(tether.store, QUESTION, k=8)]
    fused = [h.passage.text for h in fused_retrieve(tether.store, QUESTION, k=8, pool=8,
                                                     embedder=embedder, cache=PassageVectors())]
    where = next(i for i, t in enumerate(bm25) if "compressed" in t)
    assert fused.index(bm25[where]) < where


def test_nothing_to_fuse_is_returned_as_it_is(tether, embedder):
    assert fused_retrieve(tether.store, "what is the", k=4, pool=8, embedder=embedder) == []
    one = retrieve(tether.store, "tomatoes", k=4)
    assert len(one) == 1
    assert fused_retrieve(tether.store, "tomatoes", k=4, pool=8, embedder=embedder) == one


def test_a_passage_is_read_once_per_process_and_a_new_version_again(tether, embedder):
    @dataclasses.dataclass
    class Counting:  # the real embedder, counting the texts it reads
        inner: Embedder
        texts: int = 0

        @property
        def sha256(self) -> str:
            return self.inner.sha256

        def embed(self, texts: Sequence[str]) -> Any:
            self.texts += len(texts)
            return self.inner.embed(texts)

    counting, cache = Counting(embedder), PassageVectors()
    first = fused_retrieve(tether.store, QUESTION, k=4, pool=6, embedder=counting, cache=cache)
    pooled = len(retrieve(tether.store, QUESTION, k=6))
    assert counting.texts == 1 + pooled
    again = fused_retrieve(tether.store, QUESTION, k=4, pool=6, embedder=counting, cache=cache)
    assert counting.texts == 2 + pooled and again == first  # only the question read again
    ingest_bytes(tether.store, DOCS["server.txt"].replace("seven", "ten").encode(),
                 media_type="text/plain", meta=Metadata(source="file:///server.txt", title="server.txt"),
                 settings=tether.settings.replace(passage_chars=90))
    fused_retrieve(tether.store, QUESTION, k=4, pool=6, embedder=counting, cache=cache)
    assert counting.texts > 3 + pooled  # the new version's passages are read anew


def test_a_bounded_cache_drops_the_least_recently_used(tether, embedder):
    cache = PassageVectors(capacity=2)
    fused_retrieve(tether.store, QUESTION, k=4, pool=6, embedder=embedder, cache=cache)
    assert len(cache._vectors) == 2


def test_the_acl_filter_holds(tmp_path, embedder):
    with Tether(tmp_path / "acl.db", settings=Settings(retrieval="bm25")) as t:
        _fill(t, acl=("staff",))
        assert fused_retrieve(t.store, QUESTION, k=4, pool=8, embedder=embedder,
                              principals=["public"]) == []
        assert fused_retrieve(t.store, QUESTION, k=4, pool=8, embedder=embedder, principals=["staff"])


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_pipeline_answers_with_fused_retrieval(backend, tmp_path, request):
    location = request.getfixturevalue("pg_url") if backend == "postgresql" else tmp_path / "p.db"
    with Tether(location, settings=Settings(retrieval="fused", retrieval_pool=8)) as t:
        _fill(t)
        answer = t.ask("What are old log files compressed with?", record=False)
        fused = ranked(t.store, "What are old log files compressed with?", k=4, retrieval="fused",
                       pool=8)
    assert not answer.refused, answer
    assert any("compressed" in s.text for s in answer.sentences)
    assert "compressed" in fused[0].passage.text


def test_the_setting_is_checked(monkeypatch):
    monkeypatch.setenv("TETHER_RETRIEVAL", "semantic")
    with pytest.raises(ConfigError, match="retrieval must be one of fused, bm25"):
        load_settings()
    monkeypatch.setenv("TETHER_RETRIEVAL", "bm25")
    assert load_settings().retrieval == "bm25"
    monkeypatch.delenv("TETHER_RETRIEVAL")
    assert Settings().retrieval == "fused"
    with pytest.raises(ConfigError, match="retrieval_pool must be at least 1"):
        load_settings(retrieval_pool=0)
