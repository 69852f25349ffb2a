package rules

import (
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// A specSchema property is asked as the field its type makes, with its
// constraints and in the schema's words: a bounded integer is a NUMBER,
// an enum a SELECT_ONE, an array of an enum a SELECT_MANY, a boolean a
// CONFIRM, a string with a format FREE_TEXT of that format.
func TestSpecSchemaPropertyIsAskedAsItsTypedField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, property string
		check          func(q *askonce.Question) bool
	}{
		{"BoundedIntegerIsANumber", `{"type":"integer","minimum":1,"maximum":10}`, func(q *askonce.Question) bool {
			return q.Type == askonce.QuestionNumber && q.Integer && *q.Minimum == 1 && *q.Maximum == 10
		}},
		{"NumberIsANumber", `{"type":"number","maximum":2.5}`, func(q *askonce.Question) bool {
			return q.Type == askonce.QuestionNumber && !q.Integer && q.Minimum == nil && *q.Maximum == 2.5
		}},
		{"EnumIsSelectOne", `{"enum":["Postgres","postgres"]}`, func(q *askonce.Question) bool {
			return q.Type == askonce.QuestionSelectOne && len(q.Options) == 2
		}},
		{"ArrayOfEnumIsSelectMany", `{"type":"array","items":{"enum":["eu","us","ap"]},"minItems":1,"maxItems":2}`, func(q *askonce.Question) bool {
			return q.Type == askonce.QuestionSelectMany && len(q.Options) == 3 && q.MinItems == 1 && q.MaxItems == 2
		}},
		{"BooleanIsConfirm", `{"type":"boolean"}`, func(q *askonce.Question) bool { return q.Type == askonce.QuestionConfirm }},
		{"EmailIsTextOfThatFormat", `{"type":"string","format":"email","maxLength":40}`, func(q *askonce.Question) bool {
			return q.Type == askonce.QuestionFreeText && q.Format == askonce.FormatEmail && q.MaxLength == 40
		}},
		{"DateIsTextOfThatFormat", `{"type":"string","format":"date"}`, func(q *askonce.Question) bool {
			return q.Type == askonce.QuestionFreeText && q.Format == askonce.FormatDate
		}},
		{"TheTitleIsTheQuestion", `{"type":"string","title":"Who will own the service?","description":"a person"}`, func(q *askonce.Question) bool {
			return q.Text == "Who will own the service?"
		}},
		{"ElseTheDescription", `{"type":"string","description":"The person who owns it"}`, func(q *askonce.Question) bool {
			return q.Text == "The person who owns it"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			schema := `{"type":"object","required":["thing"],"properties":{"thing":` + c.property + `}}`
			o := interpretSchema(t, schema, "do the job", "", "")
			if o.Question == nil || !c.check(o.Question) {
				t.Fatalf("question %+v", o.Question)
			}
		})
	}
}

// The goal fills a field only with what it states whole: a part of a
// name, one of two environments it names, or a number out of the
// schema's bounds is asked instead.
func TestSpecSchemaGoalFillsAFieldOnlyWithAWholeValue(t *testing.T) {
	t.Parallel()
	replicas := `{"type":"object","required":["replicas"],"properties":{"replicas":{"type":"integer","minimum":1,"maximum":10}}}`
	for _, c := range []struct {
		name, schema, goal, asked string
	}{
		{"PartOfANameIsNoOwner", deploySchema, "ship the release to staging, dry run, and Dana Lee owns it", "owner"},
		{"TwoEnvironmentsInTurnAreAsked", deploySchema, "ship the release to staging first, then to production, dry run, owner Priya", "environment"},
		{"ANumberOutOfBoundsIsAsked", replicas, "scale the web service to 500 replicas", "replicas"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := interpretSchema(t, c.schema, c.goal, "", "")
			if o.Question == nil {
				t.Fatalf("plan %s; want %s asked", o.Plan.Spec, c.asked)
			}
		})
	}
	o := interpretSchema(t, replicas, "scale the web service to 4 replicas", "", "")
	if o.Plan == nil || string(o.Plan.Spec) == "" || !strings.Contains(string(o.Plan.Spec), `"replicas":4`) {
		t.Fatalf("in bounds: %+v; want a plan with replicas 4", o)
	}
}
