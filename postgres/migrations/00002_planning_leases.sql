-- Planning leases, so that replicas take over the planning jobs of one
-- that died (docs/protocol.md rule 13; askonce.Lease), and the leaders
-- table of the work that runs once across replicas (askonce.Store.Lead).
--
-- A managed job in planning carries the owner of its lease and when the
-- lease lapses; none is '' and the zero time (0001-01-01, what Go's zero
-- time.Time is stored as). Jobs left in planning before this migration
-- have none, so the first sweep takes them over. The index serves
-- LapsedLeases and, being partial, holds only jobs in planning.

-- +goose Up
ALTER TABLE jobs
    ADD COLUMN lease_owner text        NOT NULL DEFAULT '',
    ADD COLUMN lease_until timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00';
DROP INDEX jobs_stale;
CREATE INDEX jobs_lease ON jobs (lease_until, id)
    WHERE status = 'planning' AND mode = 'managed';

CREATE TABLE leaders (
    name  text        NOT NULL PRIMARY KEY,
    owner text        NOT NULL,
    until timestamptz NOT NULL
);

-- +goose Down
DROP TABLE leaders;
DROP INDEX jobs_lease;
ALTER TABLE jobs DROP COLUMN lease_until, DROP COLUMN lease_owner;
CREATE INDEX jobs_stale ON jobs (updated_at, id)
    WHERE status = 'planning' AND mode = 'managed';
