-- Issue 37: an answer is typed (askonce.Answer), kept as JSON with each
-- value's kind in clarification_value; clarification_answer keeps the
-- text of the answers stored before, read by askonce.OldAnswer. A
-- question's constraints (bounds, formats, option titles) are JSON in
-- clarification_constraints, NULL for a question without.

-- +goose Up
ALTER TABLE jobs ADD COLUMN clarification_value jsonb;
ALTER TABLE jobs ADD COLUMN clarification_constraints jsonb;

-- +goose Down
ALTER TABLE jobs DROP COLUMN clarification_constraints;
ALTER TABLE jobs DROP COLUMN clarification_value;
