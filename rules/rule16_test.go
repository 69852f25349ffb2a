package rules_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

// planSpec is what these tests read of the steps planner's spec.
type planSpec struct {
	Goal     string `json:"goal"`
	Bindings []struct {
		Task, Mention, Candidate string
	} `json:"bindings"`
	Destructive *struct{} `json:"destructive"`
}

// fataler is what testing.T and rapid.T share.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func specOf(t fataler, p *askonce.Plan) planSpec {
	t.Helper()
	var s planSpec
	if err := json.Unmarshal(p.Spec, &s); err != nil {
		t.Fatalf("spec %s: %v", p.Spec, err)
	}
	return s
}

func taskTexts(p *askonce.Plan) []string {
	var out []string
	for _, task := range p.Tasks {
		out = append(out, task.Instruction)
	}
	return out
}

// Rule 16: a task's text is a span of the goal exactly as written, cut
// only where a reader sees a step boundary; code-like text passes
// untouched; which candidate a mention means is recorded beside the
// text (spec.bindings); spec.goal is the goal as sent.
func TestRule16_PlansQuoteTheUser(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, tc := range []struct {
		goal  string
		cands []string
		tasks []string
		binds []string // mention=candidate@task
	}{
		{goal: "Run go vet ./... before every release", tasks: []string{"Run go vet ./... before every release"}},
		{goal: "Build the site, then copy ./build/*.css to the cdn folder.",
			tasks: []string{"Build the site,", "then copy ./build/*.css to the cdn folder."}},
		{goal: "Fix the bug in the parser, i.e. lib/util.py, and add a test.",
			tasks: []string{"Fix the bug in the parser, i.e. lib/util.py, and add a test."}},
		{goal: "Upgrade to v1.2.3, e.g. with `go get example.com/m@v1.2.3`. Then check https://example.com/a.b?c=d.",
			tasks: []string{"Upgrade to v1.2.3, e.g. with `go get example.com/m@v1.2.3`.", "Then check https://example.com/a.b?c=d."}},
		{goal: "Set FOO=bar; run make test -j4 and then open docs/index.html",
			tasks: []string{"Set FOO=bar;", "run make test -j4", "and then open docs/index.html"}},
		{goal: "read George R.R. Martin's book. Mail it to Ursula K. Le Guin.",
			tasks: []string{"read George R.R. Martin's book.", "Mail it to Ursula K. Le Guin."}},
		{goal: "If the tests pass, then deploy it.", tasks: []string{"If the tests pass, then deploy it."}},
		{goal: "  Pour the olive oil into the pan.\n", cands: []string{"olive oil", "sunflower oil", "pan"},
			tasks: []string{"Pour the olive oil into the pan."}, binds: []string{"olive oil=olive oil@t1", "pan=pan@t1"}},
		{goal: "Eat the maple bar.", cands: []string{"maple bar", "maple energy bar"},
			tasks: []string{"Eat the maple bar."}, binds: []string{"maple bar=maple bar@t1"}},
		{goal: "Heat the cinnamon sugar donut.", cands: []string{"cinnamon sugar donut", "glazed donut"},
			tasks: []string{"Heat the cinnamon sugar donut."}, binds: []string{"cinnamon sugar donut=cinnamon sugar donut@t1"}},
		{goal: "Take the cheddar cheese out, then slice the cheese.", cands: []string{"cheddar cheese", "brie cheese"},
			tasks: []string{"Take the cheddar cheese out,", "then slice the cheese."}, binds: []string{"cheddar cheese=cheddar cheese@t1", "cheese=cheddar cheese@t2"}},
		{goal: "Grab the red mug and the blue mug, then wash them. Dry it.", cands: []string{"red mug", "blue mug"},
			tasks: []string{"Grab the red mug and the blue mug,", "then wash them.", "Dry it."},
			binds: []string{"red mug=red mug@t1", "blue mug=blue mug@t1", "them=red mug@t2", "them=blue mug@t2"}}, // "it" fits two: no binding
		{goal: "use the pepper", cands: []string{"black pepper", "olive oil"},
			tasks: []string{"use the pepper"}, binds: []string{"pepper=black pepper@t1"}},
		// A pronoun binds the one candidate the command before it acts on,
		// never a place something is taken out of, nor a thing that is
		// no candidate.
		{goal: "take the oat milk out of the fridge and pour it into the glass", cands: []string{"oat milk", "fridge", "glass"},
			tasks: []string{"take the oat milk out of the fridge and pour it into the glass"},
			binds: []string{"oat milk=oat milk@t1", "fridge=fridge@t1", "it=oat milk@t1", "glass=glass@t1"}},
		{goal: "Season the chicken, then bake it.", cands: []string{"chicken", "roasting pan", "lasagna", "oven"},
			tasks: []string{"Season the chicken,", "then bake it."}, binds: []string{"chicken=chicken@t1", "it=chicken@t2"}},
		{goal: "Season the chicken in the roasting pan and bake it.", cands: []string{"chicken", "roasting pan", "lasagna", "oven"},
			tasks: []string{"Season the chicken in the roasting pan and bake it."},
			binds: []string{"chicken=chicken@t1", "roasting pan=roasting pan@t1"}},
		{goal: "Open the fridge, take out the milk and drink it.", cands: []string{"fridge", "glass"},
			tasks: []string{"Open the fridge, take out the milk and drink it."}, binds: []string{"fridge=fridge@t1"}},
		{goal: "Take the butter out of the fridge and close it.", cands: []string{"butter", "fridge"},
			tasks: []string{"Take the butter out of the fridge and close it."}, binds: []string{"butter=butter@t1", "fridge=fridge@t1"}},
		{goal: "Take out the cheddar.", cands: []string{"cheddar cheese", "brie cheese"}, tasks: []string{"Take out the cheddar."}, binds: []string{"cheddar=cheddar cheese@t1"}},
		{goal: "Use the oat milk, not the whole milk; then heat the milk.", cands: []string{"oat milk", "whole milk"},
			tasks: []string{"Use the oat milk, not the whole milk;", "then heat the milk."}, binds: []string{"oat milk=oat milk@t1", "whole milk=whole milk@t1", "milk=oat milk@t2"}}, // a negated mention is no antecedent
		{goal: "Move the chairs away from the table and vacuum under it.", cands: []string{"chair", "table"},
			tasks: []string{"Move the chairs away from the table and vacuum under it."}, binds: []string{"chairs=chair@t1", "table=table@t1"}}, // "it" is not the chairs
		{goal: "Pour the soup into the bowls and serve them.", cands: []string{"soup", "bowl"},
			tasks: []string{"Pour the soup into the bowls and serve them."}, binds: []string{"soup=soup@t1", "bowls=bowl@t1"}}, // "them" is not the soup
		{goal: "Put the apples in the bowl and wash them.", cands: []string{"apple", "bowl"},
			tasks: []string{"Put the apples in the bowl and wash them."}, binds: []string{"apples=apple@t1", "bowl=bowl@t1", "them=apple@t1"}},
		{goal: "Take the mug from the table in the kitchen.", cands: []string{"KitchenTable", "PatioTable", "Mug"},
			tasks: []string{"Take the mug from the table in the kitchen."}, binds: []string{"mug=Mug@t1", "table=KitchenTable@t1"}}, // the kitchen is the room
		{goal: "Microwave the soup.", cands: []string{"microwave", "soup"}, tasks: []string{"Microwave the soup."}, binds: []string{"soup=soup@t1"}},
		{goal: "Put away:\n- eggs in the fridge\n- rice in the pantry", cands: []string{"eggs", "rice", "fridge", "pantry"},
			tasks: []string{"Put away:", "eggs in the fridge", "rice in the pantry"}, binds: []string{"eggs=eggs@t2", "fridge=fridge@t2", "rice=rice@t3", "pantry=pantry@t3"}},
		{goal: "Rinse the red mug, then dry the other mug.", cands: []string{"red mug", "blue mug"},
			tasks: []string{"Rinse the red mug,", "then dry the other mug."}, binds: []string{"red mug=red mug@t1", "mug=blue mug@t2"}},
		{goal: "Put the dish in the oven and turn it on.", cands: []string{"baking dish", "oven"},
			tasks: []string{"Put the dish in the oven and turn it on."}, binds: []string{"dish=baking dish@t1", "oven=oven@t1"}},
	} {
		t.Run(tc.goal, func(t *testing.T) {
			t.Parallel()
			o := interpret(t, in, req{goal: tc.goal, cands: tc.cands})
			if o.Plan == nil {
				t.Fatalf("want a plan, got %+v", o.Question)
			}
			if got := taskTexts(o.Plan); !slices.Equal(got, tc.tasks) {
				t.Errorf("tasks %q, want %q", got, tc.tasks)
			}
			s := specOf(t, o.Plan)
			if s.Goal != strings.TrimSpace(tc.goal) {
				t.Errorf("spec.goal %q, want the goal as sent", s.Goal)
			}
			var got []string
			for _, b := range s.Bindings {
				got = append(got, b.Mention+"="+b.Candidate+"@"+b.Task)
			}
			if !slices.Equal(got, tc.binds) {
				t.Errorf("bindings %q, want %q", got, tc.binds)
			}
		})
	}
}

// asJSON is s as a JSON string carries it.
func asJSON(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// squeeze is s without white space: what a quote must keep byte for byte.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// checkQuotes checks a plan of goal against rule 16: its tasks, joined,
// are the goal's non-space text in order (nothing dropped, doubled or
// rewritten), spec.goal is the goal as sent, and every binding's mention
// stands in its task's text.
func checkQuotes(t fataler, goal string, p *askonce.Plan) {
	t.Helper()
	goal = asJSON(goal) // the spec is JSON: an invalid byte is U+FFFD there
	s := specOf(t, p)
	if s.Goal != strings.TrimSpace(goal) {
		t.Fatalf("spec.goal %q, want %q", s.Goal, strings.TrimSpace(goal))
	}
	if s.Destructive != nil || strings.TrimSpace(goal) == "" {
		return // an unconfirmed destructive action is cut out of its step
	}
	if got, want := squeeze(asJSON(strings.Join(taskTexts(p), ""))), squeeze(goal); got != want {
		t.Fatalf("tasks %q do not quote the goal %q", taskTexts(p), goal)
	}
	for _, b := range s.Bindings {
		i := slices.IndexFunc(p.Tasks, func(task askonce.Task) bool { return task.ID == b.Task })
		if i < 0 || !strings.Contains(strings.ToLower(p.Tasks[i].Instruction), strings.ToLower(b.Mention)) {
			t.Fatalf("binding %+v: the mention is not in its task's text %+v", b, p.Tasks)
		}
	}
	if got, want := taskBindings(p), specBindings(s); !slices.Equal(got, want) {
		t.Fatalf("the tasks' bindings %q differ from spec.bindings %q", got, want)
	}
}

// taskBindings are the bindings the tasks hold, as mention=candidate@task.
func taskBindings(p *askonce.Plan) []string {
	var out []string
	for _, task := range p.Tasks {
		for _, b := range task.Bindings {
			out = append(out, b.Mention+"="+b.Candidate+"@"+task.ID)
		}
	}
	return out
}

// specBindings are spec.bindings as mention=candidate@task.
func specBindings(s planSpec) []string {
	var out []string
	for _, b := range s.Bindings {
		out = append(out, b.Mention+"="+b.Candidate+"@"+b.Task)
	}
	return out
}

// Rule 16: which candidate a mention means is recorded on the task whose
// text holds the mention, as well as in spec.bindings.
func TestRule16_TaskHoldsTheBindingsOfItsMentions(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, tc := range []struct {
		goal  string
		cands []string
		tasks [][]askonce.Binding
	}{
		{goal: "Pour the olive oil into the pan.", cands: []string{"olive oil", "sunflower oil", "pan"},
			tasks: [][]askonce.Binding{{{Mention: "olive oil", Candidate: "olive oil"}, {Mention: "pan", Candidate: "pan"}}}},
		{goal: "Wash the spoon. Then take the cheddar cheese out, then slice the cheese.", cands: []string{"cheddar cheese", "brie cheese"},
			tasks: [][]askonce.Binding{nil, {{Mention: "cheddar cheese", Candidate: "cheddar cheese"}}, {{Mention: "cheese", Candidate: "cheddar cheese"}}}},
		{goal: "use the pepper", cands: []string{"black pepper", "olive oil"},
			tasks: [][]askonce.Binding{{{Mention: "pepper", Candidate: "black pepper"}}}},
		{goal: "Wipe the table, then rinse the cloth.", tasks: [][]askonce.Binding{nil, nil}},
	} {
		t.Run(tc.goal, func(t *testing.T) {
			t.Parallel()
			o := interpret(t, in, req{goal: tc.goal, cands: tc.cands})
			if o.Plan == nil {
				t.Fatalf("want a plan, got %+v", o.Question)
			}
			if len(o.Plan.Tasks) != len(tc.tasks) {
				t.Fatalf("tasks %q, want %d", taskTexts(o.Plan), len(tc.tasks))
			}
			for i, task := range o.Plan.Tasks {
				if !slices.Equal(task.Bindings, tc.tasks[i]) {
					t.Errorf("task %s %q: bindings %+v, want %+v", task.ID, task.Instruction, task.Bindings, tc.tasks[i])
				}
			}
			if got, want := taskBindings(o.Plan), specBindings(specOf(t, o.Plan)); !slices.Equal(got, want) {
				t.Errorf("the tasks' bindings %q differ from spec.bindings %q", got, want)
			}
		})
	}
}

// Rule 16 as a property: over goals built from sentences, code-like spans
// and candidate names, joined at every kind of step boundary, the plan's
// tasks contain every non-space token of the goal in order, and no word
// more often than the goal has it.
func TestRule16_TasksQuoteEveryTokenOfGeneratedGoals(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	names := []string{"black pepper", "bell pepper", "rye bread", "white bread", "cream cheese", "steak knife", "lemon yogurt cup", "olive oil", "Mug_2", "DiningTable"}
	verbs := []string{"Run", "copy", "Bring", "use", "Take", "check", "build", "open", "slice", "move"}
	words := []string{"the", "a", "to", "with", "before", "every", "release", "folder", "cup", "of", "rice", "it", "then", "and", "or", "both", "e.g.", "i.e.", "hot", "frozen", "solid", "liquid"}
	code := []string{"./...", "./build/*.css", "lib/util.py", "v1.2.3", "FOO=bar", "-j4", "--verbose", "https://example.com/a.b?c=d", "`go test ./...`", `"quoted text"`, "a.b.c", "src/**/*.go", "$HOME/.config"}
	seps := []string{". ", "; ", ", then ", " and then ", "\n", " ", "! ", "? ", ", afterwards "}
	rapid.Check(t, func(rt *rapid.T) {
		var b strings.Builder
		n := rapid.IntRange(1, 5).Draw(rt, "sentences")
		for s := range n {
			if s > 0 {
				b.WriteString(rapid.SampledFrom(seps).Draw(rt, "sep"))
			}
			b.WriteString(rapid.SampledFrom(verbs).Draw(rt, "verb"))
			for range rapid.IntRange(1, 6).Draw(rt, "words") {
				b.WriteString(" ")
				switch rapid.IntRange(0, 2).Draw(rt, "kind") {
				case 0:
					b.WriteString(rapid.SampledFrom(words).Draw(rt, "word"))
				case 1:
					b.WriteString(rapid.SampledFrom(code).Draw(rt, "code"))
				default:
					b.WriteString(rapid.SampledFrom(names).Draw(rt, "name"))
				}
			}
		}
		if rapid.Bool().Draw(rt, "period") {
			b.WriteString(".")
		}
		goal := b.String()
		cands := rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, 5, rapid.ID[string]).Draw(rt, "candidates")
		res, err := in.Interpret(context.Background(), &askonce.Request{Goal: goal, Candidates: cands, Directive: askonce.FallbackDirective, Attempt: 1})
		if err != nil {
			rt.Fatal(err)
		}
		p := res.Outcome.Plan
		if p == nil {
			rt.Fatalf("a directive must plan %q", goal)
		}
		checkQuotes(rt, goal, p)
		joined := strings.Join(taskTexts(p), " ")
		for _, w := range strings.Fields(goal) {
			if strings.Count(joined, w) > strings.Count(goal, w) {
				rt.Fatalf("%q occurs more often in the tasks %q than in the goal %q", w, taskTexts(p), goal)
			}
		}
	})
}

// Bad input plans or asks without a panic and without dropping text:
// invalid UTF-8, control characters, unbalanced quotes and back-ticks,
// and candidate lists of near-identical names.
func FuzzRule16_BadInputPlansOrAsksWithoutDroppingText(f *testing.F) {
	for _, s := range []string{
		"delete \xff\xfe notes.md", "run `go vet ./...", "say \"hello and then stop", "copy 'a.txt to b/", "\x00\x01\x1b[31mred\x1b[0m then \u202eevil",
		"use the pepper\tthen\rthe peppers", "熱い凍ったチーズ。次にそれを`食べる", "1. a\n2. b\n- c", "...;;;!!!", "e.g. i.e. etc. v1.2. ./..",
		"Add this:\n```yaml\n- run: rm -rf x\n", "````md\n```go\nx\n```\n- a\n````\nthen b", "Put this in it:\n\tlint:\n\t\tgo vet ./...\nthen run", "Before:\r\n- a\r\n- b\r\n\r\nc.\r\n",
		"```\n```\n```", "- [ ] a\n    ```\n    b\n- c", "take it out of it and put it in it; close it",
		"Add to a.conf:\r\n  K v\r\n\t- x: y\r\n- z", "Add to ci.yml:\n- name: a b\n  run: c\n- d\nthen e", "Run:\n$\n$ a\n- $ b", "x.ini：\n[s]\nk = v\n=\n- :",
	} {
		f.Add(s, "pepper,peppers,Pepper,black pepper,black  pepper,black-pepper")
	}
	f.Add("put the chair at table 7 then the apple on it", "table 7,table 1,7,Apple_2,release-1.2,v1.2,-,_") // names with numbers, and of numbers or separators only
	in, err := rules.New(rules.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, goal, cands string) {
		res, err := in.Interpret(context.Background(), &askonce.Request{Goal: goal, Candidates: strings.Split(cands, ","), Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		if q := res.Outcome.Question; q != nil {
			if q.Text == "" || q.Type == askonce.QuestionSelectOne && len(q.Options) == 0 {
				t.Fatalf("question %+v", q)
			}
			return
		}
		checkQuotesAllButMarkers(t, goal, res.Outcome.Plan)
	})
}

// checkQuotesAllButMarkers is checkQuotes for a goal that may hold
// lists: the tasks, joined, are the goal's non-space text in order, but
// for list markers ("1.", "2)", "-", "*", "+", "•", "・") at the start of
// a line, which a plan may leave out.
func checkQuotesAllButMarkers(t fataler, goal string, p *askonce.Plan) {
	t.Helper()
	goal = asJSON(goal)
	if specOf(t, p).Destructive != nil || strings.TrimSpace(goal) == "" {
		checkQuotes(t, goal, p)
		return
	}
	got := []rune(squeeze(asJSON(strings.Join(taskTexts(p), ""))))
	k := 0
	lineStart := true
	for i := 0; i < len(goal); {
		r, n := utf8.DecodeRuneInString(goal[i:])
		switch {
		case r == '\n':
			lineStart = true
		case unicode.IsSpace(r):
		case lineStart && markerAt(goal[i:]) > 0 && !keptAt(got[k:], goal[i:], markerAt(goal[i:])):
			i += markerAt(goal[i:])
			lineStart = false
			continue
		case k < len(got) && got[k] == r:
			k++
			lineStart = false
		default:
			t.Fatalf("tasks %q drop %q at byte %d of the goal %q", taskTexts(p), r, i, goal)
		}
		i += n
	}
	if k != len(got) {
		t.Fatalf("tasks %q hold text the goal %q does not", taskTexts(p), goal)
	}
}

// keptAt reports whether got goes on with the list marker s[:m] and the
// text after it (a marker inside a code block is kept).
func keptAt(got []rune, s string, m int) bool {
	want := []rune(squeeze(s[:m]))
	if rest := []rune(squeeze(s[m:])); len(rest) > 0 {
		want = append(want, rest[0])
	}
	return len(got) >= len(want) && string(got[:len(want)]) == string(want)
}

// markerAt is the length of the list marker s opens with, or 0.
func markerAt(s string) int {
	d := len(s) - len(strings.TrimLeft(s, "0123456789"))
	for _, m := range []string{"•", "・"} {
		if strings.HasPrefix(s, m) {
			return len(m)
		}
	}
	spaced := func(k int) bool { return k == len(s) || s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r' }
	switch {
	case d > 0 && d < len(s) && (s[d] == '.' || s[d] == ')') && spaced(d+1):
		return d + 1
	case d == 0 && s != "" && strings.ContainsRune("-*+", rune(s[0])) && spaced(1):
		return 1
	}
	return 0
}
