package postgres

import (
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/jackc/pgx/v5/pgxpool"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/storetest"
)

// An answer stored before answers were typed, as text, which the
// migration to typed answers moved into clarification_value as {"old":
// text}, reads back typed against its question: an option as the
// option, a yes as true, the object of a question with fields as each
// field's value; text that no longer fits its question as text.
func TestAnswersStoredAsTextReadTyped(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{})
	fields := askonce.Question{Text: "Deploy:", Fields: []askonce.QuestionField{
		{Name: "environment", Type: askonce.QuestionSelectOne, Options: []string{"staging", "production"}},
		{Name: "migrate", Type: askonce.QuestionConfirm},
		{Name: "replicas", Type: askonce.QuestionFreeText},
	}}
	for _, c := range []struct {
		name string
		q    askonce.Question
		old  string
		want string
	}{
		{"Option", askonce.Question{Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}, "frozen", `"frozen"`},
		{"Yes", askonce.Question{Type: askonce.QuestionConfirm, Text: "Delete?"}, "yes", `true`},
		{"Fields", fields, `{"environment":"production","replicas":"3","migrate":"no"}`, `{"environment":"production","migrate":false,"replicas":"3"}`},
		{"TextNoLongerValid", askonce.Question{Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}, "tepid", `"tepid"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := storetest.NewJob(storetest.NewTenant())
			if err := s.CreateJob(t.Context(), &askonce.Change{Job: j}); err != nil {
				t.Fatal(err)
			}
			q := c.q
			if err := q.Normalize(); err != nil {
				t.Fatal(err)
			}
			next, fx, err := askonce.Step(j, askonce.Asked{Question: q}, storetest.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateJob(t.Context(), &askonce.Change{Job: next, Events: fx.Events}); err != nil {
				t.Fatal(err)
			}
			j = next
			if _, err := s.pool.Exec(t.Context(), `UPDATE jobs SET clarification_value = jsonb_build_object('old', $1::text), clarification_status = 'answered', status = 'planning' WHERE id = $2`, c.old, j.ID); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetJob(t.Context(), j.TenantID, j.ID)
			if err != nil || string(got.Answer.JSON()) != c.want {
				t.Fatalf("old answer %q read back %s, %v; want %s", c.old, got.Answer.JSON(), err, c.want)
			}
		})
	}
}

// The migration to typed answers moves an answer stored as text, which
// then reads back typed: the option itself.
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
	if _, err := pool.Exec(ctx, `UPDATE jobs SET status = 'success', clarification_status = 'answered', clarification_answer = 'frozen' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open (migrate from 9): %v", err)
	}
	defer s.Close()
	j, err := s.GetJob(ctx, "acme", id)
	if err != nil || !j.Answer.Equal(askonce.AnswerOf(askonce.OptionValue("frozen"))) {
		t.Fatalf("answer after the migration %+v, %v; want the option frozen", j.Answer, err)
	}
}
