package terminal

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

// lines gives its lines one Read at a time, as a person types them: huh's
// line-by-line mode reads each answer with a scanner of its own.
type lines struct{ rest []string }

func (l *lines) Read(p []byte) (int, error) {
	if len(l.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p, l.rest[0]+"\n")
	l.rest = l.rest[1:]
	return n, nil
}

// A question with fields is one form with a group per field, answered
// with one object of the fields' values: a choice, yes or no, text of
// one's own, and an optional field left out (its default applies on the
// server).
func TestFieldsPickerAsksEachFieldInOneFormAndAnswersWithAnObject(t *testing.T) {
	t.Parallel()
	q := askonce.Question{Text: "Before the deploy:", Fields: []askonce.QuestionField{
		{Name: "environment", Type: askonce.QuestionSelectOne, Text: "Which environment?", Options: []string{"staging", "production"}, Required: true},
		{Name: "migrate", Type: askonce.QuestionConfirm, Text: "Run the migrations?", Required: true},
		{Name: "owner", Type: askonce.QuestionFreeText, Text: "Who owns it?", Required: true},
		{Name: "replicas", Type: askonce.QuestionFreeText, Text: "How many replicas?", Default: "2"},
	}}
	if err := q.Normalize(); err != nil {
		t.Fatal(err)
	}
	j := &client.JobView{JobID: "j1", ClarificationQuestion: q.Text, ClarificationType: q.Type, ClarificationFields: q.Fields}
	var out bytes.Buffer
	// production; yes; (an empty owner is refused, then) Priya; replicas left empty.
	a, err := fieldsPicker(context.Background(), j, &lines{[]string{"2", "y", "", "Priya", ""}}, &out, true)
	if err != nil {
		t.Fatalf("picker: %v\n%s", err, out.String())
	}
	if v, err := askonce.ValidateAnswer(&q, a); err != nil || string(v.JSON()) != `{"environment":"production","migrate":true,"owner":"Priya","replicas":"2"}` {
		t.Fatalf("answer %s; the server reads %s, %v", a.JSON(), v.JSON(), err)
	}
	for _, want := range []string{"type an answer", "Which environment?", "Run the migrations?", "Who owns it?", "How many replicas?"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the form does not show %q:\n%s", want, out.String())
		}
	}
}

// The answer is shown as the API gives it for a person to read:
// "name: value; ..." for a question with fields, never parsed again.
func TestResultShowsTheAnswerAsAPersonReadsIt(t *testing.T) {
	j := &client.JobView{ClarificationAnswer: "environment: staging; migrate: yes", ClarificationValue: []byte(`{"environment":"staging","migrate":true}`)}
	if got, want := answerText(j), "environment: staging; migrate: yes"; got != want {
		t.Errorf("answerText = %q, want %q", got, want)
	}
}

// The form's inputs are typed: a number out of range is refused under its
// input and asked again, the second of two options that differ only in
// case is that option, and the answer carries the number as a number.
func TestFieldsPickerTypesEachFieldAndRefusesAnOutOfRangeNumber(t *testing.T) {
	t.Parallel()
	one, ten := 1.0, 10.0
	q := askonce.Question{Text: "Before the deploy:", Fields: []askonce.QuestionField{
		{Name: "replicas", Type: askonce.QuestionNumber, Text: "How many replicas?", Required: true, Constraints: askonce.Constraints{Integer: true, Minimum: &one, Maximum: &ten}},
		{Name: "db", Type: askonce.QuestionSelectOne, Text: "Which database?", Options: []string{"Postgres", "postgres"}, Required: true,
			Constraints: askonce.Constraints{OptionTitles: []string{"Postgres (managed)", "postgres (ours)"}}},
	}}
	if err := q.Normalize(); err != nil {
		t.Fatal(err)
	}
	j := &client.JobView{JobID: "j1", ClarificationQuestion: q.Text, ClarificationType: q.Type, ClarificationFields: q.Fields}
	var out bytes.Buffer
	a, err := fieldsPicker(context.Background(), j, &lines{[]string{"11", "3", "2"}}, &out, true)
	if err != nil {
		t.Fatalf("picker: %v\n%s", err, out.String())
	}
	want := askonce.FieldsAnswer(
		askonce.FieldValue{Name: "replicas", Value: askonce.IntValue(3)},
		askonce.FieldValue{Name: "db", Value: askonce.OptionValue("postgres")})
	if !a.Equal(want) {
		t.Fatalf("answer %s; want %s\n%s", a.JSON(), want.JSON(), out.String())
	}
	for _, s := range []string{"out of range", "postgres (ours)"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the form does not show %q:\n%s", s, out.String())
		}
	}
}
