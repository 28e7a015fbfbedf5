"""PostgreSQL search ranks only passages that can reach the top rows (ADR 0026): the
same hits, scores and order as the exhaustive query that ranks every match, with and
without an ACL, while it actually leaves passages out."""

from __future__ import annotations

import itertools
import random
import time

import psycopg
import pytest

from tether import ids
from tether.records import Document, Passage, Version

from .test_postgres import _pg

_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def _corpus(seed: int = 3, documents: int = 40, per_document: int = 15):
    """Zipf-distributed pseudo-words: a few words in a third of the passages, many in
    a handful, as in natural text; half the documents public, half for ``team``."""
    rng = random.Random(seed)
    words = sorted({"".join(rng.choices(_SYLLABLES, k=3)) for _ in range(700)})[:500]
    rng.shuffle(words)
    cumulative = list(itertools.accumulate(1.0 / (r + 1) for r in range(len(words))))
    out = []
    for d in range(documents):
        chunks = [
            " ".join(rng.choices(words, cum_weights=cumulative, k=30)) + "."
            for _ in range(per_document)
        ]
        text = " ".join(chunks)
        source = f"https://pruned.invalid/{d}"
        document = Document(
            ids.doc_id_for(source),
            source,
            f"Doc {d}",
            "CC0",
            "2026-01-01",
            "text/plain",
            acl=("public",) if d % 2 == 0 else ("team",),
        )
        version = Version(
            document.doc_id, ids.version_of(text), text, "test", "2026-01-01"
        )
        passages, start = [], 0
        for chunk in chunks:
            end = start + len(chunk)
            passages.append(
                Passage(
                    ids.passage_id_for(document.doc_id, version.version, start, end),
                    document.doc_id,
                    version.version,
                    start,
                    end,
                    chunk,
                )
            )
            start = end + 1
        out.append((document, version, passages))
    return words, out


def _questions(words, n: int = 60, seed: int = 5):
    rng = random.Random(seed)
    return [
        [
            words[rng.randrange(0, 12)],
            words[rng.randrange(12, 80)],
            words[rng.randrange(12, 80)],
            words[rng.randrange(80, 500)],
        ]
        for _ in range(n)
    ]


def _ranking(hits):
    return [(h.passage.doc_id, h.passage.passage_id) for h in hits], [
        h.score for h in hits
    ]


@pytest.fixture
def filled(pg_backend, pg_url):
    writer = pg_backend.open()
    words, documents = _corpus()
    for document, version, passages in documents:
        writer.put(document, version, passages)
    written = sum(len(p) for _, _, p in documents)
    # Settle the passage count the weights use, so both rankings see the same one: a
    # pooled connection reports its inserts to the statistics when it goes (or up to
    # 10 s after it idles), so the writer's connections close first.
    writer.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        deadline = time.monotonic() + 20
        live = "SELECT pg_stat_get_live_tuples('passages'::regclass)"
        while (
            conn.execute(live).fetchone()[0] < written and time.monotonic() < deadline
        ):
            time.sleep(0.1)
        conn.execute("ANALYZE passages")
    return pg_backend.open(), words


def _ranked_groups(store, terms, limit, principals):
    """The term groups the final ranking matched on (the query reports them)."""
    pg = _pg()
    statement = pg.search_sql(len(terms), store.language, acl=principals is not None)
    rows = store._rows(statement, pg._search_args(terms, principals, limit))
    return set(rows[0]["ranked_groups"]) if rows else None


@pytest.mark.parametrize("limit", [1, 3, 8])
@pytest.mark.parametrize("principals", [None, ["public"], ["nobody"]])
def test_pruned_ranking_equals_the_exhaustive_one_and_leaves_passages_out(
    filled, limit, principals
):
    store, words = filled
    questions = _questions(words)
    pruned_questions = 0
    for terms in questions:
        pruned = store.search(terms, limit=limit, principals=principals)
        full = store._search(terms, limit=limit, principals=principals, exhaustive=True)
        ids_pruned, scores_pruned = _ranking(pruned)
        ids_full, scores_full = _ranking(full)
        assert ids_pruned == ids_full, terms
        assert scores_pruned == pytest.approx(scores_full, rel=1e-12, abs=0), terms
        ranked = _ranked_groups(store, terms, limit, principals)
        pruned_questions += ranked is not None and len(ranked) < len(terms)
    if principals == ["nobody"]:
        assert pruned_questions == 0  # nothing readable: nothing ranked
    else:
        assert pruned_questions >= len(questions) // 4


def test_a_term_of_several_lexemes_is_never_left_out(filled):
    # 'a-b' is one question term but the tsquery 'a-b' & 'a' & 'b': its ts_rank has no
    # 0.1 bound, so nothing is pruned and the ranking is the exhaustive one.
    store, words = filled
    terms = [words[0], f"{words[20]}-{words[30]}", words[200]]
    hits = store.search(terms, limit=3)
    assert _ranking(hits) == _ranking(store._search(terms, limit=3, exhaustive=True))
    # The commonest word stays in the match (the compound itself is in no passage).
    assert _ranked_groups(store, terms, 3, None) == {0, 2}
    # Without it, the commonest word is left out of the match (the control).
    assert _ranked_groups(store, [words[0], words[200]], 3, None) == {1}


def test_common_terms_take_their_frequency_from_the_statistics(filled):
    # After ANALYZE (which reads every row of this small table) the statistics'
    # share of a common word equals its count, so the weights, and the ranking, are
    # the exhaustive query's even where the count was not made.
    pg = _pg()
    store, words = filled
    statement = pg.search_sql(2, store.language, acl=False).as_string(None)
    assert "most_common_elem_freqs" in statement
    for terms in ([words[0], words[1]], [words[2], words[300]]):
        assert _ranking(store.search(terms, limit=5)) == _ranking(
            store._search(terms, limit=5, exhaustive=True)
        )


def test_stop_words_and_unknown_words_rank_nothing_or_only_what_matches(filled):
    store, words = filled
    assert store.search(["the", "and"], limit=5) == []
    assert store.search(["zzqxnotaword"], limit=5) == []
    hits = store.search(["the", "zzqxnotaword", words[100]], limit=5)
    assert hits and _ranking(hits) == _ranking(
        store._search(["the", "zzqxnotaword", words[100]], limit=5, exhaustive=True)
    )


def test_ts_rank_of_one_lexeme_stays_below_the_bound(pg_url):
    # The pruning's premise, on this server: one lexeme repeated far past ts_rank's
    # 256 positions stays below TS_RANK_BOUND, and a query of two lexemes exceeds it.
    pg = _pg()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        one = conn.execute(
            "SELECT max(ts_rank(to_tsvector('english', repeat('kestrel ', n)), plainto_tsquery('english', 'kestrel')))"
            " FROM generate_series(1, 2000, 37) n"
        ).fetchone()[0]
        two = conn.execute(
            "SELECT ts_rank(to_tsvector('english', repeat('kestrel harlow ', 300)),"
            " plainto_tsquery('english', 'kestrel harlow'))"
        ).fetchone()[0]
    assert 0.09 < one < pg.TS_RANK_BOUND
    assert two > pg.TS_RANK_BOUND


def test_search_sql_binds_terms_principals_and_limits():
    pg = _pg()
    text = pg.search_sql(4, "english", acl=True).as_string(None)
    assert text.count("plainto_tsquery('english'::regconfig, %s)") == 4
    assert (
        text.count("%s") == len(pg._search_args(["a"] * 4, ["public"], 8)) == 4 + 2 + 3
    )
    assert text.count("p.acl && %s::text[]") == 2
    assert "p.acl &&" not in pg.search_sql(1, "english", acl=False).as_string(None)
    assert pg.search_sql(1, "english", acl=False).as_string(None).count("%s") == 1 + 3
    wide = pg.search_sql(500, "english", acl=False).as_string(None)
    assert wide.count("%s") == 500 + 3
    assert (
        f"AS w{pg.MAX_TERM_GROUPS - 1}" in wide
        and f"AS w{pg.MAX_TERM_GROUPS}" not in wide
    )


def test_store_connections_run_without_jit(pg_backend):
    # JIT compiling the search statement cost 380 ms of a 1 s search at 1M passages.
    store = pg_backend.open()
    assert store._rows("SHOW jit")[0]["jit"] == "off"
