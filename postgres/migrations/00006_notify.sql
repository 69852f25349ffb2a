-- Slack and email recipients (issue 22); see the sqlite store's
-- migration 00013_notify.sql.

-- +goose Up
ALTER TABLE jobs ADD COLUMN notify text;
ALTER TABLE jobs ADD COLUMN answered_via text NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN answered_by text NOT NULL DEFAULT '';
CREATE TABLE notify_messages (
    tenant_id text NOT NULL,
    job_id    text NOT NULL,
    channel   text NOT NULL,
    ref       text NOT NULL,
    PRIMARY KEY (tenant_id, job_id, channel)
);

-- +goose Down
DROP TABLE notify_messages;
ALTER TABLE jobs DROP COLUMN answered_by;
ALTER TABLE jobs DROP COLUMN answered_via;
ALTER TABLE jobs DROP COLUMN notify;
