package rules

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// TestMentionPropertiesInEveryLabelledRoom checks, in every room (a
// candidate list) of the readable labelled sets, what a mention binds to,
// on goals made from the room's own names:
//   - a head that two or more candidates share, said bare ("put the mug
//     away"), asks which, and offers every candidate it is the last word
//     of (issue 39, class 4);
//   - said after "every" or "both", it asks nothing (class 5);
//   - a candidate named whole asks nothing and is bound to itself;
//   - a pronoun after taking a candidate out of a place never binds the
//     place (class 3).
func TestMentionPropertiesInEveryLabelledRoom(t *testing.T) {
	in, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rooms := map[string][]string{}
	for _, file := range []string{"testdata/dev.jsonl", "testdata/test.jsonl", "testdata/holdout.jsonl"} {
		items, err := readLabelled(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			if len(it.Candidates) > 1 && it.Profile == "" {
				rooms[strings.Join(it.Candidates, "|")] = it.Candidates
			}
		}
	}
	interpret := func(goal string, cands []string) (*askonce.Question, []string) {
		res, err := in.Interpret(context.Background(), &askonce.Request{Goal: goal, Prompt: goal, Candidates: cands, Attempt: 1})
		if err != nil {
			t.Fatalf("%q: %v", goal, err)
		}
		var binds []string
		if p := res.Outcome.Plan; p != nil {
			var spec struct {
				Bindings []struct{ Mention, Candidate string }
			}
			_ = json.Unmarshal(p.Spec, &spec) // a spec without bindings has none
			for _, b := range spec.Bindings {
				binds = append(binds, strings.ToLower(b.Mention)+"="+b.Candidate)
			}
		}
		return res.Outcome.Question, binds
	}
	simple := func(c string) bool { // plain words ("white t-shirt"): no identifier, number or other script
		return strings.Trim(strings.ToLower(c), "abcdefghijklmnopqrstuvwxyz '-") == ""
	}
	checked := 0
	for _, cands := range rooms {
		byLast := map[string][]string{}
		names := map[string]bool{}
		for _, c := range cands {
			ws := strings.Fields(strings.ToLower(c))
			names[strings.ToLower(c)] = true
			if simple(c) && len(ws) > 1 && !strings.Contains(ws[len(ws)-1], "'") {
				byLast[ws[len(ws)-1]] = append(byLast[ws[len(ws)-1]], c)
			}
		}
		for head, shared := range byLast {
			if len(shared) < 2 || names[head] || names[head+"s"] || strings.HasSuffix(head, "s") {
				continue
			}
			checked++
			goal := fmt.Sprintf("put the %s away", head)
			q, _ := interpret(goal, cands)
			if q == nil || q.Type != askonce.QuestionSelectOne {
				t.Errorf("%q in %q: no SELECT_ONE, want one over %q", goal, cands, shared)
			} else if slices.ContainsFunc(shared, func(c string) bool { return !slices.Contains(q.Options, c) }) {
				t.Errorf("%q in %q: options %q, want all of %q", goal, cands, q.Options, shared)
			}
			for _, goal := range []string{"dust every " + head, "put both " + head + "s away"} {
				if q, _ := interpret(goal, cands); q != nil && len(shared) == 2 {
					t.Errorf("%q in %q: asked %q", goal, cands, q.Text)
				}
			}
		}
		for _, c := range cands {
			if !simple(c) || len(strings.Fields(c)) < 2 {
				continue
			}
			checked++
			goal := fmt.Sprintf("put the %s away", c)
			q, binds := interpret(goal, cands)
			if q != nil {
				t.Errorf("%q in %q: asked %q", goal, cands, q.Text)
			}
			if want := strings.ToLower(c) + "=" + c; q == nil && !slices.Contains(binds, want) {
				t.Errorf("%q in %q: bindings %q, want %q", goal, cands, binds, want)
			}
			for _, place := range cands {
				if !vocab.has("places", strings.ToLower(place)) {
					continue
				}
				goal := fmt.Sprintf("take the %s out of the %s and rinse it", c, place)
				if _, binds := interpret(goal, cands); slices.Contains(binds, "it="+place) {
					t.Errorf("%q: it bound to the place: %q", goal, binds)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d checks made; the labelled rooms changed?", checked)
	}
}
