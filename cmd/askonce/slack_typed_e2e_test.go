package main_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// The modal of a question of typed fields has Block Kit's input for each
// type (a number input with its bounds and no decimals for an integer, a
// select titled by the options' titles whose values are the options'
// indexes, a multi-select with max_selected_items, a date picker); an
// out-of-range number is an error under its own input and the job stays
// pending; a valid submission arrives typed: the number 3, the second of
// two options that differ only in case, the picks as a list, true.
func slackModalInputsAreTypedAndTheirValuesArriveTyped(t *testing.T) {
	t.Parallel()
	f := newFakeSlack(t)
	in := startWithSlack(t, f)
	id := gateJob(t, in, map[string]any{"text": "Before the deploy:", "fields": []any{
		map[string]any{"name": "replicas", "type": "NUMBER", "integer": true, "minimum": 1, "maximum": 10, "required": true},
		map[string]any{"name": "db", "type": "SELECT_ONE", "options": []string{"Postgres", "postgres"}, "optionTitles": []string{"Postgres (managed)", "postgres (ours)"}, "required": true},
		map[string]any{"name": "zones", "type": "SELECT_MANY", "options": []string{"eu", "us", "ap"}, "maxItems": 2},
		map[string]any{"name": "start", "type": "FREE_TEXT", "format": "date"},
		map[string]any{"name": "migrate", "type": "CONFIRM"},
	}})
	f.posted(t, id)
	if code, _ := interact(t, in, click("default", id, "U0ANN0001", "modal", ""), signedNow); code != 200 {
		t.Fatalf("modal click: %d", code)
	}
	var view string
	eventually(t, "views.open of the job", func() bool {
		opened := f.find("views.open", func(v url.Values) bool { return strings.Contains(v.Get("json"), `askonce|default|`+id) })
		if len(opened) == 1 {
			view = opened[0].form.Get("json")
		}
		return view != ""
	})
	for _, want := range []string{
		`"type":"number_input","is_decimal_allowed":false`, `"min_value":"1","max_value":"10"`,
		`"text":"postgres (ours)"`, `"value":"o:1"`,
		`"type":"multi_static_select"`, `"max_selected_items":2`,
		`"type":"datepicker"`,
	} {
		if !strings.Contains(view, want) {
			t.Errorf("the modal has no %s: %s", want, view)
		}
	}
	submit := func(replicas string) (int, []byte) {
		return interact(t, in, map[string]any{
			"type": "view_submission", "user": map[string]any{"id": "U0ANN0001"},
			"view": map[string]any{"callback_id": "askonce_answer", "private_metadata": "askonce|default|" + id,
				"state": map[string]any{"values": map[string]any{
					"field_0": map[string]any{"answer": map[string]any{"type": "number_input", "value": replicas}},
					"field_1": map[string]any{"answer": map[string]any{"type": "static_select", "selected_option": map[string]any{"value": "o:1"}}},
					"field_2": map[string]any{"answer": map[string]any{"type": "multi_static_select", "selected_options": []any{map[string]any{"value": "o:1"}, map[string]any{"value": "o:0"}}}},
					"field_3": map[string]any{"answer": map[string]any{"type": "datepicker", "selected_date": "2026-12-01"}},
					"field_4": map[string]any{"answer": map[string]any{"type": "static_select", "selected_option": map[string]any{"value": "o:0"}}},
				}}},
		}, signedNow)
	}
	code, raw := submit("11")
	var resp struct {
		Action string            `json:"response_action"`
		Errors map[string]string `json:"errors"`
	}
	if err := json.Unmarshal(raw, &resp); code != 200 || err != nil || resp.Action != "errors" || !strings.Contains(resp.Errors["field_0"], "out of range") || len(resp.Errors) != 1 {
		t.Fatalf("11 replicas: %d %s; want the error under field_0 only", code, raw)
	}
	if j := in.do("GET", "/jobs/"+id, nil); str(j.body, "status") != "pending" {
		t.Fatalf("after an out-of-range number the job is %s; want pending", str(j.body, "status"))
	}
	if code, raw := submit("3"); code != 200 || len(strings.TrimSpace(string(raw))) != 0 {
		t.Fatalf("valid answer: %d %s; want 200 with no body", code, raw)
	}
	j := in.do("GET", "/jobs/"+id, nil)
	var value struct {
		ClarificationValue json.RawMessage `json:"clarificationValue"`
	}
	if err := json.Unmarshal(j.raw, &value); err != nil {
		t.Fatal(err)
	}
	if want := `{"replicas":3,"db":"postgres","zones":["eu","us"],"start":"2026-12-01","migrate":true}`; string(value.ClarificationValue) != want {
		t.Fatalf("clarificationValue %s; want %s", value.ClarificationValue, want)
	}
}
