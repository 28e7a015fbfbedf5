"""What ``stream`` yields: ``Sources``, then each ``Sentence``, then ``Done``.

Each event is its own frozen type, so a consumer matches on the type and reads
named fields. ``Event`` is their common base and keeps the older reading working:
every event has a ``kind`` (``"sources"``, ``"sentence"``, ``"done"``, the SSE event
names) and a ``data`` (the hits, the sentence, the answer).

>>> Sentence.kind, Done.kind
('sentence', 'done')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..ops.monitor import Recheck
from ..records import Answer, AnswerSentence, Hit

__all__ = ["Done", "Event", "Sentence", "Sources"]


class Event:
    """One step of a streamed answer: ``Sources``, ``Sentence`` or ``Done``."""

    __slots__ = ()
    kind: ClassVar[str]

    @property
    def data(self) -> Any:
        """The event's payload, as ``kind`` names it."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Sources(Event):
    """The retrieved passages, sent before any answer text."""

    hits: Sequence[Hit]
    kind: ClassVar[str] = "sources"

    @property
    def data(self) -> Sequence[Hit]:
        return self.hits


@dataclass(frozen=True, slots=True)
class Sentence(Event):
    """One sentence the guard verified, sent as soon as it may be shown."""

    sentence: AnswerSentence
    kind: ClassVar[str] = "sentence"

    @property
    def data(self) -> AnswerSentence:
        return self.sentence


@dataclass(frozen=True, slots=True)
class Done(Event):
    """The whole answer; ``rechecks`` holds the recorded groundedness re-check of
    each sentence (``None`` when the answer was not recorded), so a consumer that
    reports groundedness need not re-check it again."""

    answer: Answer
    rechecks: tuple[Recheck, ...] | None = None
    kind: ClassVar[str] = "done"

    @property
    def data(self) -> Answer:
        return self.answer
