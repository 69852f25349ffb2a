package rules

import (
	"context"
	"fmt"
	"testing"

	"github.com/askonce/askonce"
)

// justifiedDefault reports whether the rules interpreter may give q's
// default: only the safe "no" of a destructive step's confirmation
// (docs/protocol.md rule 17). Every other question has none.
func justifiedDefault(q *askonce.Question) bool {
	if q.Default == "" {
		return true
	}
	return q.Type == askonce.QuestionConfirm && q.Reason == "target_file_exists" && q.Default == "no"
}

// Rule 17, no silent consent: no question the rules interpreter asks on
// any labelled set carries a default nobody chose. Only a destructive
// step's confirmation defaults, to "no"; options, candidate files and
// spec fields have none, so a question nobody answers expires instead of
// answering for the person. The bowl for the microwave is the case the
// issue names: the metal bowl came first and was the default.
func TestRule17_QuestionsCarryNoDefaultButADestructiveNo(t *testing.T) {
	t.Parallel()
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	asked, destructive := 0, 0
	check := func(where string, req *askonce.Request) {
		t.Helper()
		res, err := in.Interpret(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		q := res.Outcome.Question
		if q == nil {
			return
		}
		asked++
		if !justifiedDefault(q) {
			t.Errorf("%s %q: %s %s question defaults to %q", where, req.Goal, q.Type, q.Reason, q.Default)
		}
		if q.Default == "no" {
			destructive++
		}
		for _, f := range q.Fields {
			if f.Default != "" {
				t.Errorf("%s %q: field %s defaults to %q", where, req.Goal, f.Name, f.Default)
			}
		}
	}
	bowl := "put the soup in the bowl and microwave it"
	check("bowl", &askonce.Request{Goal: bowl, Prompt: bowl, Candidates: []string{"metal bowl", "glass bowl"}, Attempt: 1})
	if asked != 1 {
		t.Fatalf("the bowl goal asked nothing")
	}
	for _, file := range []string{"dev", "holdout", "test", "blind"} {
		set, err := readLabelled("testdata/" + file + ".jsonl")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range set {
			check(fmt.Sprintf("%s.jsonl:%d", file, l.line), l.request(*l.Goal))
		}
	}
	// The sets hold destructive commands and many other questions: a
	// run that asked none of either would prove nothing.
	if destructive == 0 || asked-destructive < 50 {
		t.Fatalf("asked %d questions, %d of them destructive: too few to check the rule", asked, destructive)
	}
	t.Logf("%d questions asked, %d destructive confirmations default to no, the rest have no default", asked, destructive)
}
