package rules_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

// blind2Item is one line of testdata/blind2.jsonl: the labelled format of
// askonce eval plus the issue-39 class it measures and what its plan must
// look like (the file's header documents the checks).
type blind2Item struct {
	ID         string          `json:"id"`
	Goal       string          `json:"goal"`
	Label      string          `json:"label"`
	Note       string          `json:"note"`
	Profile    string          `json:"profile"`
	Files      []string        `json:"files"`
	Candidates []string        `json:"candidates"`
	SpecSchema json.RawMessage `json:"specSchema"`
	Expect     *struct {
		Type    askonce.QuestionType `json:"type"`
		Options []string             `json:"options"`
		Reason  string               `json:"reason"`
	} `json:"expect"`
	Class  int          `json:"class"`
	Checks *plan2Checks `json:"checks"`
}

// plan2Checks is what a blind2 item's plan must hold.
type plan2Checks struct {
	Together      [][]string  `json:"together"`
	Keep          []string    `json:"keep"`
	Bindings      []mentionOf `json:"bindings"`
	NoBinding     []mentionOf `json:"noBinding"`
	Titles        []string    `json:"titles"`
	ConfirmQuotes string      `json:"confirmQuotes"`
	OnNo          *struct {
		Keep []string `json:"keep"`
		Drop []string `json:"drop"`
	} `json:"onNo"`
	OnAnswer *struct {
		Answer    string `json:"answer"`
		PlanTitle string `json:"planTitle"`
	} `json:"onAnswer"`
}

type mentionOf struct {
	Mention   string `json:"mention"`
	Candidate string `json:"candidate"`
}

// blind2Tally counts one class's figures.
type blind2Tally struct {
	items, clear, askedClear, ask, askedAsk, rightQuestion   int
	checked, lostOrSplit, wrongBinding, missingBinding       int
	badTitle, badQuote, badOnNo, badOnAnswer, failedAnyCheck int
}

// TestBlind2SetIssue39Classes measures the rules interpreter on
// testdata/blind2.jsonl, written blind for issue 39, per class: asks on
// clear items, recall and right questions on ask items, and the plan
// checks of each item (a code block or an introducing line kept with its
// step, bindings recorded and none wrong, titles, the destructive
// confirmation's quote and what "no" removes, the title after an
// answer). It logs the figures and how far they are from the issue's
// targets (no plan that drops a condition or turns code into steps, no
// wrong binding, asks on clear items at most 2%, household recall, items
// with candidates, at least 30% at most 2% asks on their clear items),
// and fails when a figure is worse than blind2Reached, what the rules
// reached when the set was first measured after the change. The set is
// blind: never tune rules/ to its items (ASKONCE_BLIND2_ITEMS=1 lists
// them, for a reviewer).
func TestBlind2SetIssue39Classes(t *testing.T) {
	measureBlindSet(t, "testdata/blind2.jsonl", blind2Reached)
}

// TestBlind3SetIssue39Classes measures testdata/blind3.jsonl the same way:
// a second set for issue 39, written blind after the first change to the
// rules had been measured on blind2, so that what the rules learned from
// the issue's classes is measured on goals nobody working on rules/ has
// read. It fails when a figure is worse than blind3Reached.
func TestBlind3SetIssue39Classes(t *testing.T) {
	measureBlindSet(t, "testdata/blind3.jsonl", blind3Reached)
}

// TestBlind4SetIssue39Classes measures testdata/blind4.jsonl the same way:
// a third set for issue 39, written blind (its author read only this
// checker's item format) and measured on main before the rules changed
// that session, so that its before and after are both blind figures. It
// fails when a figure is worse than blind4Reached.
func TestBlind4SetIssue39Classes(t *testing.T) {
	measureBlindSet(t, "testdata/blind4.jsonl", blind4Reached)
}

// TestBlind5SetIssue39Classes measures testdata/blind5.jsonl the same way:
// a fourth set for issue 39, written blind (its author read only issue 39
// and this checker) after that stop's rules changes were made, and
// measured on the stop's first commit and its last, so that both are
// blind figures. It fails when a figure is worse than blind5Reached.
func TestBlind5SetIssue39Classes(t *testing.T) {
	measureBlindSet(t, "testdata/blind5.jsonl", blind5Reached)
}

// TestBlind6SetIssue39Classes measures testdata/blind6.jsonl the same way:
// a fifth set for issue 39, written blind (its author read only issue 39
// and this checker, and never ran the rules on it), measured on the
// stop's first commit and its last. It fails when a figure is worse than
// blind6Reached.
func TestBlind6SetIssue39Classes(t *testing.T) {
	measureBlindSet(t, "testdata/blind6.jsonl", blind6Reached)
}

// TestBlind7SetIssue39Classes measures testdata/blind7.jsonl the same way:
// a sixth set for issue 39, written blind (its author read only issue 39
// and this checker, and never ran the rules on it) after that stop's
// rules changes, measured on the stop's first commit and its last. No
// one working on rules/ has seen its items or its counts. It fails when
// a figure is worse than blind7Reached.
func TestBlind7SetIssue39Classes(t *testing.T) {
	measureBlindSet(t, "testdata/blind7.jsonl", blind7Reached)
}

// measureBlindSet runs every item of a blind set of issue 39, logs its
// figures per class and against the issue's targets, and fails when one
// is worse than reached.
func measureBlindSet(t *testing.T, path string, reached blind2Tally) {
	in, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	items := readBlind2(t, path)
	byClass := map[int]*blind2Tally{}
	var household blind2Tally
	var failures []string
	for _, it := range items {
		tl := byClass[it.Class]
		if tl == nil {
			tl = &blind2Tally{}
			byClass[it.Class] = tl
		}
		problems := measureBlind2(t, in, it, tl)
		if len(it.Candidates) > 0 {
			measureBlind2(t, in, it, &household)
		}
		if len(problems) > 0 {
			failures = append(failures, fmt.Sprintf("%s (class %d): %s", it.ID, it.Class, strings.Join(problems, "; ")))
		}
	}
	t.Logf("%-9s %5s %13s %11s %8s %7s %11s %13s %7s %6s %6s %8s %9s", "class", "items", "asks on clear", "ask recall", "right q", "checked",
		"lost/split", "wrong binding", "missing", "title", "quote", "on no", "on answer")
	var all blind2Tally
	row := func(name string, tl *blind2Tally) {
		t.Logf("%-9s %5d %13s %11s %8d %7d %11d %13d %7d %6d %6d %8d %9d", name, tl.items,
			fmt.Sprintf("%d/%d", tl.askedClear, tl.clear), fmt.Sprintf("%d/%d", tl.askedAsk, tl.ask), tl.rightQuestion,
			tl.checked, tl.lostOrSplit, tl.wrongBinding, tl.missingBinding, tl.badTitle, tl.badQuote, tl.badOnNo, tl.badOnAnswer)
	}
	for c := range 9 {
		tl := byClass[c]
		if tl == nil {
			continue
		}
		row(fmt.Sprint(c), tl)
		all.add(tl)
	}
	row("all", &all)
	row("household", &household)
	if os.Getenv("ASKONCE_BLIND2_ITEMS") != "" { // the items themselves, for a reviewer: never tune rules/ to them
		for _, f := range failures {
			t.Log(f)
		}
	}
	for _, target := range []struct {
		what     string
		got, max int
	}{
		{"plans that drop a condition or turn code into steps", all.lostOrSplit, 0},
		{"wrong bindings", all.wrongBinding, 0},
		{"asks on clear items (2%)", all.askedClear, all.clear / 50},
		{"asks on the household's clear items (2%)", household.askedClear, household.clear / 50},
	} {
		if target.got > target.max {
			t.Logf("issue 39's target not met: %d %s, target at most %d", target.got, target.what, target.max)
		}
	}
	if household.askedAsk*10 < household.ask*3 {
		t.Logf("issue 39's target not met: household recall %d of %d, target at least 30%%", household.askedAsk, household.ask)
	}
	for _, r := range []struct {
		what         string
		got, reached int
	}{
		{"plans that drop a condition or turn code into steps", all.lostOrSplit, reached.lostOrSplit},
		{"wrong bindings", all.wrongBinding, reached.wrongBinding},
		{"asks on clear items", all.askedClear, reached.askedClear},
		{"missing bindings", all.missingBinding, reached.missingBinding},
		{"wrong titles", all.badTitle, reached.badTitle},
		{"confirmations that break the command or path", all.badQuote, reached.badQuote},
		{"plans after no that keep or lose too much", all.badOnNo, reached.badOnNo},
		{"titles after an answer", all.badOnAnswer, reached.badOnAnswer},
		{"ask items not asked", all.ask - all.askedAsk, reached.ask - reached.askedAsk},
	} {
		if r.got > r.reached {
			t.Errorf("%d %s; the rules reached %d", r.got, r.what, r.reached)
		}
	}
}

// blind2Reached is what the rules reach on blind2.jsonl today (before
// issue 39's change: 46 plans lost or split a step, 23 wrong bindings, 8
// of 179 clear items asked; see docs/interpreters.md).
var blind2Reached = blind2Tally{clear: 179, askedClear: 2, ask: 54, askedAsk: 44, lostOrSplit: 0, wrongBinding: 0, missingBinding: 5, badTitle: 2, badQuote: 3, badOnNo: 2}

func (a *blind2Tally) add(b *blind2Tally) {
	a.items += b.items
	a.clear += b.clear
	a.askedClear += b.askedClear
	a.ask += b.ask
	a.askedAsk += b.askedAsk
	a.rightQuestion += b.rightQuestion
	a.checked += b.checked
	a.lostOrSplit += b.lostOrSplit
	a.wrongBinding += b.wrongBinding
	a.missingBinding += b.missingBinding
	a.badTitle += b.badTitle
	a.badQuote += b.badQuote
	a.badOnNo += b.badOnNo
	a.badOnAnswer += b.badOnAnswer
	a.failedAnyCheck += b.failedAnyCheck
}

// measureBlind2 runs one item as a new job (and, for an ask item, its
// answer), counts it in tl and returns what its checks found wrong.
func measureBlind2(t *testing.T, in *rules.Interpreter, it blind2Item, tl *blind2Tally) []string {
	t.Helper()
	tl.items++
	out := interpret2(t, in, it, "")
	var problems []string
	if it.Label == "clear" {
		tl.clear++
		if out.Question != nil {
			tl.askedClear++
			problems = append(problems, fmt.Sprintf("asked on a clear item: %q", out.Question.Text))
		}
	} else {
		tl.ask++
		if out.Question != nil {
			tl.askedAsk++
			if e := it.Expect; e != nil && out.Question.Type == e.Type && (len(e.Options) == 0 || sameOptionSet(out.Question.Options, e.Options)) {
				tl.rightQuestion++
			}
		}
	}
	c := it.Checks
	if c == nil {
		return problems
	}
	tl.checked++
	before := len(problems)
	if c.ConfirmQuotes != "" {
		if q := out.Question; q == nil || q.Type != askonce.QuestionConfirm || !strings.Contains(q.Text, c.ConfirmQuotes) {
			tl.badQuote++
			problems = append(problems, fmt.Sprintf("the confirmation does not quote %q: %+v", c.ConfirmQuotes, out.Question))
		}
	}
	plan := out.Plan
	if out.Question != nil {
		answer := ""
		switch {
		case out.Question.Type == askonce.QuestionConfirm:
			answer = "yes"
		case it.Expect != nil && len(it.Expect.Options) > 0:
			answer = it.Expect.Options[0]
		case len(out.Question.Options) > 0:
			answer = out.Question.Options[0]
		}
		if answer != "" {
			plan = interpret2(t, in, it, answer).Plan
		}
	}
	if plan == nil {
		if len(c.Together) > 0 || len(c.Keep) > 0 || len(c.Titles) > 0 || len(c.Bindings) > 0 {
			problems = append(problems, "no plan to check")
			tl.failedAnyCheck++
		}
		return problems
	}
	texts := instructions(plan)
	lost := false
	for _, group := range c.Together {
		if !slices.ContainsFunc(texts, func(s string) bool { return containsAll(s, group) }) &&
			(it.Class != 2 || !introducesNext(texts, group)) {
			lost = true
			problems = append(problems, fmt.Sprintf("no one task holds %q: %q", group, texts))
		}
	}
	for _, k := range c.Keep {
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, k) }) {
			lost = true
			problems = append(problems, fmt.Sprintf("no task holds %q: %q", k, texts))
		}
	}
	if lost {
		tl.lostOrSplit++
	}
	got := planBindings(t, plan)
	for _, b := range c.NoBinding {
		if slices.ContainsFunc(got, b.matches) {
			tl.wrongBinding++
			problems = append(problems, fmt.Sprintf("wrong binding %s=%s recorded", b.Mention, b.Candidate))
		}
	}
	for _, b := range c.Bindings {
		if !slices.ContainsFunc(got, b.matches) {
			tl.missingBinding++
			problems = append(problems, fmt.Sprintf("binding %s=%s missing", b.Mention, b.Candidate))
		}
	}
	if len(c.Titles) > 0 {
		var titles []string
		for _, task := range plan.Tasks {
			titles = append(titles, strings.TrimSpace(task.Title))
		}
		if !slices.Equal(titles, c.Titles) {
			tl.badTitle++
			problems = append(problems, fmt.Sprintf("titles %q, want %q", titles, c.Titles))
		}
	}
	if c.OnNo != nil {
		p := interpret2(t, in, it, "no").Plan
		switch {
		case p == nil:
			tl.badOnNo++
			problems = append(problems, "no plan after no")
		default:
			texts := instructions(p)
			bad := false
			for _, k := range c.OnNo.Keep {
				bad = bad || !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, k) })
			}
			for _, d := range c.OnNo.Drop {
				bad = bad || slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, d) })
			}
			if bad {
				tl.badOnNo++
				problems = append(problems, fmt.Sprintf("after no the tasks are %q (keep %q, drop %q)", texts, c.OnNo.Keep, c.OnNo.Drop))
			}
		}
	}
	if a := c.OnAnswer; a != nil {
		if p := interpret2(t, in, it, a.Answer).Plan; p == nil || p.Title != a.PlanTitle {
			tl.badOnAnswer++
			problems = append(problems, fmt.Sprintf("after %q the plan's title is not %q", a.Answer, a.PlanTitle))
		}
	}
	if len(problems) > before {
		tl.failedAnyCheck++
	}
	return problems
}

func (m mentionOf) matches(b mentionOf) bool {
	return strings.EqualFold(strings.TrimSpace(m.Mention), strings.TrimSpace(b.Mention)) && m.Candidate == b.Candidate
}

// planBindings are the bindings a plan records, in spec.bindings or on a
// task.
func planBindings(t *testing.T, p *askonce.Plan) []mentionOf {
	t.Helper()
	var spec struct {
		Bindings []mentionOf `json:"bindings"`
	}
	_ = json.Unmarshal(p.Spec, &spec) // a spec without bindings has none
	out := spec.Bindings
	for _, task := range p.Tasks {
		for _, b := range task.Bindings {
			out = append(out, mentionOf{Mention: b.Mention, Candidate: b.Candidate})
		}
	}
	return out
}

// introducesNext reports whether a task holding group's first string (a
// list's introducing line) stands directly before a task holding the
// rest: issue 39 lets an introducing line belong to its steps "as their
// shared condition or as a step of its own", and a class-2 item's
// together check (intro and first step in one task) holds either way.
// A code block has no such second form: it is one part of its step.
func introducesNext(texts []string, group []string) bool {
	for i := 0; i+1 < len(texts) && len(group) > 1; i++ {
		if strings.Contains(texts[i], group[0]) && containsAll(texts[i+1], group[1:]) {
			return true
		}
	}
	return false
}

func containsAll(s string, subs []string) bool {
	return !slices.ContainsFunc(subs, func(x string) bool { return !strings.Contains(s, x) })
}

func sameOptionSet(got, want []string) bool {
	return len(got) == len(want) && !slices.ContainsFunc(want, func(w string) bool {
		return !slices.ContainsFunc(got, func(g string) bool { return strings.EqualFold(g, w) })
	})
}

// interpret2 makes the call the engine makes for a new job, or, with an
// answer, the call after it: the resolved prompt.
func interpret2(t *testing.T, in *rules.Interpreter, it blind2Item, answer string) *askonce.Outcome {
	t.Helper()
	goal := strings.TrimSpace(it.Goal)
	prompt := goal
	reason := askonce.ReasonInitial
	if answer != "" {
		prompt, reason = askonce.ResolvedPrompt(goal, answer), askonce.ReasonClarificationAnswer
	}
	resp, err := in.Interpret(context.Background(), &askonce.Request{
		JobID: "blind2-" + it.ID, Goal: goal, Prompt: prompt, Profile: it.Profile,
		Files: it.Files, Candidates: it.Candidates, SpecSchema: it.SpecSchema,
		Attempt: 1, Reason: reason,
	})
	if err != nil {
		t.Fatalf("%s: %v", it.ID, err)
	}
	return resp.Outcome
}

func readBlind2(t *testing.T, path string) []blind2Item {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []blind2Item
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var it blind2Item
		if err := dec.Decode(&it); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if it.ID == "" || strings.TrimSpace(it.Goal) == "" || it.Label != "ask" && it.Label != "clear" || it.Class < 0 || it.Class > 8 {
			t.Fatalf("%s:%d: an item needs an id, a goal, an ask or clear label and a class 0..8", path, n)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return items
}

// blind3Reached is what the rules reach on blind3.jsonl today (main at
// b001ebd had asked on 3 of its clear items, and had 39 ask items asked,
// 3 wrong titles, 3 broken quotes and 2 wrong plans after "no").
var blind3Reached = blind2Tally{clear: 154, askedClear: 2, ask: 56, askedAsk: 41, lostOrSplit: 0, wrongBinding: 0, missingBinding: 2, badTitle: 1, badQuote: 2, badOnNo: 1, badOnAnswer: 1}

// blind4Reached is what the rules reach on blind4.jsonl today, after
// changes whose authors had not seen the set. Before the first (main
// at 00e5d7d, when the set was first measured): 5 of 138 clear items asked,
// 39 of 61 ask items asked, 5 broken confirmation quotes.
var blind4Reached = blind2Tally{clear: 138, askedClear: 1, ask: 61, askedAsk: 51, lostOrSplit: 0, wrongBinding: 0, missingBinding: 6, badTitle: 0, badQuote: 1, badOnNo: 2, badOnAnswer: 0}

// blind5Reached is what the rules reach on blind5.jsonl today; at the
// first commit of the stop it was written in (9e59744): 2 plans lost or
// split, 1 wrong binding, 51 of 63 ask items asked, 5 broken
// confirmation quotes, 5 plans after "no" that kept or lost too much. Its
// failures have been read since: it is no longer blind.
var blind5Reached = blind2Tally{clear: 159, askedClear: 1, ask: 63, askedAsk: 53, lostOrSplit: 1, wrongBinding: 0, missingBinding: 1, badTitle: 0, badQuote: 2, badOnNo: 2, badOnAnswer: 1}

// blind6Reached is what the rules reach on blind6.jsonl today; first
// measured on 6476613 (the rules of the stop before): 3 of 145 clear
// items asked, 52 of 79 ask items asked, no plan lost or split, no wrong
// binding, 4 missing bindings, 3 broken quotes; household 23 of 31 at 2
// of 64. The rules changed since were made by people who never read
// its items, but one of them watched its count tables while working.
var blind6Reached = blind2Tally{clear: 145, askedClear: 2, ask: 79, askedAsk: 54, lostOrSplit: 0, wrongBinding: 0, missingBinding: 4, badTitle: 0, badQuote: 1, badOnNo: 1, badOnAnswer: 3}

// blind7Reached is what the rules reach on blind7.jsonl today. On the
// stop's first commit (8e451b6) the figures were the same but for one
// right question fewer (50 of 52): 1 of 151 clear items asked, 52 of 66
// ask items asked, no plan lost or split, no wrong binding; household
// 24 of 28 at 0 of 72.
var blind7Reached = blind2Tally{clear: 151, askedClear: 1, ask: 66, askedAsk: 52, lostOrSplit: 0, wrongBinding: 0, missingBinding: 6, badTitle: 0, badQuote: 2, badOnNo: 0, badOnAnswer: 5}
