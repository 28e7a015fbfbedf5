"""``/v1/documents``: upload (multipart or JSON) with metadata and ACL, list, read, delete.

A document the caller cannot read answers exactly like one that does not exist
(404, same words), so ids cannot be probed. An upload must list one of the caller's
principals in its ACL (nobody can create what they could not then read or delete).
Reading is not writing: the first uploader's non-public principals become the
document's writers (``ops.documents.may_write``), and only a writer may upload its
source again or delete it (403 for a reader who is not one). Replacing a document the
caller cannot read answers 403 too — a one-bit signal about a source name the caller
already knows, the price of not letting anyone overwrite a document they cannot see
(see docs/adr).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any, cast

import anyio
from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from .. import deadline, ids
from ..errors import InputError, NotFound, UnsupportedInput
from ..ingest.extract import SUPPORTED_EXTENSIONS
from ..ingest.files import Metadata
from ..ingest.write import ingest_bytes
from ..ops.documents import (
    WriterStore,
    may_write,
    remove_document,
    summary_json,
    writers_for,
)
from ..records import Document, to_json
from ..store import DocumentSummary
from .answers import state_of
from .auth import principals_of
from .deadlines import request_deadline
from .isolate import extract_upload, run_isolated
from .jsonbody import strict_json
from .problems import Forbidden, RequestTimeout
from .schemas import DocumentList, DocumentUpload, problem_responses

__all__ = ["readable", "router"]

router = APIRouter()
LIST_LIMIT = 500  # entries per page at most: one page is one bounded query
_UPLOAD_FIELDS = ("source", "title", "license", "fetched_at", "kind", "process")


def readable(document: Document | None, principals: Sequence[str]) -> bool:
    return document is not None and not set(document.acl).isdisjoint(principals)


def _not_found() -> NotFound:
    return NotFound("no such document")


async def _from_multipart(request: Request) -> tuple[bytes, str, dict[str, Any]]:
    form = await request.form(max_files=1, max_fields=len(_UPLOAD_FIELDS) + 64)
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise InputError("a multipart upload needs its document in the 'file' part")
    data = await upload.read()
    fields: dict[str, Any] = {k: v for k in _UPLOAD_FIELDS if isinstance(v := form.get(k), str) and v}
    acl = [a for a in form.getlist("acl") if isinstance(a, str) and a]
    if acl:
        fields["acl"] = acl
    media_type = form.get("media_type")
    if not isinstance(media_type, str) or not media_type:
        media_type = upload.content_type or ""
        if media_type in ("", "application/octet-stream"):
            suffix = PurePath(upload.filename or "").suffix.lower()
            media_type = SUPPORTED_EXTENSIONS.get(suffix, "application/octet-stream")
    return data, media_type, fields


async def _from_json(request: Request) -> tuple[bytes, str, dict[str, Any]]:
    try:
        body = await strict_json(request)  # a key twice, a surrogate, too deep: 400
    except json.JSONDecodeError as exc:
        raise RequestValidationError([{"type": "json_invalid", "loc": ("body", exc.pos),
                                       "msg": "JSON decode error", "ctx": {"error": exc.msg}}]) from exc
    try:
        upload = DocumentUpload.model_validate(body)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False, include_input=False)) from exc
    if (upload.text is None) == (upload.content_base64 is None):
        raise InputError("give the document as 'text' or as 'content_base64', exactly one")
    if upload.text is not None:
        data = upload.text.encode("utf-8")
        media_type = upload.media_type if "charset=" in upload.media_type else (
            f"{upload.media_type}; charset=utf-8")
    else:
        try:
            data = base64.b64decode(upload.content_base64 or "", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise InputError("content_base64 is not valid base64") from exc
        media_type = upload.media_type
    fields = upload.model_dump(include=set(_UPLOAD_FIELDS) | {"acl"}, exclude_none=True)
    return data, media_type, fields


@router.post(
    "/v1/documents",
    summary="Upload a document with its metadata and ACL",
    description="`multipart/form-data` (a `file` part plus `source`, `title`, `license`, "
    "`fetched_at`, `kind`, `process`, `media_type` and repeatable `acl` fields) or JSON "
    "(`DocumentUpload`). Re-uploading unchanged text and metadata is a no-op (200); changed "
    "text adds a version, changed metadata (such as a narrower `acl`) is applied (201).",
    status_code=201,
    openapi_extra={"requestBody": {"required": True, "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/DocumentUpload"}},
        "multipart/form-data": {"schema": {
            "type": "object", "required": ["file", "source"],
            "properties": {
                "file": {"type": "string", "format": "binary"},
                "acl": {"type": "array", "items": {"type": "string"}},
                **{k: {"type": "string"} for k in (*_UPLOAD_FIELDS, "media_type")},
            }}},
    }}},
    responses={
        201: {"description": "Stored", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/IngestOut"}}}},
        200: {"description": "Unchanged", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/IngestOut"}}}},
        **problem_responses(400, 401, 403, 408, 413, 415, 422, 429, 504),
    },
)
async def post_document(request: Request) -> JSONResponse:
    service = state_of(request)
    principals = principals_of(request.scope)
    content_type = request.headers.get("content-type", "").lower()
    if content_type.startswith("multipart/form-data"):
        data, media_type, fields = await _from_multipart(request)
    elif content_type.startswith("application/json"):
        data, media_type, fields = await _from_json(request)
    else:
        raise UnsupportedInput("upload as multipart/form-data or application/json")
    if not fields.get("source"):
        raise InputError("an uploaded document needs a 'source' (its URL or name)")
    meta = Metadata().merged(fields).validated()
    if set(meta.acl).isdisjoint(principals):
        raise InputError("the acl must include one of your principals: " + ", ".join(principals),
                         hint="you could not read or delete the document otherwise")
    store = service.tether.store
    writers = cast(WriterStore, store)
    at = request_deadline(request.scope, service.settings.request_timeout_s)
    try:
        # Extracted first in a child process, killed at the deadline (isolate): a file
        # that fails, or would outlast the request, is refused before this process,
        # whose interpreter lock every other request needs, spends anything on it.
        await run_isolated(extract_upload, data, media_type, meta.source or "",
                           service.settings, deadline=at)
    except deadline.DeadlineExceeded:
        raise _upload_timeout(service.settings.request_timeout_s) from None

    def write() -> dict[str, Any]:
        doc_id = ids.doc_id_for(meta.source or "")
        existing = store.document(doc_id)
        if existing is not None and not readable(existing, principals):
            raise Forbidden("you cannot write a document at this source")
        if existing is not None and not may_write(store, existing, principals):
            raise Forbidden("you may read this document but not rewrite it: only its "
                            "writers may (whoever first uploaded it)")
        if existing is None:  # the first writer owns it; a concurrent first upload loses
            owners = writers.claim_writers(doc_id, writers_for(principals))
            if set(owners).isdisjoint(principals):
                raise Forbidden("you cannot write a document at this source")
        try:
            # Extraction checks the deadline page by page; no check sits inside the
            # store's write, so a stopped upload has written nothing.
            with deadline.until(at):
                result = ingest_bytes(store, data, media_type=media_type, meta=meta,
                                      settings=service.settings)
        except BaseException:
            writers.release_writers(doc_id)  # only while the document does not exist
            raise
        return {"doc_id": result.doc_id, "version": result.version, "status": result.status,
                "passages": result.passages, "chars": result.chars, "flags": list(result.flags)}

    try:
        out = await anyio.to_thread.run_sync(write)
    except deadline.DeadlineExceeded:
        raise _upload_timeout(service.settings.request_timeout_s) from None
    return JSONResponse(out, status_code=200 if out["status"] == "unchanged" else 201)


def _upload_timeout(seconds: float) -> RequestTimeout:
    return RequestTimeout(
        f"the upload took longer than {seconds:g} s to process and was stopped; "
        "nothing was stored",
        hint="split the document, or ingest it with the CLI (no deadline)",
    )


@router.get(
    "/v1/documents/{doc_id}",
    summary="A document's metadata, current text and passage ranges",
    responses={200: {"description": "The document", "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/DocumentView"}}}},
        **problem_responses(401, 404)},
)
async def get_document(doc_id: str, request: Request) -> JSONResponse:
    service = state_of(request)
    principals = principals_of(request.scope)
    store = service.tether.store

    def read() -> dict[str, Any] | None:
        document = store.document(doc_id)
        version = store.version(doc_id) if readable(document, principals) else None
        if document is None or version is None:
            return None
        passages = [
            {"passage_id": p.passage_id, "start": p.start, "end": p.end, "kind": p.kind,
             "region": p.region}
            for p in store.passages(doc_id, version.version)
        ]
        return {**to_json(document), "version": version.version, "text": version.text,
                "passages": passages}

    out = await anyio.to_thread.run_sync(read)
    if out is None:
        raise _not_found()
    return JSONResponse(out)


@router.delete(
    "/v1/documents/{doc_id}",
    summary="Delete a document and all its versions",
    description="The removal is recorded (when, by which principals, `reason`): stored "
    "citations of the document then resolve `missing` with that note, for callers who "
    "could read it. Same path as `tether documents rm`.",
    status_code=204,
    responses={204: {"description": "Deleted"}, **problem_responses(401, 403, 404)},
)
async def delete_document(
    doc_id: str,
    request: Request,
    reason: str | None = Query(None, max_length=500, description="Why it was removed (recorded)."),
) -> Response:
    service = state_of(request)
    principals = principals_of(request.scope)
    store = service.tether.store
    by = "service (" + ", ".join(principals) + ")"

    def delete() -> bool:
        document = store.document(doc_id)
        if document is not None and readable(document, principals) and not may_write(
                store, document, principals):
            raise Forbidden("you may read this document but not delete it: only its writers "
                            "may (whoever first uploaded it)")
        removed = remove_document(store, doc_id, by=by, reason=reason, principals=principals)
        return removed is not None

    if not await anyio.to_thread.run_sync(delete):
        raise _not_found()
    return Response(status_code=204)


def _cursor(entry: DocumentSummary) -> str:
    key = json.dumps([entry.document.source, entry.document.doc_id], ensure_ascii=False)
    return base64.urlsafe_b64encode(key.encode("utf-8")).decode("ascii").rstrip("=")


def _after(cursor: str | None) -> tuple[str, str] | None:
    if not cursor:
        return None
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError) as exc:
        raise InputError("not a cursor of this listing",
                         hint="pass next_cursor from the previous page as it came") from exc
    if not (isinstance(key, list) and len(key) == 2 and all(isinstance(k, str) for k in key)):
        raise InputError("not a cursor of this listing",
                         hint="pass next_cursor from the previous page as it came")
    return key[0], key[1]


@router.get(
    "/v1/documents",
    summary="The documents the caller may read, a page at a time",
    description="Ordered by source. Each entry is the document's metadata with its current "
    "`version`, `version_count`, `passage_count` and `ingested_at` (when the current "
    "version was stored). `next_cursor` is null on the last page; pass it as `cursor` "
    "for the next. Documents whose ACL lists none of the caller's principals are not "
    "listed and not counted.",
    responses={200: {"model": DocumentList, "description": "One page"},
               **problem_responses(400, 401, 422)},
)
async def list_documents(
    request: Request,
    limit: int = Query(50, ge=1, le=LIST_LIMIT, description=f"Entries per page (1–{LIST_LIMIT})."),
    cursor: str | None = Query(None, max_length=4096, description="`next_cursor` of the previous page."),
) -> JSONResponse:
    service = state_of(request)
    principals = principals_of(request.scope)
    after = _after(cursor)
    store = service.tether.store

    def read() -> dict[str, Any]:
        # One extra row says whether another page follows.
        rows = store.list_documents(principals, limit=limit + 1, after=after)
        page = rows[:limit]
        more = len(rows) > limit
        return {"documents": [summary_json(e) for e in page],
                "next_cursor": _cursor(page[-1]) if more else None}

    return JSONResponse(await anyio.to_thread.run_sync(read))
