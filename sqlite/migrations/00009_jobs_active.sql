-- Listing by a rare status (pending, planning) read jobs_by_tenant and
-- filtered, since 00006 dropped the status index that every transition
-- rewrote: at 100,000 jobs a page of pending jobs scanned them all.
-- This index holds only the jobs still in progress, so a job's entry is
-- written while it plans or waits and deleted once it ends; listing by
-- a terminal status still reads jobs_by_tenant (those are the common
-- ones, found near the newest end). ListJobs repeats the index's WHERE
-- in its query, which SQLite needs to use a partial index.

-- +goose Up
CREATE INDEX jobs_active ON jobs (tenant_id, status, created_at, id)
    WHERE status IN ('planning', 'pending');

-- +goose Down
DROP INDEX jobs_active;
