-- Issue 21: listing by a status that ends few jobs (validation_error,
-- failed, cancelled, expired) read jobs_by_tenant newest first and
-- filtered, so a page of them read every job of the tenant when there
-- were few: 430-450 ms at 321,000 jobs. Two partial indexes hold only
-- the jobs that ended so, one by tenant and one by session, so each
-- such list seeks its page. A job enters them once, when it ends, and
-- never leaves (an ended job does not change status); a job that
-- succeeds, as most do, writes neither, so a round trip writes no more
-- than before. Listing by success, the status of nearly every job,
-- reads jobs_by_tenant (or jobs_by_tenant_session) and skips the few
-- others; listing by planning or pending seeks jobs_active. ListJobs
-- repeats the indexes' WHERE, which SQLite needs to use a partial index.

-- +goose Up
CREATE INDEX jobs_ended ON jobs (tenant_id, status, created_at, id)
    WHERE status IN ('validation_error', 'failed', 'cancelled', 'expired');
CREATE INDEX jobs_ended_by_session ON jobs (tenant_id, session_id, status, created_at, id)
    WHERE status IN ('validation_error', 'failed', 'cancelled', 'expired');

-- +goose Down
DROP INDEX jobs_ended_by_session;
DROP INDEX jobs_ended;
