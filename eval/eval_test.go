package eval

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

// askonce eval called as a function, with buffers for stdout and stderr
// and the embedded rules interpreter: no process. cmd/askonce's tests run
// the hand-counted fixture, the plug-in and Ctrl-C through the binary.

// set is two labelled goals the rules interpreter gets right: it asks on
// the contradiction (the expected question) and plans the clear goal.
const set = `# two items
{"id":"contradiction","goal":"hot frozen cheese","label":"ask","expect":{"type":"SELECT_ONE","options":["hot","frozen"]}}
{"id":"plain","goal":"write the README then add tests","label":"clear"}
`

func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	code = Run(t.Context(), rulesOnly, args, func(string) string { return "" }, &out, &errs)
	return out.String(), errs.String(), code
}

// rulesOnly is the rules interpreter whatever --interpreter says: the
// program's wiring (cmd/askonce) builds the others.
func rulesOnly(string, string, func(string) string) (askonce.Interpreter, error) {
	return rules.New(rules.Options{})
}

func writeSet(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "set.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRun(t *testing.T) {
	t.Run("MeasuresTheSetAndWritesTheReport", func(t *testing.T) {
		report := filepath.Join(t.TempDir(), "r.md")
		out, errs, code := run(t, "--json", "--report", report, "--min-precision", "1", "--max-asks-on-clear", "0", writeSet(t, set))
		if code != exitOK {
			t.Fatalf("exit %d\n%s", code, errs)
		}
		var got struct {
			Summary map[string]any `json:"summary"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("--json: %v\n%s", err, out)
		}
		for k, w := range map[string]any{"items": 2.0, "clear": 1.0, "ask": 1.0, "asksOnAsk": 1.0, "asksOnClear": 0.0,
			"rightQuestions": 1.0, "precision": 1.0, "recall": 1.0} {
			if got.Summary[k] != w {
				t.Errorf("summary %s = %v, want %v", k, got.Summary[k], w)
			}
		}
		if !strings.Contains(errs, "2/2 items") {
			t.Errorf("the text summary (stderr with --json) lacks the item count:\n%s", errs)
		}
		md, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(md), "### contradiction (ask, en)") {
			t.Errorf("report lacks the asked item:\n%s", md)
		}
	})
	t.Run("AMissedThresholdExitsOne", func(t *testing.T) {
		_, errs, code := run(t, "--max-asks-on-clear", "0", writeSet(t, set+`{"goal":"hot frozen cheese","label":"clear"}`+"\n"))
		if code != exitError || !strings.Contains(errs, "asks on clear items 50.0% is above --max-asks-on-clear 0.0%") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
	t.Run("ABadLineIsAUsageErrorNamingFileAndLine", func(t *testing.T) {
		path := writeSet(t, set+`{"goal":"x","label":"maybe"}`+"\n")
		_, errs, code := run(t, path)
		if code != exitUsage || !strings.Contains(errs, path+":4: ") || !strings.Contains(errs, `"label" is "maybe"`) {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
	t.Run("NoFileIsAUsageError", func(t *testing.T) {
		_, errs, code := run(t)
		if code != exitUsage || !strings.Contains(errs, "no labelled file given") {
			t.Errorf("exit %d, stderr %q", code, errs)
		}
	})
}

// A question with fields is one ask, and the right question when one of
// its fields has the expected type and options.
func TestEvalQuestionWithFieldsIsRightWhenOneFieldIs(t *testing.T) {
	t.Parallel()
	q := &askonce.Question{Type: askonce.QuestionFreeText, Fields: []askonce.QuestionField{
		{Name: "environment", Type: askonce.QuestionSelectOne, Options: []string{"staging", "production"}},
		{Name: "dry_run", Type: askonce.QuestionConfirm, Options: []string{"yes", "no"}},
	}}
	for _, tc := range []struct {
		expect evalExpect
		right  bool
	}{
		{evalExpect{Type: askonce.QuestionSelectOne, Options: []string{"Production", "staging"}}, true},
		{evalExpect{Type: askonce.QuestionConfirm}, true},
		{evalExpect{Type: askonce.QuestionSelectOne, Options: []string{"staging", "qa"}}, false},
		{evalExpect{Type: askonce.QuestionFreeText}, false},
	} {
		if got := tc.expect.matches(q); got != tc.right {
			t.Errorf("expect %+v: matches %v, want %v", tc.expect, got, tc.right)
		}
	}
}
