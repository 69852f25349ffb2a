-- Issue 24: answer memory across sessions and agents. A job's memory
-- settings (askonce.Memory) are given at creation and never change: they
-- live in jobs_static, JSON, NULL for the default session memory. The
-- remembered answer that resolved its question (clarificationMemory) is
-- state, a column of jobs, JSON, NULL when none.
--
-- memory keeps the answers remembered in a project (scope 'project',
-- scope_key the project's name) or in the whole tenant (scope 'tenant',
-- scope_key ''), beside the sessions' history. Its key serves the lookup
-- (one seek per scope) and a project's listing. An entry is kept once: of
-- two answers racing, the later (by at, then job id) stays.

-- +goose Up
ALTER TABLE jobs_static ADD COLUMN memory jsonb;
ALTER TABLE jobs ADD COLUMN clarification_memory jsonb;
CREATE TABLE memory (
    tenant_id     text        NOT NULL,
    scope         text        NOT NULL,
    scope_key     text        NOT NULL,
    question_hash text        NOT NULL,
    type          text        NOT NULL,
    question      text        NOT NULL,
    answer        text        NOT NULL,
    job_id        text        NOT NULL,
    session_id    text        NOT NULL,
    at            timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    uses          bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, scope, scope_key, question_hash)
);

-- +goose Down
DROP TABLE memory;
ALTER TABLE jobs DROP COLUMN clarification_memory;
ALTER TABLE jobs_static DROP COLUMN memory;
