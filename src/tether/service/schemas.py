"""Request bodies and the documented shapes of responses (for ``/openapi.json``).

Request models validate input. Response models only document: routes build their
JSON with ``to_json`` (the same shape ``tether ask --json`` prints), so the wire
format has one source of truth and the hot path pays for no second serialisation.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from ..records import PUBLIC

__all__ = [
    "AnswerRequest",
    "DocumentEntry",
    "DocumentList",
    "DocumentMeta",
    "DocumentUpload",
    "DocumentView",
    "IngestOut",
    "PassageIn",
    "Problem",
    "SourcePassage",
    "SourcesEvent",
    "VerifyOut",
    "VerifyRequest",
]


class AnswerRequest(BaseModel):
    question: str = Field(description="The question, at most `max_question_chars` characters.")
    # Strict: "yes", "false" or 1 are not booleans (lax parsing read "false" as false
    # and "yes" as true); anything but true/false is a validation error.
    stream: StrictBool = Field(
        False, description="true: text/event-stream of sources, sentence…, done events."
    )
    mode: str | dict[str, str] | None = Field(
        None,
        description="off|shadow|on for every gate, or an object gate → off|shadow|on.",
    )
    generator: str | None = Field(None, description="Registered generator name (default: extractive).")


class PassageIn(BaseModel):
    id: StrictStr | StrictInt
    text: StrictStr


class VerifyRequest(BaseModel):
    """Same contract as `tether verify`: `sentences` (a list) or `answer` (free text)."""

    passages: list[PassageIn]
    sentences: list[StrictStr] | None = None
    answer: StrictStr | None = None


class VerifiedSentence(BaseModel):
    text: str
    outcome: str
    passage_id: str | None
    span: list[int] | None
    quote: str | None
    score: float
    reasons: list[str]
    checker: str
    rules: list[str] = Field(description="The support test's rules that decided, by name (ADR 0059).")


class VerifyOut(BaseModel):
    sentences: list[VerifiedSentence]


class DocumentUpload(BaseModel):
    """JSON upload: `text`, or `content_base64` for binary formats (PDF)."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="Source URL or name; the document's identity derives from it.")
    media_type: str = Field("text/plain", description="text/plain, text/markdown, text/html or application/pdf.")
    text: str | None = None
    content_base64: str | None = None
    title: str | None = None
    license: str = "unknown"
    fetched_at: str | None = Field(None, description="ISO date (default: today).")
    kind: str = Field("original", description="original | transcribed | generated")
    process: str | None = Field(None, description="What produced derived text, e.g. 'OCR: tesseract 5'.")
    acl: list[str] | str = Field(
        default_factory=lambda: [PUBLIC],
        description="Principals that may read it; must include one of the caller's.",
    )


class IngestOut(BaseModel):
    doc_id: str
    version: str
    status: str = Field(description="ingested | updated | unchanged")
    passages: int
    chars: int
    flags: list[str] = Field(description="Instruction-like text flags (observability only).")


class PassageRange(BaseModel):
    passage_id: str
    start: int
    end: int
    kind: str
    region: str | None


class DocumentMeta(BaseModel):
    """A document's metadata: what every document view starts with."""

    doc_id: str
    source: str
    title: str
    license: str
    fetched_at: str
    media_type: str
    acl: list[str]
    kind: str = Field(description="original | transcribed | generated (the document's default).")
    process: str | None = Field(description="What produced derived text.")


class DocumentView(DocumentMeta):
    version: str = Field(description="The current version (sha256 of its text).")
    text: str = Field(description="The current version's text; passages are ranges of it.")
    passages: list[PassageRange]


class DocumentEntry(DocumentMeta):
    """A document as `GET /v1/documents` (and `tether documents list --json`) lists it."""

    version: str = Field(description="The current version (sha256 of its text).")
    version_count: int = Field(description="Stored versions, the current one included.")
    passage_count: int = Field(description="Passages of the current version.")
    ingested_at: str = Field(description="When the current version was stored (UTC).")


class DocumentList(BaseModel):
    documents: list[DocumentEntry] = Field(description="By source; only documents the caller may read.")
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last.")


class SourcePassage(BaseModel):
    """A retrieved passage with its citation target, as the `sources` event sends it."""

    rank: int
    passage_id: str
    doc_id: str
    version: str
    start: int
    end: int
    text: str
    kind: str
    region: str | None
    process: str | None
    flags: list[str]
    heading: list[str] = Field(
        default_factory=list, description="Where the passage stands in its document, outermost first")
    source: str
    title: str
    license: str
    fetched_at: str
    media_type: str
    also: list[str] = Field(
        default_factory=list,
        description="Sources of near-identical passages collapsed into this one, best ranked first")


class SourcesEvent(BaseModel):
    passages: list[SourcePassage]


class Problem(BaseModel):
    """RFC 9457 problem details (`application/problem+json`)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    hint: str | None = None


def problem_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for the given error statuses."""
    schema = {"$ref": "#/components/schemas/Problem"}
    return {
        code: {"description": "Problem details",
               "content": {"application/problem+json": {"schema": schema}}}
        for code in codes
    }
