-- Issue 9: answer links and the per-database settings they need.

-- +goose Up

-- settings holds values that belong to the database rather than to a
-- process: answer_link_secret, the 32 random bytes that key answer links
-- (askonce.Engine.LinkSecret), written by the first Open.
CREATE TABLE settings (
    name  TEXT NOT NULL PRIMARY KEY,
    value BLOB NOT NULL
) STRICT, WITHOUT ROWID;

-- answer_links maps the SHA-256 of an answer token to its job. The token
-- itself is never stored: it is derived from the secret, the tenant and
-- the job id when a view is rendered. Rows outlive the question (the
-- engine tells a dead link from the job's state).
CREATE TABLE answer_links (
    token_hash BLOB    NOT NULL PRIMARY KEY,
    tenant_id  TEXT    NOT NULL,
    job_id     TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    FOREIGN KEY (tenant_id, job_id) REFERENCES jobs (tenant_id, id)
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE answer_links;
DROP TABLE settings;
