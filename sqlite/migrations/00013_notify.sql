-- Slack and email recipients (issue 22). jobs.notify is the job's
-- askonce.Recipients as JSON, NULL for none; it is written when the job
-- is created and never changes. notify_messages keeps, per job and
-- channel, the reference of the message sent about its question (the
-- Slack channel and ts, the email Message-ID): a send that finds one
-- already there sends nothing, and the updates after the job settles
-- edit or reply to it.

-- +goose Up
ALTER TABLE jobs ADD COLUMN notify TEXT;
CREATE TABLE notify_messages (
    tenant_id TEXT NOT NULL,
    job_id    TEXT NOT NULL,
    channel   TEXT NOT NULL,
    ref       TEXT NOT NULL,
    PRIMARY KEY (tenant_id, job_id, channel)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE notify_messages;
ALTER TABLE jobs DROP COLUMN notify;
