"""The state one answer run carries from gate to gate, and what the gates need.

``Engine`` is what the pipeline asks of its owner (the ``Tether`` facade): a store,
settings, the probe threshold and the model judge. ``Run`` is the one mutable object
of a run: each gate reads what earlier gates left and adds its own part, so the
stream is a short sequence of gates over one explicit state, not a function full of
local accumulators. ``Grounds`` is what the guard and the answer check judge against,
made once after the probe.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..config import Settings
from ..generate import Generator
from ..guard.attribute import Evidence
from ..judges.base import Judge
from ..records import AnswerSentence, Draft, Dropped, Hit, Remark
from ..retrieve.calibrate import Threshold
from ..retrieve.probe import ProbeReport
from ..store import Store
from ..text.terms import Term
from .trace import AnswerJudged, IgnoredMarkers, Repaired

__all__ = ["Engine", "Grounds", "Run", "VersionTexts"]


class Engine(Protocol):
    """What a run needs from its owner; ``Tether`` is one."""

    store: Store
    settings: Settings

    def judge(self) -> Judge | None: ...

    def probe_threshold(self) -> Threshold: ...


@dataclass
class Run:
    """One question on its way through the gates (see ``pipeline.stream``)."""

    question: str
    principals: Sequence[str] | None
    generator: Generator
    modes: Mapping[str, str]
    threshold: Threshold
    trace_id: str
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)
    report: ProbeReport | None = None
    drafts: list[Draft] = field(default_factory=list)
    kept: list[AnswerSentence] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    withheld: list[AnswerSentence] = field(default_factory=list)  # verified, not yet shown
    answered: bool = True  # False while the abstain gate waits for an answering sentence
    # The trained reader's answerability scores of the verified sentences (None: the
    # lexical answer check decides), and the score one of them must reach.
    reading: list[float] | None = None
    reading_threshold: float = 0.0
    shadow: list[dict[str, str]] = field(default_factory=list)
    refusal: tuple[str, str] | None = None  # (layer, reason) of a gate that refused
    answer_judged: AnswerJudged | None = None
    ignored_markers: list[IgnoredMarkers] = field(default_factory=list)
    remarks: list[Remark] = field(default_factory=list)  # what the generator said besides drafts
    generator_failure: str | None = None
    repaired: list[Repaired] = field(default_factory=list)  # quotes shown for generated sentences

    @property
    def abstain(self) -> str:
        return self.modes["abstain"]

    def lap(self, name: str) -> None:
        """Note the time since the run started under ``name`` (the first time only)."""
        self.timings.setdefault(name, round((time.perf_counter() - self.started) * 1000, 2))


class VersionTexts:
    """Version texts read from the store once each, for joining neighbouring hits."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._texts: dict[tuple[str, str], str | None] = {}

    def __call__(self, doc_id: str, version: str) -> str | None:
        if (doc_id, version) not in self._texts:
            found = self._store.version(doc_id, version)
            self._texts[doc_id, version] = found.text if found else None
        return self._texts[doc_id, version]


@dataclass(frozen=True)
class Grounds:
    """The retrieved evidence and what the answer check reads of it."""

    evidence: Sequence[Evidence]
    by_id: Mapping[str, Hit]  # hits by passage id, to find a sentence's passage
    texts: Sequence[str]  # passage texts, then document titles
    asked: Sequence[Term]  # the question's anchor terms
    reader: Judge | None  # a judge that may read whole answers, when the gates allow
    hold: bool  # nothing streams before the answer judge has decided
    steering: str
