-- The askonce schema. Times are INTEGER unix nanoseconds (UTC), so that
-- they round-trip exactly; JSON values are TEXT. Tables are STRICT so that
-- a wrongly typed value fails loudly instead of being stored as is.

-- +goose Up

-- jobs holds one row per job. The id (a UUIDv7) is unique across tenants,
-- so that attempts, events and dispatches can be keyed by it, and every
-- query also filters by tenant_id.
CREATE TABLE jobs (
    tenant_id                 TEXT    NOT NULL,
    id                        TEXT    NOT NULL,
    session_id                TEXT    NOT NULL,
    mode                      TEXT    NOT NULL,
    goal                      TEXT    NOT NULL,
    profile                   TEXT    NOT NULL,
    files                     TEXT,    -- JSON array; NULL when none
    hard_cap                  TEXT    NOT NULL,
    spec_schema               TEXT,    -- raw JSON Schema; NULL when none
    title                     TEXT    NOT NULL,
    status                    TEXT    NOT NULL,
    clarification_status      TEXT    NOT NULL,
    -- The question columns are all NULL exactly when the job has no
    -- question; clarification_type tells which.
    clarification_question    TEXT,
    clarification_type        TEXT,
    clarification_options     TEXT,    -- JSON array
    clarification_default     TEXT,
    clarification_reason      TEXT,
    clarification_cosmetic    INTEGER NOT NULL DEFAULT 0,
    clarification_expires_at  INTEGER,
    clarification_answer      TEXT    NOT NULL,
    clarification_source      TEXT    NOT NULL,
    clarification_answered_at INTEGER,
    resolved_prompt           TEXT    NOT NULL,
    fallback_used             INTEGER NOT NULL DEFAULT 0,
    answer_delivered          INTEGER NOT NULL DEFAULT 0,
    plan                      TEXT,    -- JSON Plan; NULL when none
    result                    TEXT    NOT NULL,
    error                     TEXT    NOT NULL,
    -- Usage and attempt_count are the sums over the job's attempts. Only
    -- the statements that insert attempts change them.
    prompt_tokens             INTEGER NOT NULL DEFAULT 0,
    completion_tokens         INTEGER NOT NULL DEFAULT 0,
    cost_usd                  REAL    NOT NULL DEFAULT 0,
    attempt_count             INTEGER NOT NULL DEFAULT 0,
    dispatch_status           TEXT    NOT NULL DEFAULT '',
    delivery_attempts         INTEGER NOT NULL DEFAULT 0,
    delivery_error            TEXT    NOT NULL DEFAULT '',
    version                   INTEGER NOT NULL,
    created_at                INTEGER NOT NULL,
    updated_at                INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (id)
) STRICT;

-- ListJobs: newest first, optionally by status or session.
CREATE INDEX jobs_by_tenant ON jobs (tenant_id, created_at DESC, id DESC);
CREATE INDEX jobs_by_tenant_status ON jobs (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX jobs_by_tenant_session ON jobs (tenant_id, session_id, created_at DESC, id DESC);
-- DueQuestions: pending jobs by expiry. Partial, so that only pending
-- jobs with a deadline are indexed.
CREATE INDEX jobs_due ON jobs (clarification_expires_at, id)
    WHERE status = 'pending' AND clarification_expires_at IS NOT NULL;
-- StalePlanning: managed jobs left in planning, by last update.
CREATE INDEX jobs_stale ON jobs (updated_at, id)
    WHERE status = 'planning' AND mode = 'managed';

-- attempts holds every interpreter call of a job, in its key's b-tree.
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
    FOREIGN KEY (tenant_id, job_id) REFERENCES jobs (tenant_id, id)
) STRICT, WITHOUT ROWID;

-- events is the append-only audit trail. AUTOINCREMENT keeps ids
-- increasing and never reused.
CREATE TABLE events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id TEXT    NOT NULL,
    job_id    TEXT    NOT NULL,
    type      TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    data      TEXT,
    FOREIGN KEY (tenant_id, job_id) REFERENCES jobs (tenant_id, id)
) STRICT;

CREATE INDEX events_by_job ON events (job_id, id);

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

-- history is the repeat guard's memory: one answer per question hash
-- and session. A session's entries are few: History sorts them by time
-- without an index. Tables without rowid keep a row in its key's b-tree,
-- one page write instead of two.
CREATE TABLE history (
    tenant_id     TEXT    NOT NULL,
    session_id    TEXT    NOT NULL,
    question_hash TEXT    NOT NULL,
    type          TEXT    NOT NULL,
    question      TEXT    NOT NULL,
    answer        TEXT    NOT NULL,
    job_id        TEXT    NOT NULL,
    at            INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, session_id, question_hash)
) STRICT, WITHOUT ROWID;

-- dispatches is the builder queue. Its primary key makes dispatch unique
-- per job: a second insert fails the transaction that tried it.
CREATE TABLE dispatches (
    job_id     TEXT    NOT NULL PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    status     TEXT    NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT    NOT NULL DEFAULT '',
    FOREIGN KEY (tenant_id, job_id) REFERENCES jobs (tenant_id, id)
) STRICT, WITHOUT ROWID;

-- idempotency holds the first response to each Idempotency-Key, per
-- tenant. status 0 marks a request still in flight.
CREATE TABLE idempotency (
    tenant_id   TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    status      INTEGER NOT NULL,
    body        BLOB,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, key)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE idempotency;
DROP TABLE dispatches;
DROP TABLE history;
DROP TRIGGER events_no_delete;
DROP TRIGGER events_no_update;
DROP TABLE events;
DROP TABLE attempts;
DROP TABLE jobs;
