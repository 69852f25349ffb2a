-- The clarification columns are "string | null", NULL until
-- set. 00001 declared clarification_answer, clarification_source,
-- resolved_prompt and result NOT NULL, and the store wrote '' for every
-- unset clarification column. This migration drops those NOT NULL
-- constraints and turns the '' a database holds into NULL.
--
-- SQLite cannot drop a NOT NULL constraint in place: the jobs table is
-- rebuilt (https://www.sqlite.org/lang_altertable.html#otheralter).
-- Attempts, events and dispatches refer to jobs, so foreign keys are off
-- while the table is replaced, and PRAGMA foreign_keys cannot change
-- inside a transaction: this migration opens its own.

-- +goose NO TRANSACTION
-- +goose Up
PRAGMA foreign_keys = OFF;

BEGIN IMMEDIATE;

-- The clarification columns are NULL until set: the question's columns
-- until the job asks (clarification_default and clarification_reason
-- stay NULL when the question has none), the answer's until it is
-- answered (a declined question without a default leaves
-- clarification_answer NULL, with source 'default'). result is NULL
-- until an interpreter output is kept (a pending job's question, a
-- validation_error job's last output).
CREATE TABLE jobs_new (
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
    clarification_question    TEXT,
    clarification_type        TEXT,    -- NULL exactly when the job has no question
    clarification_options     TEXT,    -- JSON array
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
    plan                      TEXT,    -- JSON Plan; NULL when none
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
    PRIMARY KEY (tenant_id, id),
    UNIQUE (id)
) STRICT;

INSERT INTO jobs_new SELECT
    tenant_id, id, session_id, mode, goal, profile, files, hard_cap, spec_schema,
    title, status, clarification_status,
    NULLIF(clarification_question, ''), NULLIF(clarification_type, ''),
    NULLIF(clarification_options, ''), NULLIF(clarification_default, ''),
    NULLIF(clarification_reason, ''), clarification_cosmetic, clarification_expires_at,
    NULLIF(clarification_answer, ''), NULLIF(clarification_source, ''),
    clarification_answered_at, NULLIF(resolved_prompt, ''),
    fallback_used, answer_delivered, plan, NULLIF(result, ''), error,
    prompt_tokens, completion_tokens, cost_usd, attempt_count,
    dispatch_status, delivery_attempts, delivery_error,
    version, created_at, updated_at
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;

CREATE INDEX jobs_by_tenant ON jobs (tenant_id, created_at DESC, id DESC);
CREATE INDEX jobs_by_tenant_status ON jobs (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX jobs_by_tenant_session ON jobs (tenant_id, session_id, created_at DESC, id DESC);
CREATE INDEX jobs_due ON jobs (clarification_expires_at, id)
    WHERE status = 'pending' AND clarification_expires_at IS NOT NULL;
CREATE INDEX jobs_stale ON jobs (updated_at, id)
    WHERE status = 'planning' AND mode = 'managed';

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
    clarification_answer      TEXT    NOT NULL,
    clarification_source      TEXT    NOT NULL,
    clarification_answered_at INTEGER,
    resolved_prompt           TEXT    NOT NULL,
    fallback_used             INTEGER NOT NULL DEFAULT 0,
    answer_delivered          INTEGER NOT NULL DEFAULT 0,
    plan                      TEXT,
    result                    TEXT    NOT NULL,
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
    PRIMARY KEY (tenant_id, id),
    UNIQUE (id)
) STRICT;

INSERT INTO jobs_old SELECT
    tenant_id, id, session_id, mode, goal, profile, files, hard_cap, spec_schema,
    title, status, clarification_status,
    clarification_question, clarification_type, clarification_options,
    CASE WHEN clarification_type IS NULL THEN NULL ELSE COALESCE(clarification_default, '') END,
    CASE WHEN clarification_type IS NULL THEN NULL ELSE COALESCE(clarification_reason, '') END,
    clarification_cosmetic, clarification_expires_at,
    COALESCE(clarification_answer, ''), COALESCE(clarification_source, ''),
    clarification_answered_at, COALESCE(resolved_prompt, ''),
    fallback_used, answer_delivered, plan, COALESCE(result, ''), error,
    prompt_tokens, completion_tokens, cost_usd, attempt_count,
    dispatch_status, delivery_attempts, delivery_error,
    version, created_at, updated_at
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_old RENAME TO jobs;

CREATE INDEX jobs_by_tenant ON jobs (tenant_id, created_at DESC, id DESC);
CREATE INDEX jobs_by_tenant_status ON jobs (tenant_id, status, created_at DESC, id DESC);
CREATE INDEX jobs_by_tenant_session ON jobs (tenant_id, session_id, created_at DESC, id DESC);
CREATE INDEX jobs_due ON jobs (clarification_expires_at, id)
    WHERE status = 'pending' AND clarification_expires_at IS NOT NULL;
CREATE INDEX jobs_stale ON jobs (updated_at, id)
    WHERE status = 'planning' AND mode = 'managed';

COMMIT;

PRAGMA foreign_keys = ON;
