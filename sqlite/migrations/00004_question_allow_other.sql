-- Issue 8: a SELECT_ONE question may allow an answer outside its options
-- (askonce.Question.AllowOther). 0 for every question asked before.
--
-- Numbered after the migrations that rebuild the jobs table, so that a
-- rebuild with an explicit column list never drops this column.

-- +goose Up
ALTER TABLE jobs ADD COLUMN clarification_allow_other INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE jobs DROP COLUMN clarification_allow_other;
