package rules_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

// TestBlindSetPlansQuoteTheGoal runs the rules interpreter over every item
// of testdata/blind.jsonl as a new job would call it, and checks what any
// correct interpreter must hold, whatever it decides to ask (issue 29):
//
//   - a plan's task instructions, joined, hold every non-space token of the
//     goal in order (code-like tokens byte for byte, words ignoring case;
//     a list marker such as "1." or "-" may be left out);
//   - no token occurs in the instructions more often than in the goal (so
//     none is doubled, and no candidate's name is written into the text);
//   - the plan's spec.goal is the goal as sent, trimmed;
//   - a question about which candidate or file is meant does not offer
//     options the goal already names, every one, word for word.
//
// It logs, per category (the items' note), how many plans were damaged and
// how many questions offered options named in full, and fails listing the
// offending items. The set is blind: never tune rules/ to its items.
func TestBlindSetPlansQuoteTheGoal(t *testing.T) {
	in, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	items := readBlindSet(t, "testdata/blind.jsonl")

	type tally struct {
		items, plans, damaged, textDamaged, specDamaged, questions, namedInFull int
	}
	byNote := map[string]*tally{}
	var failures []string
	for _, it := range items {
		tl := byNote[it.Note]
		if tl == nil {
			tl = &tally{}
			byNote[it.Note] = tl
		}
		tl.items++
		out := interpretAsJob(t, in, it)
		switch {
		case out.Plan != nil:
			tl.plans++
			text, spec := planDamage(strings.TrimSpace(it.Goal), out.Plan)
			if len(text) > 0 {
				tl.textDamaged++
			}
			if len(spec) > 0 {
				tl.specDamaged++
			}
			if problems := append(text, spec...); len(problems) > 0 {
				tl.damaged++
				failures = append(failures, fmt.Sprintf("%s plan: %s\n    goal:  %q\n    tasks: %q",
					it.ID, strings.Join(problems, "; "), it.Goal, instructions(out.Plan)))
			}
		case out.Question != nil:
			tl.questions++
			if namedInFull(it, out.Question) {
				tl.namedInFull++
				failures = append(failures, fmt.Sprintf("%s question offers options the goal names in full: %q\n    goal: %q",
					it.ID, out.Question.Options, it.Goal))
			}
		}
	}

	t.Logf("%-14s %5s %5s %7s %10s %10s %9s %13s", "category", "items", "plans", "damaged",
		"tokens", "spec.goal", "questions", "named in full")
	var total tally
	row := func(name string, tl *tally) {
		t.Logf("%-14s %5d %5d %7d %10d %10d %9d %13d", name, tl.items, tl.plans, tl.damaged,
			tl.textDamaged, tl.specDamaged, tl.questions, tl.namedInFull)
	}
	for _, note := range slices.Sorted(maps.Keys(byNote)) {
		tl := byNote[note]
		row(note, tl)
		total.items += tl.items
		total.plans += tl.plans
		total.damaged += tl.damaged
		total.textDamaged += tl.textDamaged
		total.specDamaged += tl.specDamaged
		total.questions += tl.questions
		total.namedInFull += tl.namedInFull
	}
	row("all", &total)
	if len(failures) > 0 {
		t.Errorf("%d plans damage the goal and %d questions offer options it names in full:\n%s",
			total.damaged, total.namedInFull, strings.Join(failures, "\n"))
	}
}

// blindItem is one line of the labelled format of askonce eval
// (docs/interpreters.md), read strictly.
type blindItem struct {
	ID         string          `json:"id"`
	Goal       string          `json:"goal"`
	Label      string          `json:"label"`
	Note       string          `json:"note"`
	Profile    string          `json:"profile"`
	Files      []string        `json:"files"`
	Candidates []string        `json:"candidates"`
	SpecSchema json.RawMessage `json:"specSchema"`
	Expect     json.RawMessage `json:"expect"`
}

func readBlindSet(t *testing.T, path string) []blindItem {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var items []blindItem
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var it blindItem
		if err := dec.Decode(&it); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if strings.TrimSpace(it.Goal) == "" || (it.Label != "ask" && it.Label != "clear") || it.ID == "" || it.Note == "" {
			t.Fatalf("%s:%d: an item needs a goal, an ask or clear label, an id and a note", path, n)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(items) == 0 {
		t.Fatalf("%s holds no items", path)
	}
	return items
}

// interpretAsJob makes the first interpreter call the engine makes for a
// new job: the goal trimmed, as the prompt, attempt 1, reason initial.
func interpretAsJob(t *testing.T, in *rules.Interpreter, it blindItem) *askonce.Outcome {
	t.Helper()
	goal := strings.TrimSpace(it.Goal)
	resp, err := in.Interpret(context.Background(), &askonce.Request{
		JobID: "blind-" + it.ID, Goal: goal, Prompt: goal, Profile: it.Profile,
		Files: it.Files, Candidates: it.Candidates, SpecSchema: it.SpecSchema,
		Attempt: 1, Reason: askonce.ReasonInitial,
	})
	if err != nil {
		t.Fatalf("%s: %v", it.ID, err)
	}
	out := resp.Outcome
	if out == nil {
		if out, err = askonce.ParseOutcome(resp.Raw); err != nil {
			t.Fatalf("%s: %v", it.ID, err)
		}
	}
	if (out.Plan == nil) == (out.Question == nil) {
		t.Fatalf("%s: the outcome is neither one plan nor one question: %s", it.ID, resp.Raw)
	}
	return out
}

func instructions(p *askonce.Plan) []string {
	var s []string
	for _, task := range p.Tasks {
		s = append(s, task.Instruction)
	}
	return s
}

// planDamage lists how plan's instructions, and its spec.goal, fail to
// quote goal.
func planDamage(goal string, plan *askonce.Plan) (text, spec []string) {
	return textDamage(goal, plan), specDamage(goal, plan)
}

// textDamage lists the goal's tokens the instructions drop, reorder or
// rewrite, and the ones they hold more often than the goal does.
func textDamage(goal string, plan *askonce.Plan) []string {
	var problems []string
	want := tokens(goal)
	got := tokens(strings.Join(instructions(plan), "\n"))

	next := 0
	for k, w := range want {
		i := slices.IndexFunc(got[next:], func(g token) bool { return g.key == w.key })
		if i < 0 {
			if !stepConnector(want, k) {
				problems = append(problems, fmt.Sprintf("drops or rewrites %q", w.text))
			}
			continue
		}
		next += i + 1
	}

	inGoal := map[string]int{}
	for _, w := range want {
		inGoal[w.key]++
	}
	inTasks := map[string]int{}
	for _, g := range got {
		inTasks[g.key]++
		if inTasks[g.key] == inGoal[g.key]+1 {
			problems = append(problems, fmt.Sprintf("has %q more often than the goal (%d)", g.text, inGoal[g.key]))
		}
	}
	return problems
}

// specDamage says how the plan's spec.goal differs from the goal.
func specDamage(goal string, plan *askonce.Plan) []string {
	var spec struct {
		Goal *string `json:"goal"`
	}
	switch err := json.Unmarshal(plan.Spec, &spec); {
	case err != nil:
		return []string{fmt.Sprintf("spec is not an object with a string goal: %v", err)}
	case spec.Goal == nil:
		return []string{"spec has no goal"}
	case *spec.Goal != goal:
		return []string{fmt.Sprintf("spec.goal is %q", *spec.Goal)}
	}
	return nil
}

// stepConnector reports whether want[k] is a word that joins two steps
// ("then", "afterwards", the "and" of "and then"), which a plan may leave
// out where it splits the goal there.
func stepConnector(want []token, k int) bool {
	switch want[k].key {
	case "w:then", "w:afterwards":
		return true
	case "w:and":
		return k+1 < len(want) && want[k+1].key == "w:then"
	}
	return false
}

// A token is one unit of the goal that a plan must carry: a code-like
// run (compared byte for byte), a word (compared ignoring case), or one
// Han or kana character (Japanese has no spaces to split at).
type token struct {
	text string // as written, for messages
	key  string // what two tokens must share to be the same
}

func tokens(s string) []token {
	var out []token
	for _, line := range strings.Split(s, "\n") {
		for i, field := range strings.Fields(line) {
			if i == 0 && isListMarker(field) {
				continue
			}
			out = appendField(out, field)
		}
	}
	return out
}

func appendField(out []token, field string) []token {
	var latin strings.Builder
	flush := func() {
		if t, ok := latinToken(latin.String()); ok {
			out = append(out, t)
		}
		latin.Reset()
	}
	for _, r := range field {
		switch {
		case isCJKLetter(r):
			flush()
			out = append(out, token{text: string(r), key: "w:" + string(r)})
		case isCJKPunct(r):
			flush()
		default:
			latin.WriteRune(r)
		}
	}
	flush()
	return out
}

func isCJKLetter(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー' || r == '々'
}

func isCJKPunct(r rune) bool {
	return strings.ContainsRune("。、，．・：；！？「」『』（）【】〜　", r)
}

// latinToken classifies one space-free run. Quotes and brackets around it
// and one closing punctuation mark after it are not part of it (a plan may
// end a step before the comma); the dots of "./..." are.
func latinToken(s string) (token, bool) {
	s = strings.TrimLeft(s, "(\"'“‘")
	s = strings.TrimRight(s, ")\"'”’")
	if n := len(s); n > 0 && strings.ContainsRune(",;:!?", rune(s[n-1])) {
		s = s[:n-1]
	} else if n > 1 && s[n-1] == '.' && s[n-2] != '.' {
		s = s[:n-1]
	}
	s = strings.TrimRight(s, ")\"'”’")
	if s == "" {
		return token{}, false
	}
	if codeLike(s) {
		return token{text: s, key: "c:" + s}, true
	}
	word := strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if word == "" { // a dash or an ellipsis is no token; "&&" or "|" is code
		return token{text: s, key: "c:" + s}, strings.ContainsAny(s, codeChars)
	}
	return token{text: word, key: "w:" + strings.ToLower(word)}, true
}

// isListMarker reports a bullet or a number such as "1." or "2)" that
// opens a line of a list.
func isListMarker(s string) bool {
	switch s {
	case "-", "*", "•", "–", "—":
		return true
	}
	digits := strings.TrimRight(s, ".)")
	return digits != s && digits != "" && strings.Trim(digits, "0123456789") == ""
}

const codeChars = "/\\_=`<>$@#{}[]~|&*%+"

// codeLike reports a path, glob, flag, KEY=value, URL, version, number,
// identifier or back-ticked span: text a plan must pass on byte for byte.
func codeLike(s string) bool {
	if strings.ContainsAny(s, codeChars+"0123456789") || strings.HasPrefix(s, "-") {
		return true
	}
	for i := 1; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == ':') && s[i+1] != ' ' {
			return true
		}
	}
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// namedInFull reports a question about which of the request's candidates
// or files is meant (every option is one of them; a choice the user
// offered, reason action_ambiguous, is not such a question) whose options
// the goal writes out, every one, word for word.
func namedInFull(it blindItem, q *askonce.Question) bool {
	if len(q.Options) < 2 || q.Reason == "action_ambiguous" {
		return false
	}
	names := append(slices.Clone(it.Candidates), it.Files...)
	goal := strings.ToLower(it.Goal)
	for _, o := range q.Options {
		if !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, o) }) {
			return false
		}
		if !containsPhrase(goal, strings.ToLower(o)) {
			return false
		}
	}
	return true
}

// containsPhrase finds phrase in text as whole words (a plural "s" or "es"
// may follow); Han and kana have no word boundaries to respect.
func containsPhrase(text, phrase string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], phrase)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(phrase)
		rest := strings.TrimPrefix(strings.TrimPrefix(text[end:], "e"), "s")
		if !wordRuneAt(text[:start], true) && (!wordRuneAt(text[end:], false) || !wordRuneAt(rest, false)) {
			return true
		}
		from = start + 1
	}
}

// wordRuneAt reports whether s ends (last) or starts (!last) with a
// letter or digit that would join a Latin word.
func wordRuneAt(s string, last bool) bool {
	if s == "" {
		return false
	}
	r := []rune(s)[0]
	if last {
		r = []rune(s)[len([]rune(s))-1]
	}
	return (unicode.IsLetter(r) || unicode.IsNumber(r)) && !isCJKLetter(r)
}

// The invariants above are only as good as their check: spans of the goal
// pass it, and each kind of damage the issue reports fails it.
func TestBlindSetCheckPassesSpansAndCatchesDamage(t *testing.T) {
	t.Parallel()
	plan := func(goal string, tasks ...string) *askonce.Plan {
		p := &askonce.Plan{Spec: json.RawMessage(fmt.Sprintf(`{"goal":%q}`, goal))}
		for _, s := range tasks {
			p.Tasks = append(p.Tasks, askonce.Task{Instruction: s})
		}
		return p
	}
	cases := []struct {
		name, goal string
		plan       *askonce.Plan
		damaged    bool
	}{
		{"spans split at then", "Build the site, then copy ./build/*.css to cdn/.",
			plan("Build the site, then copy ./build/*.css to cdn/.", "Build the site,", "copy ./build/*.css to cdn/."), false},
		{"list markers left out", "1. Run make\n2. Push v1.2.3",
			plan("1. Run make\n2. Push v1.2.3", "Run make", "Push v1.2.3"), false},
		{"a step's first word capitalised", "Toast it; then butter it.",
			plan("Toast it; then butter it.", "Toast it;", "Butter it."), false},
		{"Japanese spans", "パンを切って、皿に置いて。",
			plan("パンを切って、皿に置いて。", "パンを切って", "皿に置いて"), false},
		{"a word doubled", "Add olive oil.", plan("Add olive oil.", "Add olive olive oil."), true},
		{"a candidate's name written in", "Take the pie out.", plan("Take the pie out.", "Take the apple pie out."), true},
		{"a path cut", "Run go vet ./... before every release.",
			plan("Run go vet ./... before every release.", "Run go vet", "Before every release"), true},
		{"a path re-capitalised", "Fix it, i.e. lib/util.py, and test.",
			plan("Fix it, i.e. lib/util.py, and test.", "Fix it, i.e", "Lib/util.py, and test."), true},
		{"a Japanese particle dropped", "牛乳をコップに注いで。", plan("牛乳をコップに注いで。", "牛乳コップに注いで"), true},
		{"spec.goal rewritten", "Add olive oil.", plan("Add olive oil", "Add olive oil."), true},
	}
	for _, c := range cases {
		text, spec := planDamage(c.goal, c.plan)
		if got := len(text)+len(spec) > 0; got != c.damaged {
			t.Errorf("%s: damaged = %v, want %v (%q %q)", c.name, got, c.damaged, text, spec)
		}
	}
}

func TestBlindSetCheckFlagsOnlyQuestionsAboutNamesGivenInFull(t *testing.T) {
	t.Parallel()
	breads := []string{"rye bread", "white bread", "bread knife"}
	which := &askonce.Question{Options: []string{"rye bread", "white bread"}, Reason: "target_action_ambiguous"}
	cases := []struct {
		goal string
		q    *askonce.Question
		want bool
	}{
		{"Get the rye bread and the white bread.", which, true},
		{"Wrap both rye breads and white breads.", which, true},
		{"Get the bread.", which, false},
		{"Get the rye bread and the bread knife.", which, false},
		{"Get the rye bread or the white bread.", &askonce.Question{Options: which.Options, Reason: "action_ambiguous"}, false},
	}
	for _, c := range cases {
		if got := namedInFull(blindItem{Goal: c.goal, Candidates: breads}, c.q); got != c.want {
			t.Errorf("%q asking %q: named in full = %v, want %v", c.goal, c.q.Options, got, c.want)
		}
	}
}
