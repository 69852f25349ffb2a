package sqlite

import (
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
			j = step(t, s, j, askonce.Asked{Question: q})
			if _, err := s.writer.ExecContext(t.Context(), `UPDATE jobs SET clarification_value = json_object('old', ?), clarification_status = 'answered', status = 'planning' WHERE id = ?`, c.old, j.ID); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetJob(t.Context(), j.TenantID, j.ID)
			if err != nil || string(got.Answer.JSON()) != c.want {
				t.Fatalf("old answer %q read back %s, %v; want %s", c.old, got.Answer.JSON(), err, c.want)
			}
		})
	}
}
