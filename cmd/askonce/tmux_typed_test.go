package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// typedPlugin asks a NUMBER question (a whole number from 1 to 10) for a
// goal with "replicas", else a SELECT_MANY of two options that differ
// only in case, titled, and plans one task named after the answer.
const typedPlugin = `import json, sys
req = json.load(sys.stdin)
marker = "\n\nClarification Answer: "
if marker in req["prompt"]:
    answer = req["prompt"].rsplit(marker, 1)[1]
    print(json.dumps({"title": "Typed", "plan": {"tasks": [{"id": "t1", "title": "use " + answer}]}}))
elif "replicas" in req["goal"]:
    print(json.dumps({"question": {"type": "NUMBER", "text": "How many replicas?", "integer": True, "minimum": 1, "maximum": 10}}))
else:
    print(json.dumps({"question": {"type": "SELECT_MANY", "text": "Which databases?", "options": ["Postgres", "postgres", "mysql"],
        "optionTitles": ["Postgres (managed)", "postgres (ours)", "MySQL"], "maxItems": 2}}))
`

// The terminal's pickers are typed: a NUMBER input refuses 11 under the
// input and asks again, then takes 3; a SELECT_MANY multi-select shows
// the options' titles and sends the one picked as that option, the second
// of two that differ only in case.
func tmuxTypedPickers(t *testing.T) {
	t.Parallel()
	requireTmux(t)
	in := start(t, writePlugin(t, typedPlugin), "--db", filepath.Join(t.TempDir(), "a.db"), "--interpreter", "exec")

	t.Run("number_out_of_range_is_asked_again", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, t.TempDir(), "run", "--server", in.base, "scale the replicas")
		p.waitFor("How many replicas?", "A number · job")
		p.typeText("11")
		p.settle()
		p.keys("Enter")
		s := p.waitFor("out of range")
		if strings.Contains(s, "EXIT=") {
			t.Fatalf("the picker ended on 11:\n%s", s)
		}
		p.keys("BSpace", "BSpace")
		p.typeText("3")
		p.settle()
		p.keys("Enter")
		s = p.waitFor("EXIT=")
		for _, w := range []string{"EXIT=0", "How many replicas? › 3", "answer: 3 (from user)", "use 3"} {
			if !strings.Contains(s, w) {
				t.Fatalf("screen lacks %q:\n%s", w, s)
			}
		}
	})

	t.Run("multi_select_picks_by_identity", func(t *testing.T) {
		t.Parallel()
		p := newPane(t, t.TempDir(), "run", "--server", in.base, "pick the databases")
		p.waitFor("Which databases?", "Postgres (managed)", "postgres (ours)")
		p.keys("Down")
		p.settle()
		p.keys("Space")
		p.settle()
		p.keys("Enter")
		s := p.waitFor("EXIT=")
		for _, w := range []string{"EXIT=0", "answer: postgres (from user)"} {
			if !strings.Contains(s, w) {
				t.Fatalf("screen lacks %q:\n%s", w, s)
			}
		}
	})
}
