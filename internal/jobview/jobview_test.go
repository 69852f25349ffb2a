package jobview

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// AnswerFrom reads form content typed: an option by its exact value, a
// number as a number, an answer of one's own over the choice, a null or
// empty value left out (its default applies), and every other property
// as a field by its name, so that validation names an unknown one.
func TestAnswerFromReadsFormContentTyped(t *testing.T) {
	t.Parallel()
	two := 2.0
	q := askonce.Question{Text: "Before the deploy:", Fields: []askonce.QuestionField{
		{Name: "db", Type: askonce.QuestionSelectOne, Options: []string{"Postgres", "postgres"}, AllowOther: true, Required: true},
		{Name: "replicas", Type: askonce.QuestionNumber, Constraints: askonce.Constraints{Integer: true, Maximum: &two}},
		{Name: "notes", Type: askonce.QuestionFreeText},
	}}
	if err := q.Normalize(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		content map[string]any
		want    string // the validated answer's JSON, or the error's fields
	}{
		{"exact option and a number", map[string]any{"db": "postgres", "replicas": float64(2), "notes": nil}, `{"db":"postgres","replicas":2}`},
		{"own answer wins", map[string]any{"db": "Postgres", "db:other": "sqlite"}, `{"db":"sqlite"}`},
		{"own answer alone", map[string]any{"db:other": "sqlite", "notes": ""}, `{"db":"sqlite"}`},
		{"unknown names and wrong types", map[string]any{"db": "postgres", "replicas": true, "notes:other": "x", "bogus": 1}, "bogus notes:other replicas"},
		{"out of range", map[string]any{"db": "postgres", "replicas": float64(3)}, "replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := askonce.ValidateAnswer(&q, AnswerFrom(&q, tc.content))
			var got string
			if err != nil {
				var names []string
				for _, fe := range err.(*askonce.Error).Fields {
					names = append(names, fe.Name)
				}
				got = strings.Join(names, " ")
			} else {
				got = string(a.JSON())
			}
			if got != tc.want {
				t.Fatalf("got %s (%v); want %s", got, err, tc.want)
			}
		})
	}
}

// AnswerSchema types each property as MCP elicitation does, with its
// default as a value of its type.
func TestAnswerSchemaTypesEachProperty(t *testing.T) {
	t.Parallel()
	one := 1.0
	for _, tc := range []struct {
		q                askonce.Question
		typ, key, detail string
	}{
		{askonce.Question{Type: askonce.QuestionConfirm, Text: "Sure?", Default: "no"}, "boolean", "default", "false"},
		{askonce.Question{Type: askonce.QuestionNumber, Text: "How many?", Default: "3", Constraints: askonce.Constraints{Integer: true, Minimum: &one}}, "integer", "default", "3"},
		{askonce.Question{Type: askonce.QuestionFreeText, Text: "When?", Constraints: askonce.Constraints{Format: askonce.FormatDateTime}}, "string", "format", "date-time"},
		{askonce.Question{Type: askonce.QuestionSelectMany, Text: "Which?", Options: []string{"a", "b", "c"}, Constraints: askonce.Constraints{MinItems: 2}}, "array", "minItems", "2"},
	} {
		t.Run(string(tc.q.Type), func(t *testing.T) {
			q := tc.q
			if err := q.Normalize(); err != nil {
				t.Fatal(err)
			}
			p := AnswerSchema(&q)["properties"].(map[string]any)["answer"].(map[string]any)
			if p["type"] != tc.typ || stringOf(p[tc.key]) != tc.detail {
				t.Fatalf("property %v; want type %s with %s %s", p, tc.typ, tc.key, tc.detail)
			}
		})
	}
}

// stringOf is v as JSON, a string without its quotes.
func stringOf(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}
