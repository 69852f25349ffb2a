-- Issue 37: an answer is typed (askonce.Answer), kept as JSON with each
-- value's kind in clarification_value (askonce.Answer.Encode). An answer
-- stored before as text moves there as {"old": text}, which reads back
-- typed against its question (askonce.OldAnswer), and
-- clarification_answer goes. A question's constraints (bounds, formats,
-- option titles) ride in clarification_fields, which is now always an
-- object (the arrays of fields stored before become {"fields": [...]}).

-- +goose Up
UPDATE jobs SET clarification_fields = json_object('fields', json(clarification_fields))
    WHERE json_type(clarification_fields) = 'array';
ALTER TABLE jobs ADD COLUMN clarification_value TEXT;
UPDATE jobs SET clarification_value = json_object('old', clarification_answer)
    WHERE clarification_answer IS NOT NULL;
ALTER TABLE jobs DROP COLUMN clarification_answer;

-- +goose Down
UPDATE jobs SET clarification_fields = json_extract(clarification_fields, '$.fields')
    WHERE json_extract(clarification_fields, '$.filled') IS NULL AND json_extract(clarification_fields, '$.constraints') IS NULL
      AND json_type(clarification_fields, '$.fields') = 'array';
ALTER TABLE jobs ADD COLUMN clarification_answer TEXT;
UPDATE jobs SET clarification_answer = json_extract(clarification_value, '$.old')
    WHERE json_extract(clarification_value, '$.old') IS NOT NULL;
ALTER TABLE jobs DROP COLUMN clarification_value;
