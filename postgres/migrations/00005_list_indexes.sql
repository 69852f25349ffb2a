-- Listing by a status that ends few jobs (validation_error, failed,
-- cancelled, expired) read jobs_by_tenant and filtered: O(jobs of the
-- tenant) when they are few. Partial indexes of those jobs only, by
-- tenant and by session, written once when a job ends so (a job that
-- succeeds writes neither); the sqlite store's migration 00012. ListJobs
-- repeats the WHERE so the planner can use them.

-- +goose Up
CREATE INDEX jobs_ended ON jobs (tenant_id, status, created_at, id)
    WHERE status IN ('validation_error', 'failed', 'cancelled', 'expired');
CREATE INDEX jobs_ended_by_session ON jobs (tenant_id, session_id, status, created_at, id)
    WHERE status IN ('validation_error', 'failed', 'cancelled', 'expired');

-- +goose Down
DROP INDEX jobs_ended_by_session;
DROP INDEX jobs_ended;
