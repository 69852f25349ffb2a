-- Issue 34: a question may carry up to five named fields
-- (askonce.Question.Fields). They are state like the rest of the
-- question: a column of jobs, JSON, NULL for a question without fields
-- (and for every question asked before).

-- +goose Up
ALTER TABLE jobs ADD COLUMN clarification_fields TEXT;

-- +goose Down
ALTER TABLE jobs DROP COLUMN clarification_fields;
