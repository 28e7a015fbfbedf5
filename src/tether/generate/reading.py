"""Which retrieved sentences answer the question, read by the shipped answerability model.

The trained reader's way of choosing (``reader = "trained"``, ADR 0044): every content
sentence of the retrieved passages is a candidate; a cheap word-overlap score keeps the
``limit`` most promising (the model costs ~15 ms a sentence on one core); the model
reads each as (question, the sentence with its title or heading and its neighbours)
and says how likely it states the answer. No question-word reading, no word the
question must repeat: what answers is the model's call, weighed with two signals it
does not see (ADR 0078): how close the sentence's meaning is to the question's (the
shipped embedder) and how far down retrieval found its passage.

The guard reads the chosen sentences again on its own (``guard.answerable``) and
refuses when none of them answers well enough; this module only proposes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .. import readers
from ..instructions.detect import addresses_reader
from ..readers.windows import answer_window, sentence_path, title_path
from ..records import Hit
from ..text.sentences import sentence_spans
from ..text.terms import stems

__all__ = ["QUALIFIES", "Read", "Weights", "qualifies", "read_sentences", "weigh"]

# A sentence that qualifies the one before it: it refers back ("This is not
# recommended", "It is deprecated"), limits it ("However, …", "Note that …",
# "Unless …") or says what holds under a condition ("If left unspecified, the delay
# defaults to 2000 ms."). A chosen sentence is shown with such a successor, never
# without it.
QUALIFIES = re.compile(
    r"(?:However|But|Note|Otherwise|Unless|Except|Only|Warning|Caution|Beware|If)\b"
    r"|(?:This|That|These|Such|It|Doing so)\b[^.;:]{0,80}\b(?:not|never|no longer|only|"
    r"avoid(?:ed)?|deprecated|discouraged|obsolete|dangerous|unsafe|insecure|risk)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Weights:
    """How the answerability model's reading is weighed with what it does not see, in
    log-odds (ADR 0078). On documentation the model alone put an answering sentence
    first in about 2 of 5 questions where one was retrieved: it reads the window it is
    given, not how near the sentence's meaning is to the question nor how strongly
    retrieval found its passage. Chosen on realdocs-dev and freshdocs-freshdocs3,
    checked on freshdocs4-freshdocs7 and a set written after (MODEL_CARD.md)."""

    similarity: float = 4.0  # per unit of cosine between question and sentence
    rank: float = 0.5  # per unit of ln(1 + the passage's retrieval rank)


WEIGHTS = Weights()


def weigh(answers: float, similarity: float, rank: int, weights: Weights = WEIGHTS) -> float:
    """The reading of one candidate: the model's P(answers) moved in log-odds by the
    question-sentence similarity and the passage's retrieval rank (0 = first).

    >>> round(weigh(0.5, 0.0, 0), 3), round(weigh(0.5, 0.25, 0), 3), round(weigh(0.5, 0.0, 3), 3)
    (0.5, 0.731, 0.333)
    """
    p = min(max(answers, 1e-6), 1 - 1e-6)
    shift = weights.similarity * similarity - weights.rank * math.log1p(rank)
    return 1.0 / (1.0 + math.exp(-(math.log(p / (1 - p)) + shift)))


def qualifies(following: str) -> bool:
    """Whether ``following`` qualifies the sentence before it (``QUALIFIES``)."""
    return bool(QUALIFIES.match(following.lstrip()))


@dataclass(frozen=True, slots=True)
class Read:
    """A candidate sentence as the model read it."""

    text: str
    hit: Hit
    start: int  # offset of the sentence in its passage
    end: int
    following: str  # the sentence after it in its passage ("" at the end)
    score: float  # the reading: the model's P(it states the answer), weighed (``weigh``)


class _Candidate(NamedTuple):
    cheap: float  # the word-overlap pre-rank
    hit: Hit
    start: int
    end: int
    previous: str
    following: str


def read_sentences(
    question: str, hits: Sequence[Hit], *, keep: Callable[[str], bool], limit: int
) -> list[Read]:
    """The candidate sentences of ``hits``, best first, with the model's score.

    ``keep`` says which sentences may be answer content at all (no headings,
    fragments or instructions); ``limit`` bounds how many the model reads.
    """
    wanted = stems(question)
    found: list[_Candidate] = []
    for hit in hits:
        text = hit.passage.text
        spans = sentence_spans(text)
        near = stems(title_path(hit.document.title, hit.passage.heading))
        prior: set[str] = set()  # the stems of the sentence before (each sentence's read once)
        for i, span in enumerate(spans):
            sentence = text[span.start : span.end]
            mine = stems(sentence)
            own, prior = mine | prior, mine
            # what follows an address to an automated reader ("Hello AI!") is spoken to it
            if not keep(sentence) or (i and addresses_reader(text[spans[i - 1].start : spans[i - 1].end])):
                continue
            previous = text[spans[i - 1].start : spans[i - 1].end] if i else ""
            following = text[spans[i + 1].start : spans[i + 1].end] if i + 1 < len(spans) else ""
            # Pre-ranking only: a shared stem counts, one from the heading half; a gentle
            # decay by retrieval rank breaks ties toward what retrieval found first.
            cheap = (len(wanted & own) + 0.5 * len(wanted & (near - own))) / math.sqrt(1 + hit.rank)
            found.append(_Candidate(cheap, hit, span.start, span.end, previous, following))
    found = sorted(found, key=lambda c: -c.cheap)[:limit]
    if not found:
        return []
    texts = [c.hit.passage.text[c.start:c.end] for c in found]
    windows = [answer_window(t, sentence_path(c.hit.document.title, c.hit.passage.heading,
                                              c.hit.passage.text, c.start), c.previous, c.following)
               for t, c in zip(texts, found)]
    answers = readers.answerability().prob([(question, w) for w in windows], "yes")
    vectors = readers.embedder().embed([question, *texts])  # unit vectors
    similarity = (vectors[1:] @ vectors[0]).tolist()
    out = [Read(t, c.hit, c.start, c.end, c.following, weigh(p, near, c.hit.rank))
           for t, c, p, near in zip(texts, found, answers, similarity)]
    # Ties (the same sentence in two documents) keep retrieval's order.
    return sorted(out, key=lambda r: -r.score)
