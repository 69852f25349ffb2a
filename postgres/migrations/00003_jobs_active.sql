-- Listing by a rare status (pending, planning): an index of the jobs
-- still in progress only, so transitions to a terminal status delete the
-- entry instead of rewriting a full status index (the sqlite store's
-- migration 00009). ListJobs repeats the WHERE so the planner can use it.

-- +goose Up
CREATE INDEX jobs_active ON jobs (tenant_id, status, created_at, id)
    WHERE status IN ('planning', 'pending');

-- +goose Down
DROP INDEX jobs_active;
