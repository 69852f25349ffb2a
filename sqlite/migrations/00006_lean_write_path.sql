-- Issue 11: fewer pages per write. A clarification round trip wrote ~44
-- WAL frames; most were index and bookkeeping pages, not data:
--
-- - jobs was a rowid table with a primary key (tenant_id, id) and a
--   UNIQUE (id): three b-trees for one lookup key. It is now keyed by id
--   alone, WITHOUT ROWID, so the row lives in its key's b-tree; every
--   query still filters by tenant_id.
-- - The list indexes are ascending and two (see below).
-- - goal, files and spec_schema, which never change after creation and
--   can be large, move to jobs_static, written once: the row every
--   transition rewrites (with its overflow pages) no longer carries them.
-- - events had an AUTOINCREMENT id and an index by job: a table b-tree,
--   an index b-tree and the sqlite_sequence row. They are now keyed
--   (job_id, id), WITHOUT ROWID: one b-tree, a job's events side by side.
--   Ids still increase across all jobs in the order events are appended
--   (askonce.Event.ID): event_ids holds the last one given out, and a
--   transaction that appends events takes its ids with one update of
--   that row. Migrated events keep their ids, so a client's
--   Last-Event-ID stays valid.
-- - attempts, dispatches and answer_links refer to jobs (id), the key
--   jobs now has.
--
-- The tables are rebuilt, so foreign keys are off while they are
-- replaced, and PRAGMA foreign_keys cannot change inside a transaction:
-- this migration opens its own (as 00002 does).

-- +goose NO TRANSACTION
-- +goose Up
PRAGMA foreign_keys = OFF;

BEGIN IMMEDIATE;

CREATE TABLE jobs_new (
    id                        TEXT    NOT NULL PRIMARY KEY,
    tenant_id                 TEXT    NOT NULL,
    session_id                TEXT    NOT NULL,
    mode                      TEXT    NOT NULL,
    profile                   TEXT    NOT NULL,
    hard_cap                  TEXT    NOT NULL,
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
    clarification_allow_other INTEGER NOT NULL DEFAULT 0,
    clarification_expires_at  INTEGER,
    clarification_answer      TEXT,
    clarification_source      TEXT,
    clarification_answered_at INTEGER,
    resolved_prompt           TEXT,
    fallback_used             INTEGER NOT NULL DEFAULT 0,
    answer_delivered          INTEGER NOT NULL DEFAULT 0,
    plan                      TEXT,    -- JSON Plan; NULL when none
    result                    TEXT,
    error                     TEXT    NOT NULL,
    dispatch_status           TEXT    NOT NULL DEFAULT '',
    delivery_attempts         INTEGER NOT NULL DEFAULT 0,
    delivery_error            TEXT    NOT NULL DEFAULT '',
    -- Usage and attempt_count are the sums over the job's attempts. Only
    -- the statements that insert attempts change them.
    prompt_tokens             INTEGER NOT NULL DEFAULT 0,
    completion_tokens         INTEGER NOT NULL DEFAULT 0,
    cost_usd                  REAL    NOT NULL DEFAULT 0,
    attempt_count             INTEGER NOT NULL DEFAULT 0,
    version                   INTEGER NOT NULL,
    created_at                INTEGER NOT NULL,
    updated_at                INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- jobs_static holds what a job is created with and never changes.
CREATE TABLE jobs_static (
    id          TEXT NOT NULL PRIMARY KEY,
    goal        TEXT NOT NULL,
    files       TEXT,    -- JSON array; NULL when none
    spec_schema TEXT,    -- raw JSON Schema; NULL when none
    FOREIGN KEY (id) REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;

CREATE TABLE attempts_new (
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

-- events is the append-only audit trail, a job's events in order of id.
CREATE TABLE events_new (
    job_id    TEXT    NOT NULL,
    id        INTEGER NOT NULL,
    tenant_id TEXT    NOT NULL,
    type      TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    data      TEXT,
    PRIMARY KEY (job_id, id),
    FOREIGN KEY (job_id) REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;

CREATE TABLE dispatches_new (
    job_id     TEXT    NOT NULL PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    status     TEXT    NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT    NOT NULL DEFAULT '',
    FOREIGN KEY (job_id) REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;

CREATE TABLE answer_links_new (
    token_hash BLOB    NOT NULL PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    job_id     TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    FOREIGN KEY (job_id) REFERENCES jobs (id)
) STRICT, WITHOUT ROWID;

INSERT INTO jobs_new SELECT
    id, tenant_id, session_id, mode, profile, hard_cap, title, status, clarification_status,
    clarification_question, clarification_type, clarification_options,
    clarification_default, clarification_reason, clarification_cosmetic, clarification_allow_other,
    clarification_expires_at, clarification_answer, clarification_source, clarification_answered_at,
    resolved_prompt, fallback_used, answer_delivered, plan, result, error,
    dispatch_status, delivery_attempts, delivery_error,
    prompt_tokens, completion_tokens, cost_usd, attempt_count,
    version, created_at, updated_at
FROM jobs;
INSERT INTO jobs_static SELECT id, goal, files, spec_schema FROM jobs;
INSERT INTO attempts_new SELECT * FROM attempts;
INSERT INTO events_new SELECT job_id, id, tenant_id, type, at, data FROM events;

-- event_ids is one row: the last event id given out.
CREATE TABLE event_ids (
    one  INTEGER NOT NULL PRIMARY KEY CHECK (one = 1),
    last INTEGER NOT NULL
) STRICT;
INSERT INTO event_ids VALUES (1, max(
    COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0),
    COALESCE((SELECT max(id) FROM events), 0)));
INSERT INTO dispatches_new SELECT * FROM dispatches;
INSERT INTO answer_links_new SELECT * FROM answer_links;

DROP TABLE answer_links;
DROP TABLE dispatches;
DROP TABLE events;
DROP TABLE attempts;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
ALTER TABLE attempts_new RENAME TO attempts;
ALTER TABLE events_new RENAME TO events;
ALTER TABLE dispatches_new RENAME TO dispatches;
ALTER TABLE answer_links_new RENAME TO answer_links;

-- ListJobs: newest first, optionally by session or status. The indexes
-- are ascending, read backwards: new jobs go to the right edge of the
-- b-tree, where SQLite appends a page instead of rebalancing siblings
-- (a DESC index put every new job at the left edge). Neither changes
-- after the job is created. Listing by status reads jobs_by_tenant and
-- filters: an index on status was rewritten by every transition.
CREATE INDEX jobs_by_tenant ON jobs (tenant_id, created_at, id);
CREATE INDEX jobs_by_tenant_session ON jobs (tenant_id, session_id, created_at, id);
-- DueQuestions: pending jobs by expiry.
CREATE INDEX jobs_due ON jobs (clarification_expires_at, id)
    WHERE status = 'pending' AND clarification_expires_at IS NOT NULL;
-- StalePlanning: managed jobs left in planning, by last update.
CREATE INDEX jobs_stale ON jobs (updated_at, id)
    WHERE status = 'planning' AND mode = 'managed';

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

COMMIT;

PRAGMA foreign_keys = ON;

-- +goose Down
PRAGMA foreign_keys = OFF;

BEGIN IMMEDIATE;

CREATE TABLE jobs_old (
    tenant_id                 TEXT    NOT NULL,
    id                        TEXT    NOT NULL,
    session_id                TEXT    NOT NULL,
    mode                      TEXT    NOT NULL,
    goal                      TEXT    NOT NULL,
    profile                   TEXT    NOT NULL,
    files                     TEXT,
    hard_cap                  TEXT    NOT NULL,
    spec_schema               TEXT,
    title                     TEXT    NOT NULL,
    status                    TEXT    NOT NULL,
    clarification_status      TEXT    NOT NULL,
    clarification_question    TEXT,
    clarification_type        TEXT,
    clarification_options     TEXT,
    clarification_default     TEXT,
    clarification_reason      TEXT,
    clarification_cosmetic    INTEGER NOT NULL DEFAULT 0,
    clarification_expires_at  INTEGER,
    clarification_answer      TEXT,
    clarification_source      TEXT,
    clarification_answered_at INTEGER,
    resolved_prompt           TEXT,
    fallback_used             INTEGER NOT NULL DEFAULT 0,
    answer_delivered          INTEGER NOT NULL DEFAULT 0,
    plan                      TEXT,
    result                    TEXT,
    error                     TEXT    NOT NULL,
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
    clarification_allow_other INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (id)
) STRICT;

CREATE TABLE attempts_old (
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

CREATE TABLE events_old (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant_id TEXT    NOT NULL,
    job_id    TEXT    NOT NULL,
    type      TEXT    NOT NULL,
    at        INTEGER NOT NULL,
    data      TEXT,
    FOREIGN KEY (tenant_id, job_id) REFERENCES jobs (tenant_id, id)
) STRICT;

CREATE TABLE dispatches_old (
    job_id     TEXT    NOT NULL PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    status     TEXT    NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    last_error TEXT    NOT NULL DEFAULT '',
    FOREIGN KEY (tenant_id, job_id) REFERENCES jobs (tenant_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE answer_links_old (
    token_hash BLOB    NOT NULL PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    job_id     TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    FOREIGN KEY (tenant_id, job_id) REFERENCES jobs (tenant_id, id)
) STRICT, WITHOUT ROWID;

INSERT INTO jobs_old SELECT
    j.tenant_id, j.id, j.session_id, j.mode, s.goal, j.profile, s.files, j.hard_cap, s.spec_schema,
    j.title, j.status, j.clarification_status,
    j.clarification_question, j.clarification_type, j.clarification_options,
    j.clarification_default, j.clarification_reason, j.clarification_cosmetic,
    j.clarification_expires_at, j.clarification_answer, j.clarification_source,
    j.clarification_answered_at, j.resolved_prompt, j.fallback_used, j.answer_delivered,
    j.plan, j.result, j.error, j.prompt_tokens, j.completion_tokens, j.cost_usd, j.attempt_count,
    j.dispatch_status, j.delivery_attempts, j.delivery_error,
    j.version, j.created_at, j.updated_at, j.clarification_allow_other
FROM jobs j JOIN jobs_static s ON s.id = j.id;
INSERT INTO attempts_old SELECT * FROM attempts;
INSERT INTO events_old SELECT id, tenant_id, job_id, type, at, data FROM events ORDER BY id;
-- AUTOINCREMENT goes on after the last id given out, as event_ids did.
INSERT INTO sqlite_sequence (name, seq) SELECT 'events', last FROM event_ids
    WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'events');
UPDATE sqlite_sequence SET seq = (SELECT last FROM event_ids) WHERE name = 'events';
INSERT INTO dispatches_old SELECT * FROM dispatches;
INSERT INTO answer_links_old SELECT * FROM answer_links;

DROP TABLE answer_links;
DROP TABLE dispatches;
DROP TABLE events;
DROP TABLE event_ids;
DROP TABLE attempts;
DROP TABLE jobs_static;
DROP TABLE jobs;
ALTER TABLE jobs_old RENAME TO jobs;
ALTER TABLE attempts_old RENAME TO attempts;
ALTER TABLE events_old RENAME TO events;
ALTER TABLE dispatches_old RENAME TO dispatches;
ALTER TABLE answer_links_old RENAME TO answer_links;

CREATE INDEX events_by_job ON events (job_id, id);
CREATE INDEX jobs_by_tenant ON jobs (tenant_id, created_at DESC, id DESC);
CREATE INDEX jobs_by_tenant_status ON jobs (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX jobs_by_tenant_session ON jobs (tenant_id, session_id, created_at DESC, id DESC);
CREATE INDEX jobs_due ON jobs (clarification_expires_at, id)
    WHERE status = 'pending' AND clarification_expires_at IS NOT NULL;
CREATE INDEX jobs_stale ON jobs (updated_at, id)
    WHERE status = 'planning' AND mode = 'managed';

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

COMMIT;

PRAGMA foreign_keys = ON;
