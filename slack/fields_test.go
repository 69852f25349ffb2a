package slack

import (
	"encoding/json"
	"strings"
	"testing"

	slackapi "github.com/slack-go/slack"

	"github.com/askonce/askonce"
)

// A NUMBER or SELECT_MANY question without fields gets the modal button,
// and its modal the input of its type; what the person enters there
// arrives typed: the number as a number, the picks as the options they
// are by index (options differing only in case stay apart), a date as
// text; a pick past the options is refused.
func TestPlainTypedQuestionsHaveTheirInputAndArriveTyped(t *testing.T) {
	t.Parallel()
	one, ten := 1.0, 10.0
	number := askonce.Question{Type: askonce.QuestionNumber, Text: "How many?", Constraints: askonce.Constraints{Integer: true, Minimum: &one, Maximum: &ten}}
	many := askonce.Question{Type: askonce.QuestionSelectMany, Text: "Which?", Options: []string{"Postgres", "postgres", "mysql"}, Constraints: askonce.Constraints{MaxItems: 2}}
	date := askonce.Question{Type: askonce.QuestionFreeText, Text: "From when?", Constraints: askonce.Constraints{Format: askonce.FormatDate}}
	for _, tc := range []struct {
		q      askonce.Question
		button string
		input  []string
		in     slackapi.BlockAction
		want   askonce.Value
	}{
		{number, "Answer…", []string{`"type":"number_input","is_decimal_allowed":false`, `"min_value":"1","max_value":"10"`},
			slackapi.BlockAction{Type: "number_input", Value: "3"}, askonce.NumberValue("3")},
		{many, "Choose…", []string{`"type":"multi_static_select"`, `"max_selected_items":2`, `"value":"o:1"`},
			slackapi.BlockAction{Type: "multi_static_select", SelectedOptions: []slackapi.OptionBlockObject{{Value: "o:1"}, {Value: "o:0"}}}, askonce.OptionsValue("postgres", "Postgres")},
		{date, "Answer…", []string{`"type":"datepicker"`},
			slackapi.BlockAction{Type: "datepicker", SelectedDate: "2026-12-01"}, askonce.TextValue("2026-12-01")},
	} {
		t.Run(string(tc.q.Type), func(t *testing.T) {
			q := tc.q
			if err := q.Normalize(); err != nil {
				t.Fatal(err)
			}
			j := &askonce.Job{ID: "j1", TenantID: "t", Goal: "g", Status: askonce.StatusPending, Question: &q}
			msg, _ := json.Marshal(QuestionBlocks(j, ""))
			if !strings.Contains(string(msg), `"action_id":"modal"`) || !strings.Contains(string(msg), tc.button) {
				t.Errorf("the message has no %s button: %s", tc.button, msg)
			}
			view, _ := json.Marshal(modal(j, false))
			for _, want := range tc.input {
				if !strings.Contains(string(view), want) {
					t.Errorf("the modal has no %s: %s", want, view)
				}
			}
			got, err := inputValue(&q, tc.in, slackapi.BlockAction{})
			if err != nil || !got.Equal(tc.want) {
				t.Fatalf("value %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if _, err := inputValue(&many, slackapi.BlockAction{SelectedOptions: []slackapi.OptionBlockObject{{Value: "o:7"}}}, slackapi.BlockAction{}); err == nil {
		t.Fatal("a pick past the options was taken")
	}
}
