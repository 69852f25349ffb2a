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
