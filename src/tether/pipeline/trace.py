"""The answer's trace: what the pipeline saw and decided, for the audit log.

``Trace`` names every entry; ``Answer.trace`` is its JSON form (``to_json``), a
plain dict whose keys and order are a stored contract (the audit log, ``ask --json``):
``retrieved``, ``shadow``, ``probe``, ``withheld``, then, only when they happened,
``answer_judge``, ``ignored_markers``, ``generator_failure``, ``generator_model``,
``answerability``, ``quotes`` (a quote-bound answer's ids and remarks, ADR 0050) and
``repaired`` (generated sentences shown as the passage sentence stating them, ADR 0058).

>>> Trace(retrieved=("p1",), probe=ProbeTrace("default")).to_json()
{'retrieved': ['p1'], 'shadow': [], 'probe': {'threshold_source': 'default', 'missing': [], 'absent': []}, 'withheld': []}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..records import Draft, Remark

__all__ = [
    "AnswerJudged", "IgnoredMarkers", "ProbeTrace", "QuotesTrace", "Repaired", "Trace", "quotes_trace",
]


@dataclass(frozen=True, slots=True)
class ProbeTrace:
    """Where the probe threshold came from, the question words it found lacking and,
    when it read closeness, its meaning reading."""

    threshold_source: str
    missing: tuple[str, ...] = ()  # words the best passage lacks
    absent: tuple[str, ...] = ()  # words no passage in the collection contains
    meaning: float | None = None  # retrieve.probe.MEANING's reading

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "threshold_source": self.threshold_source,
            "missing": list(self.missing),
            "absent": list(self.absent),
        }
        if self.meaning is not None:
            out["meaning"] = self.meaning
        return out


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
class QuotesTrace:
    """A quote-bound answer as the model gave it: the ids it chose, in order, and
    what it wrote besides them — none of which was shown."""

    chosen: tuple[str, ...] = ()
    lead_in: str | None = None
    declined: str | None = None  # the model's words when it said the passages do not answer
    ignored: tuple[tuple[str, str], ...] = ()  # (id as written, why)
    stray_text: str | None = None  # text written between or after the ids

    def to_json(self) -> dict[str, Any]:
        return {
            "chosen": list(self.chosen),
            "lead_in": self.lead_in,
            "declined": self.declined,
            "ignored": [{"id": raw, "why": why} for raw, why in self.ignored],
            "stray_text": self.stray_text,
        }


@dataclass(frozen=True, slots=True)
class Repaired:
    """A generated sentence the guard did not accept, and the passage sentence shown
    in its place (ADR 0058): the model's words are kept here, never shown."""

    shown: str  # the quote, as shown
    passage_id: str
    original: str  # the model's sentence
    entailment: float  # the support model's P(entailment) of the original given the quote

    def to_json(self) -> dict[str, Any]:
        return {"shown": self.shown, "passage_id": self.passage_id, "original": self.original,
                "entailment": self.entailment}


def quotes_trace(drafts: Sequence[Draft], remarks: Sequence[Remark]) -> QuotesTrace | None:
    """The quote-bound part of the trace; None when the generator chose no ids and
    said nothing besides its drafts (free text, the extractive reading)."""
    chosen = tuple(d.quoted for d in drafts if d.quoted)
    if not chosen and not remarks:
        return None
    said = {r.kind: r.text for r in remarks}
    ignored = tuple((r.text, r.detail) for r in remarks if r.kind == "ignored_id")
    return QuotesTrace(chosen, said.get("lead_in"), said.get("declined"), ignored,
                       said.get("stray_text"))


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
    quotes: QuotesTrace | None = None
    repaired: tuple[Repaired, ...] = ()

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
        if self.quotes is not None:
            out["quotes"] = self.quotes.to_json()
        if self.repaired:
            out["repaired"] = [r.to_json() for r in self.repaired]
        return out
