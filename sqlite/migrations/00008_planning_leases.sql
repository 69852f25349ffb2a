-- Issue 12: planning leases, so that several processes can share one
-- database and take over the planning jobs of one that died
-- (docs/protocol.md rule 13; askonce.Lease).
--
-- A managed job in planning carries the owner of its lease and when the
-- lease lapses (Unix nanoseconds; 0 for none). Jobs left in planning by
-- an earlier version have none, so the first sweep takes them over, as a
-- restart recovered them before. The index serves LapsedLeases (the jobs
-- of one owner are among the few in planning) and, being partial, is
-- written only while a job plans.

-- +goose Up
ALTER TABLE jobs ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
DROP INDEX jobs_stale;
CREATE INDEX jobs_lease ON jobs (lease_until, id)
    WHERE status = 'planning' AND mode = 'managed';

-- leaders holds one row per kind of work that must run once across the
-- processes sharing the database (askonce.Store.Lead): who leads it, and
-- until when.
CREATE TABLE leaders (
    name  TEXT    NOT NULL PRIMARY KEY,
    owner TEXT    NOT NULL,
    until INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE leaders;
DROP INDEX jobs_lease;
ALTER TABLE jobs DROP COLUMN lease_until;
ALTER TABLE jobs DROP COLUMN lease_owner;
CREATE INDEX jobs_stale ON jobs (updated_at, id)
    WHERE status = 'planning' AND mode = 'managed';
