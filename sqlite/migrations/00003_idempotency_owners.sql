-- Idempotency-Key claims belong to a live process (server.IdempotencyStore).

-- +goose Up

-- owner is the lease of the process whose request holds an in-flight
-- claim ('' once abandoned, and for claims made before this migration:
-- they belong to no one). job_id and base_version name the job the
-- request is about and its version when the key was claimed (0: none
-- yet), so that a retry that takes the claim over can tell whether the
-- first request changed it.
ALTER TABLE idempotency ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency ADD COLUMN job_id TEXT NOT NULL DEFAULT '';
ALTER TABLE idempotency ADD COLUMN base_version INTEGER NOT NULL DEFAULT 0;

-- idempotency_leases holds one row per live process that claims keys: it
-- is alive until expires_at (unix nanoseconds). An owner without a row,
-- or whose row has expired, is dead.
CREATE TABLE idempotency_leases (
    owner      TEXT    NOT NULL PRIMARY KEY,
    expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- +goose Down
DROP TABLE idempotency_leases;
ALTER TABLE idempotency DROP COLUMN base_version;
ALTER TABLE idempotency DROP COLUMN job_id;
ALTER TABLE idempotency DROP COLUMN owner;
