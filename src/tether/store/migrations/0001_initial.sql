-- Documents, versions, passages with their full-text index, answers, meta: the one
-- schema of both backends. `{list}` is the list column type (text[] in PostgreSQL, a
-- JSON array as text in SQLite); a `-- [sqlite]` or `-- [postgresql]` block is for
-- that backend only (store.dialect renders a file for each). Every statement is
-- idempotent where SQLite runs it, so SQLite brings any older file up to date by
-- running them all.

CREATE TABLE IF NOT EXISTS meta (
    key text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE IF NOT EXISTS documents (
    doc_id text PRIMARY KEY,
    source text NOT NULL,
    title text NOT NULL,
    license text NOT NULL,
    fetched_at text NOT NULL,
    media_type text NOT NULL,
    acl {list} NOT NULL,
    kind text NOT NULL,
    process text,
    current_version text NOT NULL
);

CREATE TABLE IF NOT EXISTS versions (
    doc_id text NOT NULL,
    version text NOT NULL,
    text text NOT NULL,
    extractor text NOT NULL,
    created_at text NOT NULL,
    regions text NOT NULL,
    PRIMARY KEY (doc_id, version)
);

-- Only passages of current versions live here. passage_id is a hint derived from
-- (doc_id, version, range): unique per document.
CREATE TABLE IF NOT EXISTS passages (
-- [postgresql]
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
-- [sqlite] FTS5's external-content index addresses passages by rowid
    rowid integer PRIMARY KEY,
-- [end]
    passage_id text NOT NULL,
    doc_id text NOT NULL,
    version text NOT NULL,
    start integer NOT NULL,
    "end" integer NOT NULL,
    kind text NOT NULL,
    region text,
    process text,
    flags {list} NOT NULL,
    text text NOT NULL,
-- [postgresql] Digits joined by "." or "," are split before indexing ("64.7" -> "64 7")
-- to match how questions are turned into terms (and how the SQLite index tokenizes).
-- acl is the document's, copied with every write of its passages, so search filters
-- and ranks on this table alone and joins documents for the top rows only.
    acl text[] NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (
        to_tsvector({language}::regconfig, regexp_replace(text, '([0-9])[.,](?=[0-9])', E'\\1 ', 'g'))
    ) STORED,
-- [end]
    UNIQUE (doc_id, passage_id)
);
CREATE INDEX IF NOT EXISTS passages_by_version ON passages (doc_id, version, start);
-- [postgresql]
CREATE INDEX IF NOT EXISTS passages_tsv ON passages USING gin (tsv);
-- [sqlite] ACLs are read from documents at search time (json_each).
CREATE VIRTUAL TABLE IF NOT EXISTS passages_fts USING fts5 (
    text, content='passages', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
);
-- [end]

CREATE TABLE IF NOT EXISTS answers (
    trace_id text PRIMARY KEY,
    created_at text NOT NULL,
    payload text NOT NULL
);
-- [postgresql]

INSERT INTO meta (key, value) VALUES ('search_language', {language});
-- [end]
