"""``GET /v1/documents/{doc_id}/versions/{version}``: one stored version's text.

A citation names a version, and old versions stay stored (docs/DESIGN.md "Durable
citations"), so a reader opening a citation asks for exactly that version rather
than whatever is current. Access is checked as for ``GET /v1/documents/{doc_id}``:
a document the caller cannot read answers 404 with the same words as one that does
not exist, for every version, so neither ids nor version hashes can be probed.
"""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ..errors import NotFound
from ..records import to_json
from .answers import state_of
from .auth import principals_of
from .documents import readable
from .schemas import DocumentMeta, PassageRange, problem_responses

__all__ = ["DocumentVersionView", "router"]

router = APIRouter()


class RegionView(BaseModel):
    start: int
    end: int
    label: str = Field(description="Where in the original artifact this text came from (a page).")


class DocumentVersionView(DocumentMeta):
    """A document's metadata with the text of one of its stored versions."""

    version: str = Field(description="The version asked for (sha256 of its text).")
    current_version: str | None = Field(description="The document's current version.")
    current: bool = Field(description="Whether the version asked for is the current one.")
    extractor: str
    created_at: str
    text: str = Field(description="The version's text; citations and passages are ranges of it.")
    regions: list[RegionView]
    passages: list[PassageRange] = Field(
        description="The passages stored for this version (empty once only the text is kept)."
    )


@router.get(
    "/v1/documents/{doc_id}/versions/{version}",
    summary="One stored version of a document: its text and metadata",
    description="The version a citation names, current or not. 404 for a document the "
    "caller cannot read, exactly as for one that does not exist.",
    responses={200: {"description": "The version", "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/DocumentVersionView"}}}},
        **problem_responses(401, 404)},
)
async def get_version(doc_id: str, version: str, request: Request) -> JSONResponse:
    service = state_of(request)
    principals = principals_of(request.scope)
    store = service.tether.store

    def read() -> dict[str, Any]:
        document = store.document(doc_id)
        if document is None or not readable(document, principals):
            raise NotFound("no such document")
        found = store.version(doc_id, version)
        if found is None:
            # Says no more than GET /v1/documents/{doc_id} already does to this caller.
            raise NotFound("no such version of this document",
                           hint="citations name versions as sha256:…")
        current = store.current_version(doc_id)
        passages = [
            {"passage_id": p.passage_id, "start": p.start, "end": p.end, "kind": p.kind,
             "region": p.region}
            for p in store.passages(doc_id, found.version)
        ]
        return {
            **to_json(document),
            "version": found.version,
            "current_version": current,
            "current": found.version == current,
            "extractor": found.extractor,
            "created_at": found.created_at,
            "text": found.text,
            "regions": [to_json(r) for r in found.regions],
            "passages": passages,
        }

    return JSONResponse(await anyio.to_thread.run_sync(read))
