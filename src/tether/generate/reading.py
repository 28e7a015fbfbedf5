"""Which retrieved sentences answer the question, read by the shipped answerability model.

The trained reader's way of choosing (``reader = "trained"``, ADR 0044): every content
sentence of the retrieved passages is a candidate; a cheap word-overlap score keeps the
``limit`` most promising (the model costs ~15 ms a sentence on one core); the model
reads each as (question, the sentence with its title or heading and its neighbours)
and says how likely it states the answer. No question-word reading, no word the
question must repeat: what answers is the model's call.

The guard reads the chosen sentences again on its own (``guard.answerable``) and
refuses when none of them answers well enough; this module only proposes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import readers
from ..readers.windows import answer_window
from ..records import Hit
from ..text.sentences import sentence_spans
from ..text.terms import stems

__all__ = ["QUALIFIES", "Read", "qualifies", "read_sentences", "title_of"]

# A sentence that qualifies the one before it: it refers back ("This is not
# recommended", "It is deprecated") or limits it ("However, …", "Note that …",
# "Unless …"). A chosen sentence is shown with such a successor, never without it.
QUALIFIES = re.compile(
    r"(?:However|But|Note|Otherwise|Unless|Except|Only|Warning|Caution|Beware)\b"
    r"|(?:This|That|These|Such|It|Doing so)\b[^.;:]{0,80}\b(?:not|never|no longer|only|"
    r"avoid(?:ed)?|deprecated|discouraged|obsolete|dangerous|unsafe|insecure|risk)\b",
    re.IGNORECASE,
)


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
    score: float  # P(it states the answer)


def title_of(hit: Hit) -> str:
    """What a sentence stands under: its document's title and the passage's headings."""
    return " / ".join(p for p in (hit.document.title, *hit.passage.heading) if p.strip())


def read_sentences(
    question: str, hits: Sequence[Hit], *, keep: Callable[[str], bool], limit: int
) -> list[Read]:
    """The candidate sentences of ``hits``, best first, with the model's score.

    ``keep`` says which sentences may be answer content at all (no headings,
    fragments or instructions); ``limit`` bounds how many the model reads.
    """
    wanted = stems(question)
    found: list[tuple[float, Hit, int, int, str, str, str]] = []
    for hit in hits:
        text = hit.passage.text
        spans = sentence_spans(text)
        title = title_of(hit)
        near = stems(title)
        for i, span in enumerate(spans):
            sentence = text[span.start : span.end]
            if not keep(sentence):
                continue
            previous = text[spans[i - 1].start : spans[i - 1].end] if i else ""
            following = text[spans[i + 1].start : spans[i + 1].end] if i + 1 < len(spans) else ""
            own = stems(sentence) | stems(previous)
            # Pre-ranking only: a shared stem counts, one from the heading half; a gentle
            # decay by retrieval rank breaks ties toward what retrieval found first.
            cheap = (len(wanted & own) + 0.5 * len(wanted & (near - own))) / math.sqrt(1 + hit.rank)
            found.append((cheap, hit, span.start, span.end, previous, following, title))
    found.sort(key=lambda f: -f[0])
    found = found[:limit]
    if not found:
        return []
    texts = [f[1].passage.text[f[2]:f[3]] for f in found]
    windows = [answer_window(t, f[6], f[4], f[5]) for t, f in zip(texts, found)]
    scores = readers.answerability().prob([(question, w) for w in windows], "yes")
    out = [Read(t, f[1], f[2], f[3], f[5], s) for t, f, s in zip(texts, found, scores)]
    # Ties (the same sentence in two documents) keep retrieval's order.
    return sorted(out, key=lambda r: -r.score)
