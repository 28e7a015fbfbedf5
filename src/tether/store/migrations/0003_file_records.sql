-- Files as `tether ingest` last saw them, one row per path: what an unchanged file is
-- recognised by without reading it (size and modification time), or by its bytes
-- (sha256) with --verify or after a touch; the fingerprint of the metadata and
-- settings it was ingested with; the document version it produced, and what the
-- ingest reported (passages, characters, flags, dropped text), so a skipped file
-- reports the same. A row is only trusted while its version is still the document's
-- current one (lookups join documents), so a removed or re-uploaded document is read
-- again; the row is written after its document's transaction commits.

CREATE TABLE IF NOT EXISTS files (
    path text PRIMARY KEY,
    size bigint NOT NULL,
    mtime_ns bigint NOT NULL,
    sha256 text NOT NULL,
    fingerprint text NOT NULL,
    doc_id text NOT NULL,
    version text NOT NULL,
    document text NOT NULL,
    passages integer NOT NULL,
    chars bigint NOT NULL,
    flags {list} NOT NULL,
    dropped text NOT NULL
);
