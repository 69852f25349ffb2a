-- Issue 20: a job may carry candidates, the names of the things besides
-- files its goal may refer to (askonce.Job.Candidates). They are given at
-- creation and never change, so they live beside the files in
-- jobs_static, not in the row every transition rewrites. NULL when none.

-- +goose Up
ALTER TABLE jobs_static ADD COLUMN candidates text[];

-- +goose Down
ALTER TABLE jobs_static DROP COLUMN candidates;
