"""The trained reader's weighing of the answerability model with what it does not see
(ADR 0078), on the shipped models: the arithmetic, and that the candidates carry it."""

import math

from tether import readers
from tether.generate.reading import WEIGHTS, read_sentences, weigh
from tether.readers.windows import answer_window, title_path
from tether.records import Document, Hit, Passage


def test_the_weighing_moves_the_models_reading_in_log_odds():
    assert math.isclose(weigh(0.3, 0.0, 0), 0.3)  # nothing to weigh: the model's reading
    assert weigh(0.3, 0.6, 0) > weigh(0.3, 0.2, 0) > weigh(0.3, 0.0, 0)  # nearer in meaning
    assert weigh(0.3, 0.2, 0) > weigh(0.3, 0.2, 1) > weigh(0.3, 0.2, 9)  # found further down
    shift = WEIGHTS.similarity * 0.5 - WEIGHTS.rank * math.log1p(2)
    logit = math.log(0.3 / 0.7) + shift
    assert math.isclose(weigh(0.3, 0.5, 2), 1 / (1 + math.exp(-logit)))
    # The model's certainties stay readings, not infinities.
    assert 0.0 < weigh(0.0, -1.0, 50) < weigh(1.0, 1.0, 0) < 1.0


def _hit(text: str, rank: int) -> Hit:
    doc = Document(f"d{rank}", "s", "Kiln K-40 manual", "CC0", "2026-01-01", "text/plain")
    return Hit(Passage(f"p{rank}", doc.doc_id, "v", 0, len(text), text), doc, 1.0, rank)


def test_each_candidate_carries_the_weighed_reading_of_its_own_sentence():
    text = "The K-40 kiln reaches a maximum temperature of 1,300 °C. Its chamber holds 40 litres."
    question = "How hot does the K-40 kiln get?"
    first, later = read_sentences(question, [_hit(text, 0), _hit(text, 3)],
                                  keep=lambda s: True, limit=8)[:2]
    # The same sentence in two passages: the model and the embedder read them alike,
    # so the one retrieval found first reads higher, by the rank weight alone.
    assert first.text == later.text and (first.hit.rank, later.hit.rank) == (0, 3)
    window = answer_window(first.text, title_path("Kiln K-40 manual"), "",
                           "Its chamber holds 40 litres.")
    answers = readers.answerability().prob([(question, window)], "yes")[0]
    vectors = readers.embedder().embed([question, first.text])
    similarity = float(vectors[1] @ vectors[0])
    assert math.isclose(first.score, weigh(answers, similarity, 0), rel_tol=1e-4)
    assert math.isclose(later.score, weigh(answers, similarity, 3), rel_tol=1e-4)


def test_a_sentence_longer_than_both_models_windows_is_read():
    # The answerability model reads it window by window, the embedder from its start
    # (each model's stated long-input rule): a reading comes back, no error.
    long = "The K-40 kiln reaches 1,300 °C " + "and keeps its heat " * 3000 + "overnight."
    reads = read_sentences("How hot does the K-40 kiln get?", [_hit(long, 0)],
                           keep=lambda s: True, limit=4)
    assert reads and all(r.text in long and 0.0 < r.score < 1.0 for r in reads)
    assert max(len(r.text) for r in reads) > 1000  # longer than either window
