package rules_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

// Checks of the planner that a mutation audit found no test guarding,
// each pinned through the public planning API (Interpret), so that the
// tests hold whatever the text and candidate code looks like inside.

// outcomeOf plans goal with candidates, on the embedded profiles.
func outcomeOf(t *testing.T, goal string, candidates ...string) *askonce.Outcome {
	t.Helper()
	in, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := in.Interpret(context.Background(), &askonce.Request{Goal: goal, Prompt: goal, Candidates: candidates, Attempt: 1})
	if err != nil {
		t.Fatalf("Interpret %q: %v", goal, err)
	}
	o, err := askonce.ParseOutcome(res.Raw)
	if err != nil {
		t.Fatalf("ParseOutcome of %q: %v\n%s", goal, err, res.Raw)
	}
	return o
}

// planOf is goal's plan; a question fails the test.
func planOf(t *testing.T, goal string, candidates ...string) *askonce.Plan {
	t.Helper()
	o := outcomeOf(t, goal, candidates...)
	if o.Plan == nil {
		t.Fatalf("%q: asked %+v; want a plan", goal, o.Question)
	}
	return o.Plan
}

// A file name with a dot inside ("a.out", "x.tmp") is code, not the end
// of a sentence: a destructive step on it keeps its confirmation, alone
// or as a list item.
func TestDestructiveStepOnADottedFileNameAsksForConfirmation(t *testing.T) {
	t.Parallel()
	for _, goal := range []string{"delete a.out", "remove x.tmp", "Setup notes:\n- delete a.out"} {
		o := outcomeOf(t, goal)
		if o.Question == nil || o.Question.Type != askonce.QuestionConfirm {
			t.Errorf("%q: %+v; want a CONFIRM question", goal, o)
		}
	}
}

// One bullet is not a list: the lines before it stay a step of their
// own, and nothing of the goal is dropped.
func TestSingleBulletIsNotAListAndKeepsTheLinesBeforeIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ goal, first, second string }{
		{"Setup notes:\n- run the tests", "Setup notes", "run the tests"},
		{"Notes for later\n- rotate the logs", "Notes for later", "rotate the logs"},
	} {
		p := planOf(t, c.goal)
		if len(p.Tasks) != 2 || !strings.Contains(p.Tasks[0].Instruction, c.first) || !strings.Contains(p.Tasks[1].Instruction, c.second) {
			t.Errorf("%q: tasks %+v; want %q then %q", c.goal, p.Tasks, c.first, c.second)
		}
	}
	// Two bullets are a list: the line that introduces it is a step of
	// its own (issue 39: it is never dropped), and the items follow it.
	if p := planOf(t, "Setup notes:\n- run the tests\n- rotate the logs"); len(p.Tasks) != 3 || !strings.Contains(p.Tasks[0].Instruction, "Setup") ||
		p.Tasks[1].Instruction != "run the tests" || p.Tasks[2].Instruction != "rotate the logs" {
		t.Errorf("a two-item list: tasks %+v; want its introducing line, then its two items", p.Tasks)
	}
}

// A parallel cue ("meanwhile", 並行して) that opens the step after a
// semicolon or a full stop (with or without a space) makes that step
// independent of the one before; without the cue it depends on it.
func TestParallelCueAfterASemicolonOrFullStopMakesTheStepIndependent(t *testing.T) {
	t.Parallel()
	for _, goal := range []string{
		"build the docs; meanwhile run the tests",
		"build the docs;meanwhile run the tests",
		"build the docs. Meanwhile run the tests",
		"ドキュメントをビルドする。並行してテストを実行する",
		"ドキュメントをビルドする。 並行してテストを実行する",
	} {
		p := planOf(t, goal)
		if len(p.Tasks) != 2 || len(p.Tasks[1].DependsOn) != 0 {
			t.Errorf("%q: tasks %+v; want two, the second depending on nothing", goal, p.Tasks)
		}
	}
	if p := planOf(t, "build the docs; run the tests"); len(p.Tasks) != 2 || !slices.Equal(p.Tasks[1].DependsOn, []string{p.Tasks[0].ID}) {
		t.Errorf("without a cue: tasks %+v; want the second after the first", p.Tasks)
	}
}

// A candidate's name in back-ticks is code (a literal the goal quotes),
// not a mention: it is not bound to the candidate; the same name as a
// word is.
func TestBackTickedCandidateNameIsNotBound(t *testing.T) {
	t.Parallel()
	cands := []string{"staging", "production"}
	for _, goal := range []string{"deploy to `staging`", "copy `staging` to the cluster", "restart the worker, not `staging`"} {
		if b := bindings(planOf(t, goal, cands...)); len(b) != 0 {
			t.Errorf("%q: bindings %+v; want none", goal, b)
		}
	}
	if b := bindings(planOf(t, "deploy to staging", cands...)); len(b) != 1 || b[0].Candidate != "staging" {
		t.Errorf("staging as a word: bindings %+v; want it bound", b)
	}
}

// bindings are the bindings of every task of p.
func bindings(p *askonce.Plan) []askonce.Binding {
	var out []askonce.Binding
	for _, t := range p.Tasks {
		out = append(out, t.Bindings...)
	}
	return out
}

// A measure before "of" ("a bag of", "half of") does not make the noun
// after it part of a longer phrase: "a bag of the pepper" is a mention of
// a pepper, and with two peppers it is asked which. A phrase after the
// noun that no candidate holds ("the pepper of the day") narrows it to
// none, as "the yellow pepper" would, and is not asked.
func TestMentionAfterAMeasureOfIsAsked(t *testing.T) {
	t.Parallel()
	for _, goal := range []string{"take a bag of the pepper", "chop half of the pepper"} {
		o := outcomeOf(t, goal, "red pepper", "green pepper")
		if o.Question == nil || o.Question.Type != askonce.QuestionSelectOne || !slices.Equal(o.Question.Options, []string{"red pepper", "green pepper"}) {
			t.Errorf("%q: %+v; want which pepper asked", goal, o)
		}
	}
	if o := outcomeOf(t, "order the pepper of the day", "red pepper", "green pepper"); o.Question != nil {
		t.Errorf("the pepper of the day: asked %+v; want a plan (a phrase no candidate holds)", o.Question)
	}
}

// An adverb after a mention ("quickly", "finely") does not make the
// mention the first noun of a compound: "chop the pepper quickly" is
// asked which pepper.
func TestMentionFollowedByAnAdverbIsAsked(t *testing.T) {
	t.Parallel()
	for _, goal := range []string{"chop the pepper quickly", "slice the pepper finely"} {
		o := outcomeOf(t, goal, "red pepper", "green pepper")
		if o.Question == nil || o.Question.Type != askonce.QuestionSelectOne {
			t.Errorf("%q: %+v; want which pepper asked", goal, o)
		}
	}
}
