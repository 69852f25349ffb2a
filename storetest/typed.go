package storetest

import (
	"testing"

	"github.com/askonce/askonce"
	"pgregory.net/rapid"
)

// typedTests are the typed answers' round trip through a store.
var typedTests = []test{
	{"AnyTypedAnswerReadsBackTheSame", func(t *testing.T, s askonce.Store) {
		tenant := NewTenant()
		rapid.Check(t, func(rt *rapid.T) {
			q, v := typedQuestion(rt)
			a, err := askonce.ValidateAnswer(&q, askonce.AnswerOf(v))
			if err != nil {
				rt.Fatalf("drew an answer %+v the question %+v does not take: %v", v, q, err)
			}
			j := create(t, s, NewJob(tenant))
			next := j.Clone()
			next.Status, next.ClarificationStatus, next.Question = askonce.StatusPlanning, askonce.ClarificationAnswered, &q
			next.Answer, next.AnswerSource = a, askonce.SourceUser
			update(t, s, &askonce.Change{Job: next})
			got := get(t, s, tenant, j.ID)
			if !got.Answer.Equal(a) || string(got.Answer.JSON()) != string(a.JSON()) || got.AnswerText() != a.String() {
				rt.Fatalf("answer %s (%q) read back %s (%q)", a.JSON(), a.String(), got.Answer.JSON(), got.AnswerText())
			}
		})
	}},
}

// typedQuestion draws a normalised question and a value it takes.
func typedQuestion(t *rapid.T) (askonce.Question, askonce.Value) {
	opts := rapid.SliceOfNDistinct(rapid.StringMatching(`[A-Za-zé][A-Za-z ,"\\]{0,5}[a-z]`), 2, 4, func(s string) string { return s }).Draw(t, "options")
	q := askonce.Question{Text: "Which?", Type: rapid.SampledFrom(askonce.QuestionTypes).Draw(t, "type"), Options: opts}
	switch q.Type {
	case askonce.QuestionNumber:
		q.Integer = rapid.Bool().Draw(t, "integer")
	case askonce.QuestionTargetFile:
		q.Options = []string{"a.go", "docs/ノート.md"}
	}
	if err := q.Normalize(); err != nil {
		t.Fatalf("normalize %+v: %v", q, err)
	}
	switch q.Type {
	case askonce.QuestionConfirm:
		return q, askonce.BoolValue(rapid.Bool().Draw(t, "yes"))
	case askonce.QuestionSelectOne:
		return q, askonce.OptionValue(rapid.SampledFrom(q.Options).Draw(t, "pick"))
	case askonce.QuestionSelectMany:
		picks := rapid.Permutation(q.Options).Draw(t, "picks")
		return q, askonce.OptionsValue(picks[:rapid.IntRange(1, len(picks)).Draw(t, "n")]...)
	case askonce.QuestionNumber:
		if q.Integer {
			return q, askonce.IntValue(rapid.Int64().Draw(t, "n"))
		}
		return q, askonce.FloatValue(rapid.Float64Range(-1e300, 1e300).Draw(t, "x"))
	case askonce.QuestionTargetFile:
		return q, askonce.PathValue(rapid.SampledFrom([]string{"a.go", "docs/ノート.md", "src/new file.go"}).Draw(t, "path"))
	}
	return q, askonce.TextValue(rapid.StringMatching(`[\p{L}\p{N}"\\<&][\p{L}\p{N}\p{P} ]{0,30}`).Draw(t, "text"))
}

// RunOldTextAnswers checks that an answer stored before answers were
// typed, as text, reads back typed against its question: an option as
// the option, a yes as true, the object of a question with fields as
// each field's value; text that no longer fits its question as text.
// The migration to typed answers moved such an answer into the store's
// clarification_value as {"old": text}; storeOld writes it that way
// (raw SQL, as only the store's own package can) for the job jobID,
// marking the question answered.
func RunOldTextAnswers(t *testing.T, s askonce.Store, storeOld func(t *testing.T, jobID, old string)) {
	fields := askonce.Question{Text: "Deploy:", Fields: []askonce.QuestionField{
		{Name: "environment", Type: askonce.QuestionSelectOne, Options: []string{"staging", "production"}},
		{Name: "migrate", Type: askonce.QuestionConfirm},
		{Name: "replicas", Type: askonce.QuestionFreeText},
	}}
	hotOrFrozen := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Hot or frozen?", Options: []string{"hot", "frozen"}}
	for _, c := range []struct {
		name string
		q    askonce.Question
		old  string
		want string
	}{
		{"Option", hotOrFrozen, "frozen", `"frozen"`},
		{"Yes", askonce.Question{Type: askonce.QuestionConfirm, Text: "Delete?"}, "yes", `true`},
		{"Fields", fields, `{"environment":"production","replicas":"3","migrate":"no"}`, `{"environment":"production","migrate":false,"replicas":"3"}`},
		{"TextNoLongerValid", hotOrFrozen, "tepid", `"tepid"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := create(t, s, NewJob(NewTenant()))
			q := c.q
			if err := q.Normalize(); err != nil {
				t.Fatal(err)
			}
			next, fx, err := askonce.Step(j, askonce.Asked{Question: q}, Now())
			if err != nil {
				t.Fatal(err)
			}
			update(t, s, &askonce.Change{Job: next, Events: fx.Events})
			storeOld(t, j.ID, c.old)
			got, err := s.GetJob(t.Context(), j.TenantID, j.ID)
			if err != nil || string(got.Answer.JSON()) != c.want {
				t.Fatalf("old answer %q read back %s, %v; want %s", c.old, got.Answer.JSON(), err, c.want)
			}
		})
	}
}
