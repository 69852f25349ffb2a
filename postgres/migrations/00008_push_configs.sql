-- Issue 32: A2A push-notification configs. A task (a job) may have
-- several, told apart by id, each where its changes are POSTed
-- (askonce.PushConfig). They are keyed by tenant first, as every table
-- is; a config may be stored just before its job, so there is no foreign
-- key.

-- +goose Up
CREATE TABLE push_configs (
    tenant_id        text        NOT NULL,
    job_id           text        NOT NULL,
    id               text        NOT NULL,
    url              text        NOT NULL,
    token            text        NOT NULL DEFAULT '',
    auth_scheme      text        NOT NULL DEFAULT '',
    auth_credentials text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, job_id, id)
);

-- +goose Down
DROP TABLE push_configs;
