package rules

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// deploySchema has three required fields: a choice, a boolean and a
// string.
const deploySchema = `{"type": "object", "required": ["environment", "dry_run", "owner"], "properties": {
	"environment": {"enum": ["staging", "production"]}, "dry_run": {"type": "boolean"}, "owner": {"type": "string"}}}`

// interpretSchema runs the rules interpreter on goal with schema and, when
// answer is set, the resolved prompt of that answer.
func interpretSchema(t *testing.T, schema, goal, answer, directive string) *askonce.Outcome {
	t.Helper()
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	prompt := goal
	if answer != "" {
		prompt = askonce.ResolvedPrompt(goal, answer)
	}
	res, err := in.Interpret(context.Background(), &askonce.Request{Goal: goal, Prompt: prompt, Directive: directive, SpecSchema: []byte(schema), Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res.Outcome
}

// Rule 14 with fields: the specSchema detector asks every open required
// field in one question, one field each, in the schema's order.
func TestSpecSchemaAsksEveryOpenRequiredFieldInOneQuestion(t *testing.T) {
	t.Parallel()
	o := interpretSchema(t, deploySchema, "ship the release", "", "")
	q := o.Question
	if q == nil || len(q.Fields) != 3 || q.Reason != "missing_required_info" {
		t.Fatalf("question %+v; want one with three fields", q)
	}
	want := []struct {
		name    string
		typ     askonce.QuestionType
		options []string
	}{{"environment", askonce.QuestionSelectOne, []string{"staging", "production"}}, {"dry_run", askonce.QuestionConfirm, []string{"yes", "no"}}, {"owner", askonce.QuestionFreeText, nil}}
	for i, w := range want {
		f := q.Fields[i]
		if f.Name != w.name || f.Type != w.typ || !slices.Equal(f.Options, w.options) || !f.Required {
			t.Fatalf("field %d %+v; want %s %s %q", i, f, w.name, w.typ, w.options)
		}
	}
	// A field the goal fills is not asked.
	if q := interpretSchema(t, deploySchema, "ship the release to production, owner: Priya", "", "").Question; q == nil || len(q.Fields) != 0 || q.Type != askonce.QuestionConfirm {
		t.Fatalf("one open field: %+v; want the plain CONFIRM question", q)
	}
}

// One open field keeps today's single-field question exactly.
func TestSpecSchemaOneOpenFieldIsAPlainQuestion(t *testing.T) {
	t.Parallel()
	q := interpretSchema(t, envSchema, "ship the release", "", "").Question
	if q == nil || q.Fields != nil || q.Type != askonce.QuestionSelectOne || !slices.Equal(q.Options, []string{"staging", "production"}) || !strings.Contains(q.Text, "“environment”") {
		t.Fatalf("question %+v", q)
	}
}

// The answer's name: value lines settle each field, and the plan's spec
// carries them; an answer that leaves a field unsettled asks again (the
// engine's hard cap applies); under a directive every field is assumed.
func TestSpecSchemaFieldsAnswerSettlesEachField(t *testing.T) {
	t.Parallel()
	q := interpretSchema(t, deploySchema, "ship the release", "", "").Question
	typed, err := askonce.ParseAnswerJSON([]byte(`{"environment":"prod","dry_run":"no","owner":"Priya Patel"}`))
	if err != nil {
		t.Fatal(err)
	}
	a, err := askonce.ValidateAnswer(q, typed)
	if err != nil {
		t.Fatal(err)
	}
	o := interpretSchema(t, deploySchema, "ship the release", a.Prompt(), "")
	if o.Plan == nil {
		t.Fatalf("answered: %+v; want a plan", o.Question)
	}
	var spec map[string]any
	if err := json.Unmarshal(o.Plan.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	if spec["environment"] != "production" || spec["dry_run"] != false || spec["owner"] != "Priya Patel" {
		t.Fatalf("spec %v", spec)
	}
	if o := interpretSchema(t, deploySchema, "ship the release", "environment: banana\ndry_run: no\nowner: Priya", ""); o.Question == nil || len(o.Question.Fields) != 3 {
		t.Fatalf("unsettling answer: %+v; want the question again", o)
	}
	o = interpretSchema(t, deploySchema, "ship the release", "", askonce.FallbackDirective)
	if o.Plan == nil || len(o.Plan.Assumptions) < 3 {
		t.Fatalf("directive: %+v; want a plan with the three assumptions", o)
	}
}
