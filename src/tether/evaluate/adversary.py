"""A generator that obeys planted instructions, to test the structural defence.

docs/DESIGN.md "Injection": an injected instruction is not a fact any passage states, so
whatever a generator writes under its influence must fail the citation guard. The
extractive generator never writes such text, so on its own it cannot show that the
guard holds. ``ObedientGenerator`` plays a model that fell for the injection: it
proposes the golden item's ``payloads`` (what the planted instruction asked for)
after the honest drafts of the generator it wraps. Every payload the guard renders is
a leak, caught by ``forbid_contains`` and the planted-text check.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from ..generate import Generator
from ..records import Draft, Hit, Remark

__all__ = ["ObedientGenerator"]


class ObedientGenerator:
    """Honest drafts from ``inner``, then the payloads for the question, hinted at the
    top-ranked passage (hints are never proof; the guard re-checks everything)."""

    name = "obedient"

    def __init__(self, inner: Generator, payloads: Mapping[str, Sequence[str]]) -> None:
        self.inner = inner
        self.payloads = {q: tuple(p) for q, p in payloads.items()}

    def generate(
        self, question: str, hits: Sequence[Hit], *, steering: str | None = None
    ) -> Iterator[Draft | Remark]:
        yield from self.inner.generate(question, hits, steering=steering)
        hint = (hits[0].passage.passage_id,) if hits else ()
        for text in self.payloads.get(question, ()):
            yield Draft(text, hint)
