-- Issue 11: one b-tree for what a job records, appended at its right
-- edge. A clarification round trip wrote ~26 WAL frames in 2
-- transactions, and each b-tree a transaction touches costs at least
-- one frame: jobs_static, attempts, events, dispatches and event_ids
-- were five b-trees for the rows of one job, and the four keyed by job
-- id were WITHOUT ROWID, whose appends rebalance three pages at a time
-- (SQLite's quick append at the right edge is for rowid tables only).
--
-- - job_log holds them all, in a rowid table. A job has a number,
--   jobs.log_seq, given out in order of creation; its records' rowids
--   are log_seq << 32 | kind << 30 | n:
--     kind 0, n 0    the fields a job is created with (was jobs_static)
--     kind 1, n      attempt n (was attempts)
--     kind 2, n      the event whose id is n (was events)
--     kind 3, n 0    the job's dispatch (was dispatches): its rowid
--                    refuses a second one
--   so a job's records are side by side, and a new job's go at the end
--   of the b-tree, where a full page gets a new one instead of being
--   split. The columns a kind does not use are NULL; the job and tenant
--   are the job row's, found through log_seq, so the records do not
--   repeat the job id. The next log_seq is one more than the last
--   rowid's, read in the transaction that creates the job.
-- - Event ids increase within their job (askonce.Event.ID), not across
--   the store: a transaction gives its events the ids after its job's
--   last one, read from job_log, so event_ids goes. Migrated events keep
--   their ids, so a client's Last-Event-ID stays valid (n holds ids below
--   2^30: a store that gave out a billion events needs another layout).
-- - Attempts and events are append-only; a job's kind 0 record changes
--   only when a change changes a fixed field.
-- - One index of the jobs in progress serves listing them and the sweep
--   of lapsed planning leases: jobs_active, by status first, covering
--   what LapsedLeases reads, so jobs_lease goes and a managed job's
--   planning writes one index entry instead of two. LapsedLeases reads
--   the entries of every job in planning (few: planning takes seconds)
--   and sorts them. DueQuestions keeps jobs_due, which seeks the first
--   due question: pending jobs wait for people and can be many (read
--   through jobs_active, a sweep at 10,000 pending jobs took ten times
--   as long; docs/benchmarks.md).
-- - A job's result is most often the raw output of one of its attempts
--   (the question it asked): the row then refers to the attempt
--   (result_attempt) and result is NULL, so the text is stored once.

-- +goose Up
ALTER TABLE jobs ADD COLUMN log_seq INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET log_seq = o.seq
    FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS seq FROM jobs) AS o
    WHERE o.id = jobs.id;

CREATE TABLE job_log (
    id   INTEGER PRIMARY KEY,    -- log_seq << 32 | kind << 30 | n
    -- SQLite writes a header byte for every column of a record, NULL or
    -- not, so the kinds share five columns:
    --            at          type     data         more
    --   kind 0               files    goal         spec schema
    --   kind 1   started_at  outcome  raw output   the rest (below)
    --   kind 2   at          type     data
    --   kind 3   created_at  status
    -- files is a JSON array, NULL when none; the spec schema is the raw
    -- JSON Schema, NULL when none. An attempt's more is a JSON array of
    -- its reason, duration_ns, prompt_tokens, completion_tokens,
    -- cost_usd and error, in that order, without the trailing values
    -- that are 0 or ''.
    at   INTEGER,
    type TEXT,
    data TEXT,
    more TEXT
) STRICT;

INSERT INTO job_log (id, type, data, more)
    SELECT j.log_seq << 32, s.files, s.goal, s.spec_schema FROM jobs_static s JOIN jobs j ON j.id = s.id;
-- The cost is written with 17 significant digits, which read back as the
-- same double.
INSERT INTO job_log (id, at, type, data, more)
    SELECT (j.log_seq << 32) | (1 << 30) | a.n, a.started_at, a.outcome, a.raw,
        json_array(a.reason, a.duration_ns, a.prompt_tokens, a.completion_tokens, json(printf('%!.17g', a.cost_usd)), a.error)
    FROM attempts a JOIN jobs j ON j.id = a.job_id;
INSERT INTO job_log (id, at, type, data)
    SELECT (j.log_seq << 32) | (2 << 30) | e.id, e.at, e.type, e.data FROM events e JOIN jobs j ON j.id = e.job_id;
INSERT INTO job_log (id, at, type)
    SELECT (j.log_seq << 32) | (3 << 30), d.created_at, d.status FROM dispatches d JOIN jobs j ON j.id = d.job_id;

DROP INDEX jobs_lease;
DROP INDEX jobs_active;
CREATE INDEX jobs_active ON jobs (status, tenant_id, created_at, id, mode, lease_until, lease_owner)
    WHERE status IN ('planning', 'pending');

ALTER TABLE jobs ADD COLUMN result_attempt INTEGER;
UPDATE jobs SET result_attempt = (SELECT max(a.n) FROM attempts a WHERE a.job_id = jobs.id AND a.raw = jobs.result)
    WHERE result IS NOT NULL;
UPDATE jobs SET result = NULL WHERE result_attempt IS NOT NULL;

DROP TABLE jobs_static;
DROP TABLE attempts;
DROP TABLE events;
DROP TABLE dispatches;
DROP TABLE event_ids;

-- +goose StatementBegin
CREATE TRIGGER job_log_no_update BEFORE UPDATE ON job_log WHEN old.id >> 30 & 3 <> 0 OR new.id <> old.id
BEGIN
    SELECT RAISE(ABORT, 'attempts and events are append-only');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER job_log_no_delete BEFORE DELETE ON job_log
BEGIN
    SELECT RAISE(ABORT, 'attempts and events are append-only');
END;
-- +goose StatementEnd

-- +goose Down
CREATE TABLE jobs_static (
    id          TEXT NOT NULL PRIMARY KEY,
    goal        TEXT NOT NULL,
    files       TEXT,
    spec_schema TEXT,
    FOREIGN KEY (id) REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;

CREATE TABLE attempts (
    job_id            TEXT    NOT NULL,
    n                 INTEGER NOT NULL,
    tenant_id         TEXT    NOT NULL,
    reason            TEXT    NOT NULL,
    started_at        INTEGER,
    duration_ns       INTEGER NOT NULL,
    outcome           TEXT    NOT NULL,
    raw               TEXT    NOT NULL,
    error             TEXT    NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost_usd          REAL    NOT NULL,
    PRIMARY KEY (job_id, n),
    FOREIGN KEY (job_id) REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;

CREATE TABLE events (
    job_id    TEXT    NOT NULL,
    id        INTEGER NOT NULL,
    tenant_id TEXT    NOT NULL,
    type      TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    data      TEXT,
    PRIMARY KEY (job_id, id),
    FOREIGN KEY (job_id) REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;

CREATE TABLE dispatches (
    job_id     TEXT    NOT NULL PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    status     TEXT    NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT    NOT NULL DEFAULT '',
    FOREIGN KEY (job_id) REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;

CREATE TABLE event_ids (
    one  INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
    last INTEGER NOT NULL
) STRICT;

DROP INDEX jobs_active;
CREATE INDEX jobs_active ON jobs (tenant_id, status, created_at, id)
    WHERE status IN ('planning', 'pending');
CREATE INDEX jobs_lease ON jobs (lease_until, id)
    WHERE status = 'planning' AND mode = 'managed';

UPDATE jobs SET result = (SELECT data FROM job_log WHERE id = (jobs.log_seq << 32) | (1 << 30) | jobs.result_attempt)
    WHERE result_attempt IS NOT NULL;
ALTER TABLE jobs DROP COLUMN result_attempt;

-- log names each record of job_log by job, kind and n.
CREATE TEMP TABLE log AS SELECT j.id AS job_id, j.tenant_id, l.id >> 30 & 3 AS kind, l.id & 1073741823 AS n, l.*
    FROM job_log l JOIN jobs j ON j.log_seq = l.id >> 32;
INSERT INTO jobs_static SELECT job_id, data, type, more FROM log WHERE kind = 0;
INSERT INTO attempts SELECT job_id, n, tenant_id, more ->> 0, at, COALESCE(more ->> 1, 0), type, data, COALESCE(more ->> 5, ''),
        COALESCE(more ->> 2, 0), COALESCE(more ->> 3, 0), COALESCE(more ->> 4, 0)
    FROM log WHERE kind = 1;
-- Ids increase per job here and must increase across the store in
-- schema 9, so every event is numbered again, by job and id: each
-- job's events keep their order.
WITH ordered AS (
    SELECT job_id, n, tenant_id, type, at, data, row_number() OVER (ORDER BY job_id, n) AS pos
    FROM log WHERE kind = 2
)
INSERT INTO events SELECT job_id, pos, tenant_id, type, at, data FROM ordered;
INSERT INTO dispatches (job_id, tenant_id, created_at, status)
    SELECT job_id, tenant_id, at, type FROM log WHERE kind = 3;
INSERT INTO event_ids VALUES (1, COALESCE((SELECT max(id) FROM events), 0));

DROP TABLE log;
DROP TABLE job_log;
ALTER TABLE jobs DROP COLUMN log_seq;

-- +goose StatementBegin
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
-- +goose StatementEnd
