-- Documents, versions, passages with a generated tsvector + GIN index, answers, meta.
-- Same tables and meaning as the SQLite store; ACLs are text[] so filtering is `&&`.

CREATE TABLE meta (
    key text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE documents (
    doc_id text PRIMARY KEY,
    source text NOT NULL,
    title text NOT NULL,
    license text NOT NULL,
    fetched_at text NOT NULL,
    media_type text NOT NULL,
    acl text[] NOT NULL,
    kind text NOT NULL,
    process text,
    current_version text NOT NULL
);

CREATE TABLE versions (
    doc_id text NOT NULL,
    version text NOT NULL,
    text text NOT NULL,
    extractor text NOT NULL,
    created_at text NOT NULL,
    regions text NOT NULL,
    PRIMARY KEY (doc_id, version)
);

-- Only passages of current versions live here. passage_id is a hint derived from
-- (version, range), so two documents with identical text share ids: unique per doc.
-- Digits joined by "." or "," are split before indexing ("64.7" -> "64 7") to match
-- how questions are turned into terms (and how the SQLite index tokenizes). acl is
-- the document's, copied with every write of its passages, so search filters and
-- ranks on this table alone and joins documents for the top rows only.
CREATE TABLE passages (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    passage_id text NOT NULL,
    doc_id text NOT NULL,
    version text NOT NULL,
    start integer NOT NULL,
    "end" integer NOT NULL,
    kind text NOT NULL,
    region text,
    process text,
    flags text[] NOT NULL,
    text text NOT NULL,
    acl text[] NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (
        to_tsvector({language}::regconfig, regexp_replace(text, '([0-9])[.,](?=[0-9])', E'\\1 ', 'g'))
    ) STORED,
    UNIQUE (doc_id, passage_id)
);
CREATE INDEX passages_by_version ON passages (doc_id, version, start);
CREATE INDEX passages_tsv ON passages USING gin (tsv);

CREATE TABLE answers (
    trace_id text PRIMARY KEY,
    created_at text NOT NULL,
    payload text NOT NULL
);

INSERT INTO meta (key, value) VALUES ('search_language', {language});
