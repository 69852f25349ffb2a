-- Issue 37: an answer is typed (askonce.Answer), kept as JSON with each
-- value's kind in clarification_value (askonce.Answer.Encode). An answer
-- stored before as text moves there as {"old": text}, which reads back
-- typed against its question (askonce.OldAnswer), and
-- clarification_answer goes. A question's constraints (bounds, formats,
-- option titles) ride in clarification_fields, which is now always an
-- object (the arrays of fields stored before become {"fields": [...]}).

-- +goose Up
UPDATE jobs SET clarification_fields = jsonb_build_object('fields', clarification_fields)
    WHERE jsonb_typeof(clarification_fields) = 'array';
ALTER TABLE jobs ADD COLUMN clarification_value jsonb;
UPDATE jobs SET clarification_value = jsonb_build_object('old', clarification_answer)
    WHERE clarification_answer IS NOT NULL;
ALTER TABLE jobs DROP COLUMN clarification_answer;

-- +goose Down
UPDATE jobs SET clarification_fields = clarification_fields -> 'fields'
    WHERE NOT clarification_fields ? 'filled' AND NOT clarification_fields ? 'constraints'
      AND jsonb_typeof(clarification_fields -> 'fields') = 'array';
ALTER TABLE jobs ADD COLUMN clarification_answer text;
UPDATE jobs SET clarification_answer = clarification_value ->> 'old'
    WHERE clarification_value ? 'old';
ALTER TABLE jobs DROP COLUMN clarification_value;
