package terminal

import (
	"bytes"
	"context"
	"encoding/json"
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
	var got map[string]string
	if err := json.Unmarshal([]byte(a), &got); err != nil || len(got) != 3 || got["environment"] != "production" || got["migrate"] != "yes" || got["owner"] != "Priya" {
		t.Fatalf("answer %s, %v", a, err)
	}
	typed, err := askonce.ParseAnswerJSON([]byte(a))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := askonce.ValidateAnswer(&q, typed); err != nil || string(v.JSON()) != `{"environment":"production","migrate":true,"owner":"Priya","replicas":"2"}` {
		t.Fatalf("the server reads %s, %v", v.JSON(), err)
	}
	for _, want := range []string{"type an answer", "Which environment?", "Run the migrations?", "Who owns it?", "How many replicas?"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the form does not show %q:\n%s", want, out.String())
		}
	}
}

// The answer of a question with fields, stored as one JSON object, is
// printed as the resolved prompt's "name: value" lines joined by "; ";
// a plain answer as it is.
func TestResultShowsAnAnswerWithFieldsAsNameValuePairs(t *testing.T) {
	j := &client.JobView{ClarificationAnswer: `{"migrate":"yes","environment":"staging"}`,
		ResolvedPrompt: "deploy the api\n\nClarification Answer: environment: staging\nmigrate: yes"}
	if got, want := answerText(j), "environment: staging; migrate: yes"; got != want {
		t.Errorf("answerText = %q, want %q", got, want)
	}
	plain := &client.JobView{ClarificationAnswer: "hot", ResolvedPrompt: "hot frozen cheese\n\nClarification Answer: hot"}
	if got := answerText(plain); got != "hot" {
		t.Errorf("answerText of a plain answer = %q, want hot", got)
	}
}
