-- Issue 24: answer memory across sessions and agents. A job may name a
-- memory scope wider than its session (askonce.Memory): its settings are
-- given at creation and never change, so they take a column of job_log's
-- kind 0 record (JSON, NULL for the default session memory); the
-- remembered answer that resolved its question (clarificationMemory) is
-- state, a column of jobs (JSON, NULL when none). Like candidates, the
-- settings column costs every job_log record one header byte.
--
-- memory keeps the answers remembered in a project (scope 'project',
-- scope_key the project's name) or in the whole tenant (scope 'tenant',
-- scope_key ''), beside the sessions' history. Its key serves both the
-- lookup (tenant, scope, name, hash: one seek per scope) and a project's
-- listing (tenant, scope, name). An entry is kept once: of two answers
-- racing, the later (by at, then job id) stays.

-- +goose Up
ALTER TABLE job_log ADD COLUMN memory TEXT;
ALTER TABLE jobs ADD COLUMN clarification_memory TEXT;
CREATE TABLE memory (
    tenant_id     TEXT    NOT NULL,
    scope         TEXT    NOT NULL,
    scope_key     TEXT    NOT NULL,
    question_hash TEXT    NOT NULL,
    type          TEXT    NOT NULL,
    question      TEXT    NOT NULL,
    answer        TEXT    NOT NULL,
    job_id        TEXT    NOT NULL,
    session_id    TEXT    NOT NULL,
    at            INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL,
    uses          INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, scope, scope_key, question_hash)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE memory;
ALTER TABLE jobs DROP COLUMN clarification_memory;
ALTER TABLE job_log DROP COLUMN memory;
