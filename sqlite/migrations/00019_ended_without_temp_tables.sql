-- Issue 44: the partial indexes of the jobs that ended other than in
-- success (00012) were written WHERE status IN (four values). SQLite
-- evaluates that WHERE for the row every INSERT writes and for the old
-- and the new row of every UPDATE that sets status, and it tests a list
-- of more than two constants by building a temporary b-tree of them
-- each time the statement runs: six per clarification round trip (two in
-- the create's INSERT, four in the answer's UPDATE), a b-tree opened,
-- filled and closed each time. The same WHERE written as comparisons
-- joined by OR is the same set of rows and needs none. ListJobs repeats
-- the indexes' WHERE in this form, which SQLite needs to use a partial
-- index (internal/sqlstore.ListQuery).

-- +goose Up
DROP INDEX jobs_ended_by_session;
DROP INDEX jobs_ended;
CREATE INDEX jobs_ended ON jobs (tenant_id, status, created_at, id)
    WHERE status = 'validation_error' OR status = 'failed' OR status = 'cancelled' OR status = 'expired';
CREATE INDEX jobs_ended_by_session ON jobs (tenant_id, session_id, status, created_at, id)
    WHERE status = 'validation_error' OR status = 'failed' OR status = 'cancelled' OR status = 'expired';

-- +goose Down
DROP INDEX jobs_ended_by_session;
DROP INDEX jobs_ended;
CREATE INDEX jobs_ended ON jobs (tenant_id, status, created_at, id)
    WHERE status IN ('validation_error', 'failed', 'cancelled', 'expired');
CREATE INDEX jobs_ended_by_session ON jobs (tenant_id, session_id, status, created_at, id)
    WHERE status IN ('validation_error', 'failed', 'cancelled', 'expired');
