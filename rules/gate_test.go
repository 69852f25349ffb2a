package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

func TestRule8_GatingIsAProfileProperty(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	cosmetic := &askonce.Question{Type: askonce.QuestionSelectOne, Text: "Hot or icy look?", Options: []string{"hot", "icy"}, Cosmetic: true}
	functional := &askonce.Question{Type: askonce.QuestionSelectOne, Text: "Liquid or solid?", Options: []string{"liquid", "solid"}}
	cases := []struct {
		profile, goal string
		q             *askonce.Question
		proceed       bool
	}{
		{minecraft, "a hot frozen ore", cosmetic, true},
		{"minecraft", "hot icy blocks that glow", cosmetic, true},
		{minecraft, "a hot frozen block", functional, false},
		{minecraft, "hot frozen cheese", cosmetic, false},
		{minecraft, "a blockade of hot ice", cosmetic, false},
		{general, "a hot frozen block", cosmetic, false},
		{"no-such-profile", "a hot frozen block", cosmetic, false},
	}
	for _, c := range cases {
		a, ok := in.Gate(c.profile, c.goal, c.q)
		if ok != c.proceed || (ok && !strings.Contains(a, "Block-only mod: the cosmetic question “Hot or icy look?” was not asked; functional instructions take priority")) {
			t.Errorf("Gate(%s, %q, cosmetic=%v) = %q, %v; want proceed=%v", c.profile, c.goal, c.q.Cosmetic, a, ok, c.proceed)
		}
	}
	// A user's profile gates with its own words and label.
	p, err := rules.LoadProfile(strings.NewReader(`{"name": "shop", "checks": ["contradiction"],
		"gating": {"label": "Storefront", "words": ["banner"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	shop, err := rules.New(rules.Options{Profiles: []*rules.Profile{p}})
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := shop.Gate("shop", "a hot frozen banner", cosmetic); !ok || !strings.HasPrefix(a, "Storefront:") {
		t.Errorf("user profile: %q, %v", a, ok)
	}
	if _, err := rules.LoadProfile(strings.NewReader(`{"name": "x", "gating": {"label": "", "words": []}}`)); err == nil {
		t.Error("gating without a label and words: no error")
	}
}

// Rule 7: SELECT_ONE questions take other answers; CONFIRM and
// TARGET_FILE never do.
func TestSelectOneQuestionsAllowOtherAnswers(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	cases := []struct {
		r    req
		want bool
	}{
		{req{goal: "hot frozen cheese"}, true},
		{req{profile: minecraft, goal: "hot frozen cheese"}, true},
		{req{goal: "deploy to staging or production"}, true},
		{req{goal: "use the pepper", cands: []string{"black pepper", "bell pepper"}}, true},
		{req{goal: "delete notes.md"}, false},
		{req{goal: "summarise the file", files: []string{"a.md", "b.md"}}, false},
		{req{goal: "triage the bug", schema: `{"type": "object", "required": ["owner"], "properties": {"owner": {"type": "string"}}}`}, false},
	}
	for _, c := range cases {
		o := interpret(t, in, c.r)
		if o.Question == nil || o.Question.AllowOther != c.want {
			t.Errorf("%q: question %+v; want allowOther=%v", c.r.goal, o.Question, c.want)
		}
	}
}

// Rule 3 with an other answer: "banana" to hot/frozen settles nothing, so
// the interpreter given the resolved prompt asks the same question again
// (the engine's hard cap then fails the job under "fail"), and the re-run
// under the fallback directive plans with the assumption recorded.
func TestOtherAnswerThatSettlesNothingAsksAgainAndFallbackPlans(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, profile := range []string{general, minecraft} {
		first := interpret(t, in, req{profile: profile, goal: "hot frozen cheese"})
		again := interpret(t, in, req{profile: profile, goal: "hot frozen cheese", answer: "banana"})
		if again.Question == nil || again.Question.Text != first.Question.Text {
			t.Fatalf("%s: after banana: %+v; want the same question %q", profile, again.Question, first.Question.Text)
		}
		res, err := in.Interpret(context.Background(), &askonce.Request{
			Goal: "hot frozen cheese", Prompt: askonce.ResolvedPrompt("hot frozen cheese", "banana"),
			Profile: profile, Directive: askonce.FallbackDirective, Reason: askonce.ReasonFallback, Attempt: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		o, err := askonce.ParseOutcome(res.Raw)
		if err != nil || o.Plan == nil || len(o.Plan.Assumptions) == 0 || !strings.Contains(strings.Join(o.Plan.Assumptions, " "), "assumed “hot”") {
			t.Fatalf("%s: fallback: %v %s", profile, err, res.Raw)
		}
	}
}

// The engine's fallback re-run after an other answer appends the
// question's default as a last answer section (rule 3): the goal is the
// text before the first section, the default settles it, and the plan
// records that the other answer did not.
func TestFallbackWithTheDefaultAfterAnOtherAnswerRecordsIt(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	prompt := askonce.ResolvedPrompt(askonce.ResolvedPrompt("hot frozen cheese", "banana"), "hot")
	res, err := in.Interpret(context.Background(), &askonce.Request{
		Goal: "hot frozen cheese", Prompt: prompt, Profile: general,
		Directive: askonce.FallbackDirective, Reason: askonce.ReasonFallback, Attempt: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	o, err := askonce.ParseOutcome(res.Raw)
	if err != nil || o.Plan == nil {
		t.Fatalf("fallback: %v %s", err, res.Raw)
	}
	for _, task := range o.Plan.Tasks {
		if strings.Contains(task.Title+task.Instruction, "Clarification Answer") {
			t.Errorf("task %q carries an answer section as work to do", task.Title)
		}
	}
	if got := strings.Join(o.Plan.Assumptions, " | "); !strings.Contains(got, "“banana” did not settle it") {
		t.Errorf("assumptions %q do not record that banana settled nothing", got)
	}
}
