-- Who may rewrite or delete a document through the service: its writers, the
-- non-public principals of the caller who first uploaded it (`public` alone for an
-- anonymous loopback server), kept across re-uploads. Reading stays the ACL's: being
-- able to read a document grants no right to replace or remove it. A document without
-- a row (ingested by the CLI, or before this migration) is writable by the non-public
-- principals of its ACL. The row goes with the document (delete_document).

CREATE TABLE IF NOT EXISTS document_writers (
    doc_id text PRIMARY KEY,
    writers {list} NOT NULL
);
