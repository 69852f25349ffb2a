-- Issue 20: a job may carry candidates, the names of the things besides
-- files its goal may refer to (askonce.Job.Candidates). Like the files
-- they are given at creation and never change, so they are kept in the
-- job's kind 0 record of job_log, written once, not in the jobs row that
-- every transition rewrites (up to 1,000 names of 256 bytes would make
-- each transition rewrite overflow pages).
--
-- They take a column of their own, the last one, used by the kind 0
-- record alone: a JSON array, NULL when none. Every record pays its
-- header byte (SQLite writes one per column, trailing NULLs included),
-- about five bytes a job; packing them into the files' column instead
-- would give that column two formats to tell apart.

-- +goose Up
ALTER TABLE job_log ADD COLUMN candidates TEXT;

-- +goose Down
ALTER TABLE job_log DROP COLUMN candidates;
