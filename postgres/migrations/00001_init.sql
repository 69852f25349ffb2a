-- The askonce schema on PostgreSQL: the layout of the SQLite store's
-- lean schema (its migration 00006), in PostgreSQL's types. Times are
-- timestamptz (microseconds, which is all the store keeps); lists are
-- text[]; a plan and a JSON Schema are jsonb; event data is json, which
-- keeps the text as written.

-- +goose Up

-- jobs holds one row per job, keyed by id (a UUIDv7, unique across
-- tenants); every query also filters by tenant_id.
CREATE TABLE jobs (
    id                        text             NOT NULL PRIMARY KEY,
    tenant_id                 text             NOT NULL,
    session_id                text             NOT NULL,
    mode                      text             NOT NULL,
    profile                   text             NOT NULL,
    hard_cap                  text             NOT NULL,
    title                     text             NOT NULL,
    status                    text             NOT NULL,
    clarification_status      text             NOT NULL,
    -- The question columns are all NULL exactly when the job has no
    -- question; clarification_type tells which.
    clarification_question    text,
    clarification_type        text,
    clarification_options     text[],
    clarification_default     text,
    clarification_reason      text,
    clarification_cosmetic    boolean          NOT NULL DEFAULT false,
    clarification_allow_other boolean          NOT NULL DEFAULT false,
    clarification_expires_at  timestamptz,
    clarification_answer      text,
    clarification_source      text,
    clarification_answered_at timestamptz,
    resolved_prompt           text,
    fallback_used             boolean          NOT NULL DEFAULT false,
    answer_delivered          boolean          NOT NULL DEFAULT false,
    plan                      jsonb,
    result                    text,
    error                     text             NOT NULL,
    dispatch_status           text             NOT NULL DEFAULT '',
    delivery_attempts         integer          NOT NULL DEFAULT 0,
    delivery_error            text             NOT NULL DEFAULT '',
    -- Usage and attempt_count are the sums over the job's attempts. Only
    -- the statements that insert attempts change them.
    prompt_tokens             bigint           NOT NULL DEFAULT 0,
    completion_tokens         bigint           NOT NULL DEFAULT 0,
    cost_usd                  double precision NOT NULL DEFAULT 0,
    attempt_count             integer          NOT NULL DEFAULT 0,
    version                   bigint           NOT NULL,
    created_at                timestamptz      NOT NULL,
    updated_at                timestamptz      NOT NULL
);

-- ListJobs: newest first, optionally by session; by status it reads
-- jobs_by_tenant and filters, so that no index is rewritten by every
-- transition (an unchanged indexed column lets PostgreSQL update the row
-- in place, a HOT update).
CREATE INDEX jobs_by_tenant ON jobs (tenant_id, created_at, id);
CREATE INDEX jobs_by_tenant_session ON jobs (tenant_id, session_id, created_at, id);
-- DueQuestions: pending jobs by expiry.
CREATE INDEX jobs_due ON jobs (clarification_expires_at, id)
    WHERE status = 'pending' AND clarification_expires_at IS NOT NULL;
-- StalePlanning: managed jobs left in planning, by last update.
CREATE INDEX jobs_stale ON jobs (updated_at, id)
    WHERE status = 'planning' AND mode = 'managed';

-- jobs_static holds what a job is created with and never changes, so that
-- the row every transition rewrites does not carry it.
CREATE TABLE jobs_static (
    id          text  NOT NULL PRIMARY KEY REFERENCES jobs (id),
    goal        text  NOT NULL,
    files       text[],
    spec_schema jsonb
);

-- attempts holds every interpreter call of a job.
CREATE TABLE attempts (
    job_id            text             NOT NULL REFERENCES jobs (id),
    n                 integer          NOT NULL,
    tenant_id         text             NOT NULL,
    reason            text             NOT NULL,
    started_at        timestamptz,
    duration_ns       bigint           NOT NULL,
    outcome           text             NOT NULL,
    raw               text             NOT NULL,
    error             text             NOT NULL,
    prompt_tokens     bigint           NOT NULL,
    completion_tokens bigint           NOT NULL,
    cost_usd          double precision NOT NULL,
    PRIMARY KEY (job_id, n)
);

-- events is the append-only audit trail, read per job in order of id. Ids
-- come from one sequence, so they increase across the store; a job's
-- events take theirs while its transaction holds the job's row, so they
-- also commit in the order of their ids.
CREATE TABLE events (
    job_id    text        NOT NULL REFERENCES jobs (id),
    id        bigint      NOT NULL GENERATED ALWAYS AS IDENTITY,
    tenant_id text        NOT NULL,
    type      text        NOT NULL,
    at        timestamptz NOT NULL,
    data      json,
    PRIMARY KEY (job_id, id)
);

-- +goose StatementBegin
CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER events_no_update BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();

-- history is the repeat guard's memory: one answer per question hash and
-- session.
CREATE TABLE history (
    tenant_id     text        NOT NULL,
    session_id    text        NOT NULL,
    question_hash text        NOT NULL,
    type          text        NOT NULL,
    question      text        NOT NULL,
    answer        text        NOT NULL,
    job_id        text        NOT NULL,
    at            timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, session_id, question_hash)
);

-- dispatches is the builder queue's ledger. Its primary key makes
-- dispatch unique per job: a second insert fails the transaction that
-- tried it.
CREATE TABLE dispatches (
    job_id     text        NOT NULL PRIMARY KEY REFERENCES jobs (id),
    tenant_id  text        NOT NULL,
    created_at timestamptz NOT NULL,
    status     text        NOT NULL,
    attempts   integer     NOT NULL DEFAULT 0,
    last_error text        NOT NULL DEFAULT ''
);

-- idempotency holds the first response to each Idempotency-Key, per
-- tenant; status 0 marks a request still in flight. owner is the lease of
-- the process whose request holds an in-flight claim ('' once
-- abandoned); job_id and base_version name the job the request is about
-- and its version when the key was claimed (0: none yet).
CREATE TABLE idempotency (
    tenant_id    text        NOT NULL,
    key          text        NOT NULL,
    fingerprint  text        NOT NULL,
    status       integer     NOT NULL,
    body         bytea,
    created_at   timestamptz NOT NULL,
    owner        text        NOT NULL DEFAULT '',
    job_id       text        NOT NULL DEFAULT '',
    base_version bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, key)
);

-- idempotency_leases holds one row per live process that claims keys: it
-- is alive until expires_at. An owner without a row, or whose row has
-- expired, is dead.
CREATE TABLE idempotency_leases (
    owner      text        NOT NULL PRIMARY KEY,
    expires_at timestamptz NOT NULL
);

-- settings holds values that belong to the database rather than to a
-- process: answer_link_secret, the 32 random bytes that key answer links
-- (askonce.Engine.LinkSecret), written by the first Open.
CREATE TABLE settings (
    name  text  NOT NULL PRIMARY KEY,
    value bytea NOT NULL
);

-- answer_links maps the SHA-256 of an answer token to its job. The token
-- itself is never stored.
CREATE TABLE answer_links (
    token_hash bytea       NOT NULL PRIMARY KEY,
    tenant_id  text        NOT NULL,
    job_id     text        NOT NULL REFERENCES jobs (id),
    created_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE answer_links;
DROP TABLE settings;
DROP TABLE idempotency_leases;
DROP TABLE idempotency;
DROP TABLE dispatches;
DROP TABLE history;
DROP TABLE events;
DROP FUNCTION events_append_only();
DROP TABLE attempts;
DROP TABLE jobs_static;
DROP TABLE jobs;
