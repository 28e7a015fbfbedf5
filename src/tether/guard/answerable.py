"""Does what survived answer the question? The trained reader's answer gate.

With ``reader = "trained"`` (ADR 0044) this replaces the hand-written answer check
(question-word readings, words the question must repeat): the shipped answerability
model reads each verified sentence in its place in the passage (its title or heading,
the sentences before and after, ``readers.windows.answer_window``) and the answer
stands when one of them scores at least the threshold. It reads again what the
generator proposed, on its own: an LLM's sentences are read the same way.

The threshold is the store's calibration when it has one (``tether calibrate``),
else ``DEFAULT_THRESHOLD``, chosen on held-out articles (MODEL_CARD.md).

The model reads meaning, not names: asked for one product's default, it scores a
neighbouring product's as an answer. So a sentence answers only when, besides its
score, what the question names exactly (its options, identifiers and capitalised
names: ``Focus.named``) is bound to it by the sentence, its frame or its document's
title (``unnamed``; ADR 0070), and a lower-case subject of the question is mentioned by
some retrieved passage (``unretrieved``; ADR 0079). The checks can only refuse.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from .. import readers
from ..config import Settings
from ..readers.windows import answer_window, sentence_path
from ..records import AnswerSentence, Hit
from ..text.focus import frame, read_focus
from ..text.sentences import sentence_spans
from ..text.terms import stem, stems

__all__ = [
    "DEFAULT_THRESHOLD", "answer_scores", "answer_threshold", "meta_key", "unanswered", "unnamed",
    "unretrieved",
]

DEFAULT_THRESHOLD = 0.5


def meta_key() -> str:
    """Where a store keeps its calibrated threshold: per model file, since a threshold
    belongs to the model that scores (a rebuilt model is calibrated anew)."""
    return f"answerability_threshold:{readers.answerability().info.sha256[:16]}"


def answer_threshold(settings: Settings, get_meta: Callable[[str], str | None]) -> float:
    """The threshold in force: pinned in settings, else the store's, else the default."""
    if settings.answer_threshold > 0:
        return settings.answer_threshold
    stored = get_meta(meta_key())
    return float(stored) if stored else DEFAULT_THRESHOLD


def _window(sentence: AnswerSentence, by_id: Mapping[str, Hit]) -> str:
    """The sentence as the model was trained to read it: with where it stands."""
    citation = sentence.citations[0]
    hit = by_id.get(citation.passage_id)
    if hit is None:
        return answer_window(sentence.text, citation.title, "", "")
    text = hit.passage.text
    start, end = citation.start - hit.passage.start, citation.end - hit.passage.start
    spans = sentence_spans(text)
    before = [s for s in spans if s.end <= start]
    after = [s for s in spans if s.start >= end]
    return answer_window(
        sentence.text, sentence_path(hit.document.title, hit.passage.heading, text, start),
        text[before[-1].start:before[-1].end] if before else "",
        text[after[0].start:after[0].end] if after else "",
    )


def answer_scores(
    question: str, sentences: Sequence[AnswerSentence], by_id: Mapping[str, Hit]
) -> list[float]:
    """P(states the answer) for each sentence, read in its place."""
    if not sentences:
        return []
    windows = [_window(s, by_id) for s in sentences]
    return readers.answerability().prob([(question, w) for w in windows], "yes")


def unnamed(question: str, sentence: AnswerSentence, by_id: Mapping[str, Hit]) -> str | None:
    """What the question names that nothing binds to ``sentence`` (not the sentence,
    its frame in the passage, its heading path or its document's title), or None."""
    citation = sentence.citations[0]
    hit = by_id.get(citation.passage_id)
    if hit is None:
        framing, title = tuple(citation.heading), citation.title
    else:
        at = citation.start - hit.passage.start
        framing = (*hit.passage.heading, *frame(hit.passage.text, at))
        title = hit.document.title
    missing = read_focus(question).unnamed(sentence.text, framing, title)
    return missing[0] if missing else unretrieved(question, by_id.values())


def unretrieved(question: str, hits: Iterable[Hit]) -> str | None:
    """The question's lower-case subject that no retrieved passage, heading or title
    mentions, or None (ADR 0079). Only a subject that completes a noun counts
    (``Focus.complements``: "the exposure limit for *xylene*?", not "out of the box" nor
    "for outgoing SMTP connections"); any form of it counts as a mention ("week" in
    "weekly"). A subject nothing retrieved mentions is one the collection, as found,
    does not speak of: whatever the sentences state is about something else."""
    complements = read_focus(question).complements
    if not complements:
        return None
    said = set().union(*(stems(t) for h in hits
                         for t in (h.passage.text, h.document.title, *h.passage.heading)))
    return next((s for s in complements if not _mentioned(stem(s), said)), None)


def _mentioned(root: str, said: set[str]) -> bool:
    """Whether a retrieved word is a form of the word stemmed ``root``: the same stem,
    or one stem opening the other ("week" in "weekly"), both at least four letters."""
    return root in said or len(root) >= 4 and any(
        len(s) >= 4 and (s.startswith(root) or root.startswith(s)) for s in said)


def unanswered(scores: Sequence[float], threshold: float, misses: Sequence[str | None]) -> str | None:
    """Why the verified sentences do not answer, or None when one of them does:
    one scores at least ``threshold`` and misses none of the question's names
    (``misses``, one entry a sentence, from ``unnamed``)."""
    reading = [(s, m) for s, m in zip(scores, misses) if s >= threshold]
    if any(m is None for _, m in reading):
        return None
    if reading:
        return (f"no verified sentence that reads as an answer names {reading[0][1]!r}, which "
                "the question asks about (not in the sentence, its headings or its document's title)")
    best = max(scores, default=0.0)
    return (f"none of the {len(scores)} verified sentences reads as an answer to the question"
            f" (the answerability model's best score {best:.2f} is below {threshold:.2f})")
