-- Issue 32: A2A push-notification configs. A task (a job) may have
-- several, told apart by id, each where its changes are POSTed
-- (askonce.PushConfig). They are keyed by tenant first, as every table
-- is; a config may be stored just before its job, so there is no foreign
-- key.

-- +goose Up
CREATE TABLE push_configs (
    tenant_id        TEXT    NOT NULL,
    job_id           TEXT    NOT NULL,
    id               TEXT    NOT NULL,
    url              TEXT    NOT NULL,
    token            TEXT    NOT NULL DEFAULT '',
    auth_scheme      TEXT    NOT NULL DEFAULT '',
    auth_credentials TEXT    NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, job_id, id)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE push_configs;
