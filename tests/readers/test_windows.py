"""The long input rule and the aggregation rule, on the shipped models.

The filler is words that are one token each, so a window's text read back from its
character span tokenizes to exactly that window: scoring the span alone must give the
numbers the long pair reported.
"""

from __future__ import annotations

import pytest

from tether.readers import CrossEncoder

from .conftest import shipped

FILLER = "the cat sat on the mat and the dog lay by the door ."
ANSWER = "The launch code of the orbital station is 4471 ."
QUESTION = "What is the launch code of the orbital station ?"


def long_text(words: int) -> str:
    unit = FILLER.split()
    filler = " ".join(unit[k % len(unit)] for k in range(words))
    return f"{filler} {ANSWER}"


def one_by_one(name: str) -> CrossEncoder:
    # One window per batch, so a window scores exactly as it does alone.
    return CrossEncoder(shipped(name), batch_size=1, threads=2)


def test_a_long_window_side_is_cut_into_overlapping_windows_and_the_other_kept_whole():
    m = one_by_one("answerability")
    text = long_text(20_000)
    windows = m.windows(QUESTION, text)
    limit = m.info.max_length
    question = m._tokenizer.encode(QUESTION, add_special_tokens=False).ids
    assert len(windows) > 20
    for w in windows:
        assert len(w.ids) <= limit
        assert list(w.ids[1 : 1 + len(question)]) == question  # the question, whole, in every one
    spans = [w.span for w in windows]
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(b[0] < a[1] for a, b in zip(spans, spans[1:]))  # consecutive windows overlap
    assert all(b[0] > a[0] for a, b in zip(spans, spans[1:]))  # and advance
    assert any(ANSWER in text[s:e] for s, e in spans)  # the answer whole in some window
    overlap = len(m._tokenizer.encode(text[spans[1][0] : spans[0][1]], add_special_tokens=False).ids)
    assert overlap == limit // 4


def test_a_long_pair_reports_its_most_positive_window_as_scored_alone():
    m = one_by_one("answerability")
    text = long_text(20_000)
    spans = [w.span for w in m.windows(QUESTION, text)]
    (reported,) = m.predict([(QUESTION, text)])
    pieces = sorted({text[s:e] for s, e in spans})  # the filler repeats: few distinct windows
    alone = dict(zip(pieces, m.predict([(QUESTION, piece) for piece in pieces]), strict=True))
    for piece in pieces:
        assert len(m.windows(QUESTION, piece)) == 1  # each window fits on its own
    yes = m.info.labels.index("yes")
    best = max(alone.values(), key=lambda row: row[yes])
    assert reported == best
    assert reported[yes] >= alone[text[spans[-1][0] : spans[-1][1]]][yes]  # the answer's window


def test_support_windows_the_premise_and_keeps_the_claim():
    m = one_by_one("support")
    claim = "The launch code of the orbital station is 4471."
    premise = long_text(3_000)
    windows = m.windows(premise, claim)
    ids = m._tokenizer.encode(claim, add_special_tokens=False).ids
    assert len(windows) > 2
    for w in windows:
        assert len(w.ids) <= m.info.max_length
        assert list(w.ids[-1 - len(ids) : -1]) == ids  # the claim, whole, after the window
    assert windows[0].span[0] == 0 and windows[-1].span[1] == len(premise)


def test_a_kept_side_longer_than_half_the_limit_is_cut_to_half():
    m = one_by_one("answerability")
    half = m.info.max_length // 2
    question = " ".join(["where"] * (3 * m.info.max_length))
    windows = m.windows(question, long_text(2_000))
    assert len(windows) > 1
    for w in windows:
        assert len(w.ids) <= m.info.max_length
        assert w.type_ids.count(0) == 2 + half  # [CLS] + half the question + [SEP]
    # A pair that fits is read whole, however its sides compare.
    (whole,) = m.windows(" ".join(["where"] * (half + 10)), "a short window")
    assert whole.type_ids.count(0) == 2 + half + 10


def test_support_reports_a_contradiction_that_outweighs_every_entailment():
    m = one_by_one("support")
    e, n, c = (m.info.labels.index(x) for x in ("entailment", "neutral", "contradiction"))

    def row(ent: float, neu: float, con: float) -> tuple[float, ...]:
        out = [0.0, 0.0, 0.0]
        out[e], out[n], out[c] = ent, neu, con
        return tuple(out)

    quiet, entails, contradicts = row(0.1, 0.8, 0.1), row(0.6, 0.3, 0.1), row(0.05, 0.25, 0.7)
    assert m._aggregate([quiet, entails, contradicts]) == contradicts  # 0.7 > every 0.6
    weaker = row(0.2, 0.3, 0.5)
    assert m._aggregate([quiet, entails, weaker]) == entails  # 0.5 < 0.6: entailment stands
    assert m._aggregate([quiet, row(0.3, 0.6, 0.1)]) == row(0.3, 0.6, 0.1)  # the most entailing


@pytest.mark.parametrize("rows", [[(0.9, 0.1), (0.4, 0.6), (0.3, 0.7)], [(0.5, 0.5)]])
def test_answerability_reports_the_window_most_likely_yes(rows: list[tuple[float, float]]):
    m = one_by_one("answerability")
    assert m._aggregate(rows) == max(rows, key=lambda r: r[m.info.labels.index("yes")])
