"""Records that cross stage boundaries: frozen, slotted, changed only with ``replace``.

The meaning of each field is the contract (docs/DESIGN.md "Records"); ``to_json`` gives the
shape the CLI, the service and the audit log print. Character ranges are always
``[start, end)`` into a version's text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

__all__ = [
    "OUTCOME_RANK",
    "REPAIRED",
    "Answer",
    "AnswerSentence",
    "Citation",
    "Document",
    "Draft",
    "Dropped",
    "Hit",
    "Kind",
    "Outcome",
    "Passage",
    "Piece",
    "Probe",
    "Remark",
    "SlicedPassages",
    "Verdict",
    "Version",
    "to_json",
]

Kind = Literal["original", "transcribed", "generated"]
KINDS: tuple[str, ...] = ("original", "transcribed", "generated")
Outcome = Literal["supported", "contradicted", "mentioned", "unsupported"]
OUTCOMES: tuple[str, ...] = ("supported", "contradicted", "mentioned", "unsupported")
# How much an outcome says about a sentence, best first: a contradiction is worth more
# than a mere mention because it is a finding the reader must see.
OUTCOME_RANK: dict[str, int] = {
    "supported": 3, "contradicted": 2, "mentioned": 1, "unsupported": 0,
}
PUBLIC = "public"


@dataclass(frozen=True, slots=True)
class Document:
    """A source document; ``doc_id`` derives from the source identity, never the content."""

    doc_id: str
    source: str
    title: str
    license: str
    fetched_at: str
    media_type: str
    acl: tuple[str, ...] = (PUBLIC,)
    kind: Kind = "original"
    process: str | None = None


@dataclass(frozen=True, slots=True)
class Region:
    """Where in the original artifact a stretch of version text came from (a page)."""

    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class Version:
    """Extracted text of a document, addressed by its hash (``sha256:…``)."""

    doc_id: str
    version: str
    text: str
    extractor: str
    created_at: str
    regions: tuple[Region, ...] = ()


@dataclass(frozen=True, slots=True)
class Passage:
    """Retrieval unit: ``text == version_text[start:end]`` always."""

    passage_id: str
    doc_id: str
    version: str
    start: int
    end: int
    text: str
    kind: Kind = "original"
    region: str | None = None
    process: str | None = None
    flags: tuple[str, ...] = ()
    # Where the passage stands in its document's structure, outermost first
    # (("grep(1)", "OPTIONS", "-v, --invert-match")); shown joined with " › ".
    heading: tuple[str, ...] = ()



# A passage as ``SlicedPassages`` keeps it: (passage_id, start, end, region, flags, heading).
Piece = tuple[str, int, int, str | None, tuple[str, ...], tuple[str, ...]]


class SlicedPassages(Sequence[Passage]):
    """Passages that are slices of one version's text, with their document's kind and
    process, kept as ``pieces`` and made ``Passage`` records only when read: ingest's
    writer gets a document's passages so from a worker, and the SQLite store writes
    their rows from the pieces (building the records was a tenth of its time)."""

    __slots__ = ("doc_id", "kind", "pieces", "process", "text", "version")

    def __init__(self, doc_id: str, version: str, text: str, kind: Kind, process: str | None,
                 pieces: Sequence[Piece]) -> None:
        self.doc_id, self.version, self.text = doc_id, version, text
        self.kind, self.process, self.pieces = kind, process, tuple(pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    @overload
    def __getitem__(self, index: int) -> Passage: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Passage, ...]: ...

    def __getitem__(self, index: int | slice) -> Passage | tuple[Passage, ...]:
        if isinstance(index, slice):
            return tuple(map(self._passage, self.pieces[index]))
        return self._passage(self.pieces[index])

    def __iter__(self) -> Iterator[Passage]:
        return map(self._passage, self.pieces)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # equal to a tuple, so not hashable

    def _passage(self, piece: Piece) -> Passage:
        passage_id, start, end, region, flags, heading = piece
        return Passage(passage_id, self.doc_id, self.version, start, end, self.text[start:end],
                       self.kind, region, self.process, flags, heading)

@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved passage with its document and its retrieval score (higher is better)."""

    passage: Passage
    document: Document
    score: float
    rank: int
    # Sources of near-identical passages collapsed into this one (the same text in
    # another document: Node's all.html repeats every page), best ranked first.
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Citation:
    """Durable pointer: document identity + version + range + quote hash.

    ``passage_id`` is a hint only; resolution never depends on it.
    """

    doc_id: str
    version: str
    start: int
    end: int
    quote: str
    quote_hash: str
    passage_id: str
    source: str
    title: str
    license: str
    fetched_at: str
    kind: Kind = "original"
    region: str | None = None
    process: str | None = None
    # The cited passage's heading path (``Passage.heading``): display only, never
    # needed to resolve the citation.
    heading: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict:
    """The support test's decision for one sentence, with what decided it.

    ``span`` is ``[start, end)`` inside ``passage_id``'s text (``None`` when no passage
    was found at all).
    """

    outcome: Outcome
    score: float
    passage_id: str | None = None
    span: tuple[int, int] | None = None
    reasons: tuple[str, ...] = ()
    checker: str = "lexical"
    # The support test's rules that decided, by their registered names
    # (``verify.rules``, ADR 0059): the same names its bench and a setting use.
    rules: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Draft:
    """A sentence proposed by a generator; ``hints`` are passage ids it claims to rest on."""

    text: str
    hints: tuple[str, ...] = ()
    # Citation markers that pointed outside the retrieved set ([7] with four
    # passages): ignored as hints, recorded in the answer trace.
    ignored_markers: tuple[int, ...] = ()
    # The sentence id a quote-bound generator chose ("3.2": passage 3, sentence 2);
    # empty for a sentence the model wrote itself (ADR 0050).
    quoted: str = ""


@dataclass(frozen=True, slots=True)
class Remark:
    """What a generator said besides its proposals: never shown as a claim, kept in
    the answer's trace (ADR 0050): the lead-in before a quote-bound answer's first id,
    the model's word that the passages do not answer, an id it ignored (``detail``
    says why) or text it wrote between ids."""

    kind: Literal["lead_in", "declined", "ignored_id", "stray_text"]
    text: str
    detail: str = ""


# The reason a repaired sentence's verdict carries (ADR 0058): the quote is shown in
# place of a generated sentence the guard did not accept, whose words are in the trace.
REPAIRED = "repaired: shown in place of a generated sentence whose claim this passage sentence states"


@dataclass(frozen=True, slots=True)
class AnswerSentence:
    """A sentence that passed the guard. Only ``guard`` constructs these."""

    text: str
    citations: tuple[Citation, ...]
    verdict: Verdict
    provenance: Literal["corpus"] = "corpus"


@dataclass(frozen=True, slots=True)
class Dropped:
    text: str
    verdict: Verdict
    # Why the sentence was withheld when the verdict alone does not say (a policy such
    # as ``quote_original_only`` withholding a sentence that derived text supports).
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Probe:
    signal: Literal["empty", "weak", "ok"]
    score: float
    threshold: float
    scorer: str


@dataclass(frozen=True, slots=True)
class Answer:
    question: str
    sentences: tuple[AnswerSentence, ...]
    dropped: tuple[Dropped, ...]
    refused: bool
    refusal_reason: str | None
    trace_id: str
    refusal_layer: str | None = None
    probe: Probe | None = None
    modes: dict[str, str] = field(default_factory=dict)
    generator: str = "extractive"
    timings_ms: dict[str, float] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)


def to_json(record: Any) -> Any:
    """Plain JSON-ready structure for any record (tuples become lists)."""
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        return {f.name: to_json(getattr(record, f.name)) for f in dataclasses.fields(record)}
    if isinstance(record, (list, tuple)):
        return [to_json(item) for item in record]
    if isinstance(record, dict):
        return {str(k): to_json(v) for k, v in record.items()}
    return record
