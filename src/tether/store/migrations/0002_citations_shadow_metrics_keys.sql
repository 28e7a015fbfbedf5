-- Citation rows of the audit log (they keep cited versions alive through gc), the
-- shadow log, per-answer metrics and service API keys (SHA-256 only). SQLite files
-- of schema 1 may already hold some of these tables (they were created on open).

CREATE TABLE IF NOT EXISTS citations (
    trace_id text NOT NULL,
    seq integer NOT NULL,
    sentence integer NOT NULL,
    doc_id text NOT NULL,
    version text NOT NULL,
    start integer NOT NULL,
    "end" integer NOT NULL,
    quote text NOT NULL,
    quote_hash text NOT NULL,
    passage_id text NOT NULL,
    source text NOT NULL,
    title text NOT NULL,
    license text NOT NULL,
    fetched_at text NOT NULL,
    kind text NOT NULL,
    region text,
    process text,
    PRIMARY KEY (trace_id, seq)
);
CREATE INDEX IF NOT EXISTS citations_by_version ON citations (doc_id, version);

CREATE TABLE IF NOT EXISTS shadow_log (
-- [postgresql]
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
-- [sqlite]
    id integer PRIMARY KEY,
-- [end]
    created_at text NOT NULL,
    trace_id text NOT NULL,
    question text NOT NULL,
    gate text NOT NULL,
    layer text NOT NULL,
    reason text NOT NULL,
    suppressed text NOT NULL,
    text text NOT NULL
);

-- metrics is JSON as text, like answers.payload.
CREATE TABLE IF NOT EXISTS answer_metrics (
    trace_id text PRIMARY KEY,
    created_at text NOT NULL,
    metrics text NOT NULL
);
CREATE INDEX IF NOT EXISTS answer_metrics_by_time ON answer_metrics (created_at);

CREATE TABLE IF NOT EXISTS keys (
    name text PRIMARY KEY,
    key_hash text NOT NULL UNIQUE,
    principals {list} NOT NULL,
    created_at text NOT NULL
);

-- [postgresql] Answers recorded under schema 1 have their citations only inside the payload:
-- make them rows, so a later gc keeps the versions they cite (as SQLite's upgrade
-- does). A payload that does not parse, or an entry that does not look like a
-- citation, is skipped, never an error.
DO $$
DECLARE
    v_answer record;
    v_parsed jsonb;
    v_sentence jsonb;
    v_item jsonb;
    v_number integer;
    v_seq integer;
BEGIN
    FOR v_answer IN SELECT a.trace_id, a.payload FROM answers a ORDER BY trace_id LOOP
        BEGIN
            v_parsed := v_answer.payload::jsonb;
        EXCEPTION WHEN others THEN
            BEGIN  -- jsonb refuses \u0000 (answers are stored as text for that reason)
                v_parsed := replace(v_answer.payload, '\u0000', '\ufffd')::jsonb;
            EXCEPTION WHEN others THEN
                CONTINUE;
            END;
        END;
        IF jsonb_typeof(v_parsed -> 'sentences') IS DISTINCT FROM 'array' THEN
            CONTINUE;
        END IF;
        v_seq := 0;
        v_number := 0;
        FOR v_sentence IN SELECT value FROM jsonb_array_elements(v_parsed -> 'sentences') WITH ORDINALITY ORDER BY ordinality LOOP
            IF jsonb_typeof(v_sentence) = 'object' AND jsonb_typeof(v_sentence -> 'citations') = 'array' THEN
                FOR v_item IN SELECT value FROM jsonb_array_elements(v_sentence -> 'citations') WITH ORDINALITY ORDER BY ordinality LOOP
                    IF jsonb_typeof(v_item) = 'object'
                        AND jsonb_typeof(v_item -> 'doc_id') = 'string'
                        AND jsonb_typeof(v_item -> 'version') = 'string'
                        AND jsonb_typeof(v_item -> 'quote') = 'string'
                        AND jsonb_typeof(v_item -> 'quote_hash') = 'string'
                        AND jsonb_typeof(v_item -> 'start') = 'number' AND (v_item ->> 'start') ~ '^-?[0-9]+$'
                        AND length(v_item ->> 'start') < 10
                        AND jsonb_typeof(v_item -> 'end') = 'number' AND (v_item ->> 'end') ~ '^-?[0-9]+$'
                        AND length(v_item ->> 'end') < 10
                    THEN
                        INSERT INTO citations VALUES (
                            v_answer.trace_id, v_seq, v_number,
                            v_item ->> 'doc_id', v_item ->> 'version',
                            (v_item ->> 'start')::integer, (v_item ->> 'end')::integer,
                            v_item ->> 'quote', v_item ->> 'quote_hash',
                            coalesce(v_item ->> 'passage_id', ''), coalesce(v_item ->> 'source', ''),
                            coalesce(v_item ->> 'title', ''), coalesce(v_item ->> 'license', ''),
                            coalesce(v_item ->> 'fetched_at', ''),
                            coalesce(nullif(v_item ->> 'kind', ''), 'original'),
                            v_item ->> 'region', v_item ->> 'process'
                        ) ON CONFLICT DO NOTHING;
                        v_seq := v_seq + 1;
                    END IF;
                END LOOP;
            END IF;
            v_number := v_number + 1;
        END LOOP;
    END LOOP;
END
$$;
-- [sqlite] The same, in SQLite's JSON functions. Only answers without citation rows
-- are read, so running it again (SQLite runs every migration when bringing a file up
-- to date) adds nothing.
INSERT OR IGNORE INTO citations
SELECT a.trace_id,
       row_number() OVER (PARTITION BY a.trace_id ORDER BY s.key, c.key) - 1,
       s.key,
       json_extract(c.value, '$.doc_id'), json_extract(c.value, '$.version'),
       json_extract(c.value, '$.start'), json_extract(c.value, '$.end'),
       json_extract(c.value, '$.quote'), json_extract(c.value, '$.quote_hash'),
       coalesce(json_extract(c.value, '$.passage_id'), ''),
       coalesce(json_extract(c.value, '$.source'), ''),
       coalesce(json_extract(c.value, '$.title'), ''),
       coalesce(json_extract(c.value, '$.license'), ''),
       coalesce(json_extract(c.value, '$.fetched_at'), ''),
       coalesce(nullif(json_extract(c.value, '$.kind'), ''), 'original'),
       json_extract(c.value, '$.region'), json_extract(c.value, '$.process')
FROM answers a
JOIN json_each(CASE WHEN json_valid(a.payload) AND json_type(a.payload, '$.sentences') = 'array'
                    THEN a.payload ELSE '{"sentences": []}' END, '$.sentences') s
JOIN json_each(CASE WHEN s.type = 'object' AND json_type(s.value, '$.citations') = 'array'
                    THEN s.value ELSE '{"citations": []}' END, '$.citations') c
WHERE CASE WHEN c.type = 'object'
           THEN json_type(c.value, '$.doc_id') = 'text' AND json_type(c.value, '$.version') = 'text'
                AND json_type(c.value, '$.quote') = 'text' AND json_type(c.value, '$.quote_hash') = 'text'
                AND json_type(c.value, '$.start') = 'integer' AND json_type(c.value, '$.end') = 'integer'
           ELSE 0 END
  AND NOT EXISTS (SELECT 1 FROM citations x WHERE x.trace_id = a.trace_id);
-- [end]
