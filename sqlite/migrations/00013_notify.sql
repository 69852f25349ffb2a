-- Slack and email recipients, and who answered (issue 22).
-- jobs.answered_via and answered_by are the channel and identity of the
-- person who answered or declined (askonce.Answerer). jobs.notify is the job's
-- askonce.Recipients as JSON, NULL for none; it is written when the job
-- is created and never changes. notify_messages keeps, per job and
-- channel, the reference of the message sent about its question (the
-- Slack channel and ts, the email Message-ID): a send that finds one
-- already there sends nothing, and the updates after the job settles
-- edit or reply to it.

-- +goose Up
ALTER TABLE jobs ADD COLUMN notify TEXT;
ALTER TABLE jobs ADD COLUMN answered_via TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN answered_by TEXT NOT NULL DEFAULT '';
CREATE TABLE notify_messages (
    tenant_id TEXT NOT NULL,
    job_id    TEXT NOT NULL,
    channel   TEXT NOT NULL,
    ref       TEXT NOT NULL,
    PRIMARY KEY (tenant_id, job_id, channel)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE notify_messages;
ALTER TABLE jobs DROP COLUMN answered_by;
ALTER TABLE jobs DROP COLUMN answered_via;
ALTER TABLE jobs DROP COLUMN notify;
