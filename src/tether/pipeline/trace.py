"""The answer's trace: what the pipeline saw and decided, for the audit log.

``Trace`` names every entry; ``Answer.trace`` is its JSON form (``to_json``), a
plain dict whose keys and order are a stored contract (the audit log, ``ask --json``):
``retrieved``, ``shadow``, ``probe``, ``withheld``, then, only when they happened,
``answer_judge``, ``ignored_markers``, ``generator_failure`` and ``generator_model``.

>>> Trace(retrieved=("p1",), probe=ProbeTrace("default")).to_json()
{'retrieved': ['p1'], 'shadow': [], 'probe': {'threshold_source': 'default', 'missing': [], 'absent': []}, 'withheld': []}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["AnswerJudged", "IgnoredMarkers", "ProbeTrace", "Trace"]


@dataclass(frozen=True, slots=True)
class ProbeTrace:
    """Where the probe threshold came from, and the question words it found lacking."""

    threshold_source: str
    missing: tuple[str, ...] = ()  # words the best passage lacks
    absent: tuple[str, ...] = ()  # words no passage in the collection contains

    def to_json(self) -> dict[str, Any]:
        return {
            "threshold_source": self.threshold_source,
            "missing": list(self.missing),
            "absent": list(self.absent),
        }


@dataclass(frozen=True, slots=True)
class AnswerJudged:
    """What the model judge said about the whole answer (``error`` when it could not)."""

    checker: str
    label: str
    error: str | None

    def to_json(self) -> dict[str, Any]:
        return {"checker": self.checker, "label": self.label, "error": self.error}


@dataclass(frozen=True, slots=True)
class IgnoredMarkers:
    """Citation markers a generator wrote that point at no retrieved passage."""

    sentence: str
    markers: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "markers": list(self.markers)}


@dataclass(frozen=True, slots=True)
class Trace:
    """Everything ``Answer.trace`` says, typed; ``to_json`` is the stored form."""

    retrieved: tuple[str, ...]
    probe: ProbeTrace
    shadow: tuple[Mapping[str, str], ...] = ()  # what shadow gates would have suppressed
    withheld: tuple[str, ...] = ()  # verified sentences the user was not shown
    answer_judge: AnswerJudged | None = None
    ignored_markers: tuple[IgnoredMarkers, ...] = ()
    generator_failure: str | None = None
    generator_model: str | None = None
    # The answerability model's scores of the verified sentences, in their order, when
    # the trained reader's answer gate read them (reader = "trained", abstain not off).
    answerability: tuple[float, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "retrieved": list(self.retrieved),
            "shadow": [dict(note) for note in self.shadow],
            "probe": self.probe.to_json(),
            "withheld": list(self.withheld),
        }
        if self.answer_judge is not None:
            out["answer_judge"] = self.answer_judge.to_json()
        if self.ignored_markers:
            out["ignored_markers"] = [m.to_json() for m in self.ignored_markers]
        if self.generator_failure is not None:
            out["generator_failure"] = self.generator_failure
        if self.generator_model is not None:
            out["generator_model"] = self.generator_model
        if self.answerability:
            out["answerability"] = list(self.answerability)
        return out
