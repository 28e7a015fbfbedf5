"""The retrieval probe: signals, the score's meaning, reasons and steering text."""

import pytest
from abstain_corpus import make_tether

from tether.records import Document, Hit, Passage
from tether.retrieve.probe import (
    DEFAULT_THRESHOLD,
    MEANING,
    TermCounts,
    assess,
    probe,
    probe_retrieved,
    steering_text,
)
from tether.retrieve.search import retrieve

DOC = Document("d1", "file:///toluene", "Toluene", "CC0", "2026-01-01", "text/plain")


def _hit(text: str, rank: int = 0, score: float = 5.0, doc: Document = DOC) -> Hit:
    return Hit(Passage(f"p{rank}", doc.doc_id, "v1", 0, len(text), text), doc, score, rank)


COUNTS = TermCounts(passages=100, df={"oasb": 20, "exposure": 30, "limit": 40, "toluene": 3})


def test_no_hits_is_empty():
    p = probe("What is the limit for toluene?", [], threshold=0.4, scorer="s")
    assert (p.signal, p.score, p.threshold, p.scorer) == ("empty", 0.0, 0.4, "s")


@pytest.mark.parametrize(
    ("threshold", "signal"), [(0.0, "ok"), (0.47, "ok"), (0.48, "weak"), (1.0, "weak")]
)
def test_signal_flips_at_the_threshold(threshold, signal):
    hit = _hit("The OASB 8-hour limit is 50 ppm.", doc=DOC)
    p = probe("What is the OASB exposure limit for xylene?", [hit], threshold=threshold,
              scorer="s", counts=COUNTS)
    assert p.score == pytest.approx(0.473, abs=1e-3)
    assert p.signal == signal


def test_a_word_nobody_uses_weighs_like_the_rarest_word_in_use():
    hit = _hit("The OASB 8-hour limit for toluene is 50 ppm.")
    absent = assess("What is the OASB exposure limit for xylene?", [hit], threshold=0.4,
                    scorer="s", counts=COUNTS)
    generic = assess("What is the OASB exposure limit for toluene?", [hit], threshold=0.4,
                     scorer="s", counts=COUNTS)
    # Each question misses one word of four. The word nobody uses costs as much as the
    # rarest word the collection does use ("oasb" here), not more: it may be a
    # paraphrase; an absent subject is refused by the answer check instead.
    assert absent.probe.score == pytest.approx((1.59 + 0.91) / (1.59 + 1.20 + 0.91 + 1.59), abs=2e-3)
    assert absent.probe.score < generic.probe.score
    assert absent.absent == ("xylene",)
    assert "'xylene' occurs nowhere in the collection" in absent.reason()
    assert generic.missing == ("exposure",)


def test_a_passage_far_from_the_question_in_meaning_is_weak_though_it_has_the_words():
    hit = _hit("The OASB 8-hour limit for toluene is 50 ppm.")
    q = "What is the OASB exposure limit for toluene?"
    far, near, words_only = (
        assess(q, [hit], threshold=0.32, scorer="s", counts=COUNTS, closeness=closeness)
        for closeness in (0.1, 0.7, None)
    )
    assert far.probe.score == near.probe.score == words_only.probe.score >= 0.32
    assert (far.signal, near.signal, words_only.signal) == ("weak", "ok", "ok")
    assert far.meaning == round(MEANING.reading(far.probe.score, 0.1), 3)
    assert far.meaning < MEANING.at <= near.meaning and words_only.meaning is None
    assert far.reason(q).endswith(
        "the closest passages are far from the question in words and meaning "
        f"(reading {far.meaning:.2f}, below {MEANING.at:.2f})")
    whole = _hit("The OASB exposure limit for toluene: none is set.")
    weak = assess(q, [whole], threshold=0.32, scorer="s", counts=COUNTS, closeness=0.1)
    assert weak.missing == ()
    assert "the passages are far from the question." in steering_text(weak, [whole])


def test_closeness_never_lets_through_what_the_words_refuse():
    hit = _hit("Exposure is measured hourly.")
    report = assess("What is the OASB exposure limit for xylene?", [hit], threshold=0.32,
                    scorer="s", counts=COUNTS, closeness=1.0)
    assert report.probe.score < 0.32 and report.meaning > MEANING.at
    assert report.signal == "weak"
    assert "'xylene' occurs nowhere in the collection" in report.reason()


def test_score_uses_best_single_passage_and_the_title():
    split = [_hit("Exposure is measured hourly.", 0), _hit("The OASB limit is 50 ppm.", 1)]
    p = assess("What is the OASB exposure limit for toluene?", split, threshold=0.0,
               scorer="s", counts=COUNTS)
    # "toluene" comes from the title; "exposure" only from another passage: not counted.
    assert p.missing == ("exposure",)
    assert p.best_passage_id == "p1"
    assert 0.0 < p.probe.score < 1.0


def test_without_counts_coverage_is_unweighted():
    p = probe("limit toluene xylene", [_hit("The limit is 50 ppm.", doc=DOC)], threshold=0.5,
              scorer="s")
    assert p.score == pytest.approx(2 / 3, abs=1e-3)


def test_steering_text_follows_the_signal():
    hits = [_hit("The OASB limit is 50 ppm.")]
    weak = assess("What is the OASB limit for xylene?", hits, threshold=0.9, scorer="s",
                  counts=COUNTS)
    text = steering_text(weak, hits)
    assert "Answer only from the numbered passages [1]-[1]" in text
    assert "'xylene'" in text and "say it is missing" in text
    ok = assess("What is the OASB limit for toluene?", hits, threshold=0.1, scorer="s",
                counts=COUNTS)
    assert "say that it is missing" in steering_text(ok, hits)
    empty = assess("anything", [], threshold=0.1, scorer="s")
    assert "does not contain the answer" in steering_text(empty, [])


def test_probe_over_a_real_store_uses_its_counts(tmp_path):
    with make_tether(tmp_path) as tether:
        q = "What is the Kestrel Board limit for xanthrol?"
        report = probe_retrieved(tether.store, q, retrieve(tether.store, q, k=8),
                                 threshold=DEFAULT_THRESHOLD)
        assert report.absent == ("xanthrol",)
        assert report.probe.scorer == tether.store.scorer
        q2 = "What is the Kestrel Board limit for brisol?"
        ok = probe_retrieved(tether.store, q2, retrieve(tether.store, q2, k=8),
                             threshold=DEFAULT_THRESHOLD)
        assert ok.probe.score == 1.0 and ok.signal == "ok"


def test_the_pipeline_reads_meaning_only_where_it_reads_the_embedder(tmp_path):
    question = "What is the Kestrel Board limit for brisol?"
    with make_tether(tmp_path / "trained", reader="trained") as tether:
        answer = tether.ask(question)
    assert not answer.refused and 0.0 <= answer.trace["probe"]["meaning"] <= 1.0
    with make_tether(tmp_path / "lexical", reader="lexical", retrieval="bm25") as tether:
        answer = tether.ask(question)
    assert not answer.refused and "meaning" not in answer.trace["probe"]
