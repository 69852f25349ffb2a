package postgres

import (
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/storetest"
	"github.com/jackc/pgx/v5/pgxpool"
)

// An answer stored before answers were typed, as text, reads back typed
// against its question (storetest.RunOldTextAnswers).
func TestAnswersStoredAsTextReadTyped(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	storetest.RunOldTextAnswers(t, s, func(t *testing.T, id, old string) {
		if _, err := s.pool.Exec(t.Context(), `UPDATE jobs SET clarification_value = jsonb_build_object('old', $1::text), clarification_status = 'answered', status = 'planning' WHERE id = $2`, old, id); err != nil {
			t.Fatal(err)
		}
	})
}

// The migration to typed answers keeps a question with fields stored as
// an array and moves its answer stored as text, which then reads back
// typed: the option itself, a boolean.
func TestMigrationToTypedAnswersKeepsTheTextAnswers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Schema(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := migrateTo(ctx, pool, 9); err != nil {
		t.Fatal(err)
	}
	const id = "01a20000-0000-7000-8000-0000000000aa"
	if _, err := pool.Exec(ctx, version1Rows); err != nil {
		t.Fatal(err)
	}
	// A question with fields as version 9 kept it: an array of fields,
	// and its answer the JSON object of each field's text.
	if _, err := pool.Exec(ctx, `UPDATE jobs SET status = 'success', clarification_status = 'answered', clarification_type = 'FREE_TEXT',
		clarification_fields = '[{"name":"environment","type":"SELECT_ONE","text":"Which?","options":["staging","production"]},{"name":"migrate","type":"CONFIRM","text":"Migrate?","options":["yes","no"]}]',
		clarification_answer = '{"environment":"production","migrate":"no"}' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open (migrate from 9): %v", err)
	}
	defer s.Close()
	j, err := s.GetJob(ctx, "acme", id)
	if err != nil || len(j.Question.Fields) != 2 || string(j.Answer.JSON()) != `{"environment":"production","migrate":false}` ||
		!j.Answer.Equal(askonce.FieldsAnswer(askonce.FieldValue{Name: "environment", Value: askonce.OptionValue("production")},
			askonce.FieldValue{Name: "migrate", Value: askonce.BoolValue(false)})) {
		t.Fatalf("after the migration: fields %+v answer %s, %v; want both fields, the answer typed", j.Question, j.Answer.JSON(), err)
	}
}
