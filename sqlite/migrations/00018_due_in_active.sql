-- Issue 44: one index of the pending jobs instead of two. A
-- clarification round trip wrote 15.6 WAL frames (4 KiB pages, two
-- pwrite64 calls each), at least one for every b-tree each of its two
-- transactions touches, and a pending job had an entry in two partial
-- indexes: jobs_active (listing the jobs in progress, the sweep of
-- lapsed planning leases) and jobs_due (the expiry sweep), so the create
-- that asks and the answer each wrote both: 4 frames of the 15.6.
--
-- jobs_active now also covers the question's expiry, and DueQuestions
-- reads the pending jobs' entries there (every tenant's, in jobs_active's
-- order) and sorts the due ones by expiry: a round trip writes 13.6
-- frames. The sweep reads every pending job's entry instead of seeking
-- the first due one: it runs every --expiry-interval (30 s by default),
-- in the background, where each round trip paid two frames
-- (docs/benchmarks.md, "What bounds the round trip").

-- +goose Up
DROP INDEX jobs_due;
DROP INDEX jobs_active;
CREATE INDEX jobs_active ON jobs (status, tenant_id, created_at, id, mode, lease_until, lease_owner, clarification_expires_at)
    WHERE status IN ('planning', 'pending');

-- +goose Down
DROP INDEX jobs_active;
CREATE INDEX jobs_active ON jobs (status, tenant_id, created_at, id, mode, lease_until, lease_owner)
    WHERE status IN ('planning', 'pending');
CREATE INDEX jobs_due ON jobs (clarification_expires_at, id)
    WHERE status = 'pending' AND clarification_expires_at IS NOT NULL;
