"""File records, shared by both SQL backends: what ``tether ingest`` last saw of each
file, so an unchanged one is skipped on its ``stat`` alone (``migrations/0003``).

A record is handed back only while it still describes the store: its version is the
document's current one and the document's row is as the ingest wrote it (a removed,
re-uploaded or re-labelled document makes the file be read again).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..records import Document
from .protocols import FileRecord
from .rows import document_from_row, listed
from .sql_documents import SQLBase, upsert

__all__ = ["SQLFiles", "document_fingerprint"]

_COLUMNS = (
    "path", "size", "mtime_ns", "sha256", "fingerprint", "doc_id", "version", "document",
    "passages", "chars", "flags", "dropped",
)
_LOOKUP = (
    "SELECT f.*, d.source, d.title, d.license, d.fetched_at, d.media_type, d.acl, d.kind,"
    " d.process FROM files f JOIN documents d"
    " ON d.doc_id = f.doc_id AND d.current_version = f.version WHERE f.path = ?"
)


def document_fingerprint(document: Document) -> str:
    """A digest of everything a document row holds besides its current version."""
    fields = [document.doc_id, document.source, document.title, document.license,
              document.fetched_at, document.media_type, list(document.acl), document.kind,
              document.process]
    return hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode("utf-8", "surrogatepass")).hexdigest()


class SQLFiles(SQLBase):
    """``FileRecords`` over ``transaction`` and ``_rows``."""

    def file_record(self, path: str) -> FileRecord | None:
        rows = self._select(_LOOKUP, (path,))
        if not rows:
            return None
        row = rows[0]
        if document_fingerprint(document_from_row(row)) != row["document"]:
            return None
        return _record(row)

    def record_file(self, record: FileRecord, document: Document) -> None:
        values = (
            record.path, record.size, record.mtime_ns, record.sha256, record.fingerprint,
            record.doc_id, record.version, document_fingerprint(document), record.passages,
            record.chars, self.dialect.list_value(record.flags), json.dumps(record.dropped),
        )
        with self.transaction() as cur:
            cur.execute(self.dialect.q(upsert("files", _COLUMNS, "path")), values)


def _record(row: Any) -> FileRecord:
    return FileRecord(
        path=row["path"], size=int(row["size"]), mtime_ns=int(row["mtime_ns"]),
        sha256=row["sha256"], fingerprint=row["fingerprint"], doc_id=row["doc_id"],
        version=row["version"], passages=int(row["passages"]), chars=int(row["chars"]),
        flags=listed(row["flags"]),
        dropped=tuple((str(reason), int(n)) for reason, n in json.loads(row["dropped"])),
    )
