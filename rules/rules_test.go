package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

// newInterpreter returns an Interpreter with the embedded profiles.
func newInterpreter(t testing.TB) *rules.Interpreter {
	t.Helper()
	in, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return in
}

// req builds a request; an answer turns the goal into the resolved prompt.
type req struct {
	profile   string
	goal      string
	answer    string
	directive string
	files     []string
	cands     []string
	schema    string
}

func (r req) request() *askonce.Request {
	prompt := r.goal
	if r.answer != "" {
		prompt = askonce.ResolvedPrompt(r.goal, r.answer)
	}
	q := &askonce.Request{Goal: r.goal, Prompt: prompt, Profile: r.profile, Directive: r.directive, Files: r.files, Candidates: r.cands, Attempt: 1}
	if r.schema != "" {
		q.SpecSchema = []byte(r.schema)
	}
	return q
}

// interpret runs r and checks what every output must satisfy: it parses,
// a plan validates, the output is deterministic and the usage is free.
func interpret(t *testing.T, in *rules.Interpreter, r req) *askonce.Outcome {
	t.Helper()
	res, err := in.Interpret(context.Background(), r.request())
	if err != nil {
		t.Fatalf("Interpret: %v", err)
	}
	again, err := in.Interpret(context.Background(), r.request())
	if err != nil || !bytes.Equal(res.Raw, again.Raw) {
		t.Fatalf("output is not deterministic:\n%s\n%s", res.Raw, again.Raw)
	}
	if res.Usage != (askonce.Usage{}) {
		t.Errorf("usage = %+v, want none: no model is called", res.Usage)
	}
	o, err := askonce.ParseOutcome(res.Raw)
	if err != nil {
		t.Fatalf("ParseOutcome: %v\n%s", err, res.Raw)
	}
	if handed := res.Outcome; handed == nil || handed.Check() != nil || !reflect.DeepEqual(handed, o) {
		t.Fatalf("the outcome handed over is not Raw parsed:\n%+v\n%+v", handed, o)
	}
	if o.Title == "" || len([]rune(o.Title)) > askonce.MaxTitle {
		t.Errorf("title %q", o.Title)
	}
	if o.Plan != nil {
		if errs := o.Plan.Validate([]byte(r.schema)); len(errs) > 0 {
			t.Fatalf("plan does not validate: %v\n%s", errs, res.Raw)
		}
	}
	if o.Plan == nil && r.directive != "" {
		t.Fatalf("asked under a directive:\n%s", res.Raw)
	}
	t.Logf("%s", res.Raw)
	return o
}

type check func(t *testing.T, o *askonce.Outcome)

// asks wants a question of type typ with these options (none: any).
func asks(typ askonce.QuestionType, reason string, options ...string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		q := o.Question
		if q == nil {
			t.Fatalf("want a %s question, got a plan", typ)
		}
		if q.Type != typ || q.Reason != reason {
			t.Errorf("question %s/%s, want %s/%s", q.Type, q.Reason, typ, reason)
		}
		if len(options) > 0 && !slices.Equal(q.Options, options) {
			t.Errorf("options %q, want %q", q.Options, options)
		}
	}
}

func cosmetic(want bool) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Question == nil || o.Question.Cosmetic != want {
			t.Errorf("cosmetic = %v, want %v", o.Question != nil && o.Question.Cosmetic, want)
		}
	}
}

// defaults wants the question's default, "" for none.
func defaults(want string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Question == nil || o.Question.Default != want {
			t.Errorf("default = %+v, want %q", o.Question, want)
		}
	}
}

func plans() check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Plan == nil {
			t.Fatalf("want a plan, got question %+v", o.Question)
		}
	}
}

// spec wants the spec value at a dotted path.
func spec(path, want string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Plan == nil {
			t.Fatalf("want a plan, got question %+v", o.Question)
		}
		var v any
		if err := json.Unmarshal(o.Plan.Spec, &v); err != nil {
			t.Fatal(err)
		}
		for _, k := range strings.Split(path, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		if got, _ := json.Marshal(v); string(got) != want && v != want {
			t.Errorf("spec %s = %s, want %s", path, got, want)
		}
	}
}

// assumes wants an assumption containing each of the substrings.
func assumes(subs ...string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Plan == nil {
			t.Fatalf("want a plan, got question %+v", o.Question)
		}
		all := strings.Join(o.Plan.Assumptions, "\n")
		for _, s := range subs {
			if !strings.Contains(all, s) {
				t.Errorf("assumptions %q lack %q", o.Plan.Assumptions, s)
			}
		}
	}
}

func noAssumptions() check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Plan == nil || len(o.Plan.Assumptions) > 0 {
			t.Errorf("want a plan without assumptions, got %+v", o.Plan)
		}
	}
}

// text wants the plan's task text to hold every "+word" and none of the
// "-word" fragments.
func text(frags ...string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Plan == nil {
			t.Fatalf("want a plan, got question %+v", o.Question)
		}
		var b strings.Builder
		for _, task := range o.Plan.Tasks {
			b.WriteString(task.Title + "\n" + task.Instruction + "\n")
		}
		all := strings.ToLower(b.String())
		for _, f := range frags {
			want, s := f[0] == '+', strings.ToLower(f[1:])
			if strings.Contains(all, s) != want {
				t.Errorf("tasks contain %q = %v, want %v:\n%s", s, !want, want, all)
			}
		}
	}
}

// binds wants the spec's bindings, as "mention=candidate" strings in
// order, each naming a task.
func binds(want ...string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Plan == nil {
			t.Fatalf("want a plan, got question %+v", o.Question)
		}
		var spec struct {
			Bindings []struct{ Task, Mention, Candidate string }
		}
		if err := json.Unmarshal(o.Plan.Spec, &spec); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range spec.Bindings {
			if b.Task == "" {
				t.Errorf("binding %+v names no task", b)
			}
			got = append(got, b.Mention+"="+b.Candidate)
		}
		if !slices.Equal(got, want) {
			t.Errorf("bindings %q, want %q", got, want)
		}
	}
}

// deps wants the tasks' ids and dependencies, as "id:dep,dep" strings.
func deps(want ...string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Plan == nil {
			t.Fatalf("want a plan, got question %+v", o.Question)
		}
		var got []string
		for _, task := range o.Plan.Tasks {
			got = append(got, task.ID+":"+strings.Join(task.DependsOn, ","))
		}
		if !slices.Equal(got, want) {
			t.Errorf("tasks %q, want %q", got, want)
		}
	}
}

func questionText(frag string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Question == nil || !strings.Contains(o.Question.Text, frag) {
			t.Errorf("question %+v lacks %q", o.Question, frag)
		}
	}
}

const envSchema = `{"type": "object", "required": ["environment"], "properties": {"environment": {"enum": ["staging", "production"]}}}`

func title(want string) check {
	return func(t *testing.T, o *askonce.Outcome) {
		t.Helper()
		if o.Title != want {
			t.Errorf("title %q, want %q", o.Title, want)
		}
	}
}

const (
	general   = "general"
	minecraft = "minecraft-mod"
	fallback  = askonce.FallbackDirective
	gating    = askonce.GatingDirective
)

func TestInterpret(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	hotCold := asks(askonce.QuestionSelectOne, "scope_unclear", "hot", "frozen")
	confirm := asks(askonce.QuestionConfirm, "target_file_exists", "yes", "no")
	cases := []struct {
		name   string
		req    req
		checks []check
	}{
		// Contradictions.
		{"hot frozen cheese asks SELECT_ONE under general", req{goal: "hot frozen cheese"},
			[]check{hotCold, cosmetic(false), defaults("")}},
		{"hot frozen cheese asks SELECT_ONE under minecraft-mod, cosmetic", req{profile: minecraft, goal: "hot frozen cheese"},
			[]check{hotCold, cosmetic(true)}},
		{"empty profile is general", req{profile: "", goal: "hot frozen cheese"}, []check{hotCold, cosmetic(false)}},
		{"profile alias selects minecraft-mod", req{profile: "Minecraft", goal: "hot frozen cheese"}, []check{cosmetic(true)}},
		{"answer hot plans a hot cheese", req{goal: "hot frozen cheese", answer: "hot"},
			[]check{spec("attributes.temperature", "hot"), text("+hot frozen cheese"), noAssumptions(), title("Hot cheese")}},
		{"answer hot plans a hot cheese block under minecraft-mod", req{profile: minecraft, goal: "hot frozen cheese", answer: "hot"},
			[]check{spec("properties.temperature", "hot"), spec("kind", "block"), spec("name", "Hot Cheese"), title("Hot cheese block")}},
		{"answer that settles nothing asks the same question again", req{goal: "hot frozen cheese", answer: "banana"},
			[]check{hotCold}},
		{"answer that settles nothing asks again under minecraft-mod", req{profile: minecraft, goal: "hot frozen cheese", answer: "banana"},
			[]check{hotCold, cosmetic(true)}},
		{"an answer with a typo settles nothing: the question stands", req{goal: "hot frozen cheese", answer: "frozn"}, []check{hotCold}},
		{"answer frozen plans a frozen cheese block under minecraft-mod", req{profile: minecraft, goal: "hot frozen cheese", answer: "frozen"},
			[]check{spec("properties.temperature", "frozen"), title("Frozen cheese block")}},
		{"answer naming a side the goal did not mention settles it", req{goal: "hot frozen cheese", answer: "warm"},
			[]check{spec("attributes.temperature", "warm")}},
		{"answer rejecting one side picks the other", req{goal: "hot frozen cheese", answer: "not hot"},
			[]check{spec("attributes.temperature", "frozen")}},
		{"a misspelt side is no side: no contradiction is guessed", req{goal: "hot frozn cheese"}, []check{plans()}},
		{"directive without an answer takes the first-mentioned side", req{goal: "hot frozen cheese", directive: fallback},
			[]check{spec("attributes.temperature", "hot"), assumes(`“hot”`, "mentioned first")}},
		{"directive takes the functional side", req{goal: "a hot block that freezes water", directive: fallback},
			[]check{spec("attributes.temperature", "frozen"), assumes(`“frozen”`, "functional", "that freezes"), text("+a hot block that freezes water")}},
		{"directive takes the functional side under minecraft-mod", req{profile: minecraft, goal: "a hot block that freezes water", directive: fallback},
			[]check{spec("properties.temperature", "frozen"), assumes("functional", "cosmetic"), title("Frozen block")}},
		{"gating directive resolves a cosmetic conflict and records it", req{profile: minecraft, goal: "hot frozen cheese block", directive: gating},
			[]check{spec("properties.temperature", "hot"), assumes("temperature, a cosmetic detail", `assumed “hot”`), title("Hot cheese block")}},
		{"directive after an answer that settles nothing", req{goal: "hot frozen cheese", answer: "banana", directive: fallback},
			[]check{spec("attributes.temperature", "hot"), assumes("mentioned first")}},
		{"directive with a settling answer needs no assumption", req{goal: "hot frozen cheese", answer: "frozen", directive: fallback},
			[]check{spec("attributes.temperature", "frozen"), noAssumptions()}},
		{"size contradiction asks", req{goal: "a tiny giant robot"}, []check{asks(askonce.QuestionSelectOne, "scope_unclear", "tiny", "giant")}},
		{"state contradiction with three sides", req{goal: "make the water liquid, solid and gas"},
			[]check{asks(askonce.QuestionSelectOne, "scope_unclear", "liquid", "solid", "gas")}},
		{"negated side is no contradiction", req{goal: "a hot drink, not cold"}, []check{spec("attributes.temperature", "hot")}},
		{"minecraft liquid vs solid is functional, not cosmetic", req{profile: minecraft, goal: "a liquid solid cheese block"},
			[]check{asks(askonce.QuestionSelectOne, "scope_unclear", "liquid", "solid"), cosmetic(false)}},
		{"minecraft functional conflicts are asked before cosmetic ones", req{profile: minecraft, goal: "a hot frozen liquid solid block"},
			[]check{asks(askonce.QuestionSelectOne, "scope_unclear", "liquid", "solid"), cosmetic(false)}},
		{"minecraft edible vs machine is functional", req{profile: minecraft, goal: "an edible machine"},
			[]check{asks(askonce.QuestionSelectOne, "scope_unclear", "edible", "machine"), cosmetic(false)}},
		{"minecraft block vs armor is functional", req{profile: minecraft, goal: "a wearable block"},
			[]check{asks(askonce.QuestionSelectOne, "scope_unclear", "wearable", "block"), cosmetic(false)}},
		{"Japanese contradiction asks", req{goal: "熱い凍ったチーズ"}, []check{asks(askonce.QuestionSelectOne, "scope_unclear", "熱い", "凍った")}},
		{"Japanese answer settles it", req{goal: "熱い凍ったチーズ", answer: "熱い"}, []check{spec("attributes.temperature", "熱い"), text("+熱い凍ったチーズ")}},

		// Whole tokens only.
		{"could is not cold", req{goal: "could you make the soup hot"}, []check{spec("attributes.temperature", "hot")}},
		{"could is not cold under minecraft-mod", req{profile: minecraft, goal: "a hot block I could place anywhere"},
			[]check{spec("properties.temperature", "hot")}},
		{"scold is not cold", req{goal: "scold the hot oven"}, []check{spec("attributes.temperature", "hot")}},
		{"world stays world", req{profile: minecraft, goal: "a tiny ore that spawns all over the world"},
			[]check{spec("properties.size", "tiny"), title("Tiny ore")}},
		{"notes.md does not count as no", req{goal: "delete the cache", answer: "notes.md"}, []check{confirm}},
		{"notes.md in a goal is no answer and no question", req{goal: "summarise notes.md for the team"}, []check{plans()}},
		{"or inside words is no alternative", req{goal: "write the order form for the editor"}, []check{plans(), noAssumptions()}},
		{"hotel is not hot", req{goal: "book a hotel near the ice rink"}, []check{spec("attributes.temperature", "ice")}},

		// Destructive actions.
		{"destructive action asks CONFIRM with default no", req{goal: "delete notes.md and update the readme"},
			[]check{confirm, defaults("no")}},
		{"force push asks CONFIRM", req{goal: "git push --force to main"}, []check{confirm}},
		{"rm -rf asks CONFIRM", req{goal: "rm -rf build and rebuild"}, []check{confirm}},
		{"Japanese delete asks CONFIRM", req{goal: "ログを削除して"}, []check{confirm}},
		{"negated destructive word does not ask", req{goal: "don't delete anything, just summarise notes.md"}, []check{plans()}},
		{"yes keeps the destructive step", req{goal: "delete notes.md and update the readme", answer: "yes"},
			[]check{text("+delete notes.md", "+update the readme"), spec("destructive.confirmed", "true"), noAssumptions()}},
		{"no skips the destructive step and says so", req{goal: "delete notes.md and update the readme", answer: "no"},
			[]check{text("-delete", "+update the readme"), spec("destructive.confirmed", "false"), assumes("Skipped", "delete notes.md", "declined")}},
		{"directive skips an unconfirmed destructive step", req{goal: "delete notes.md", directive: fallback},
			[]check{text("-delete notes.md", "+no destructive change"), assumes("Skipped", "explicit yes")}},

		{"yes, no, wait does not confirm", req{goal: "delete notes.md", answer: "yes, no, wait"}, []check{confirm}},
		{"a negated destructive command plans", req{goal: "don't delete notes.md, just summarise it"}, []check{plans(), noAssumptions()}},
		{"a topic is no destructive command", req{goal: "write a blog post about why you deleted your account"}, []check{plans(), noAssumptions()}},

		// Choices.
		{"a choice as the object of the command asks SELECT_ONE", req{goal: "deploy to staging or production"},
			[]check{asks(askonce.QuestionSelectOne, "action_ambiguous", "staging", "production"), defaults("")}},
		{"options are the user's whole phrases", req{goal: "read George R.R. Martin or Robert Jordan"},
			[]check{asks(askonce.QuestionSelectOne, "action_ambiguous", "George R.R. Martin", "Robert Jordan")}},
		{"a substitution is no choice", req{goal: "use olive oil or butter"}, []check{plans(), noAssumptions()}},
		{"the answer picks the option", req{goal: "deploy to staging or production", answer: "production"},
			[]check{text("+deploy to staging or production"), spec("choices", `["production"]`), binds("staging or production=production")}},
		{"a directive after an answer that settled nothing says so", req{goal: "hot frozen cheese", answer: "banana", directive: fallback},
			[]check{plans(), assumes("“banana” did not settle it; decided by rule")}},
		{"a directive takes the first option", req{goal: "deploy to staging or production", directive: fallback},
			[]check{text("+deploy to staging or production"), spec("choices", `["staging"]`), assumes(`“staging” or “production”`, "first option")}},
		{"X or Y or Z gives three options", req{goal: "deploy to aws or gcp or azure"},
			[]check{asks(askonce.QuestionSelectOne, "action_ambiguous", "aws", "gcp", "azure")}},
		{"a user's own question is not handed back", req{goal: "Is Postgres or MySQL faster?"}, []check{plans(), noAssumptions()}},
		{"a question that asks the agent to decide is the user's own, not handed back", req{goal: "Should we use Postgres or MySQL?"}, []check{plans(), noAssumptions()}},
		{"a question that asks for advice on a destructive act is no destructive command", req{goal: "Should I delete the old branches?"}, []check{plans()}},
		{"more or less is no choice", req{goal: "center the logo more or less"}, []check{plans()}},
		{"a serving suggestion is no choice, nor a contradiction", req{goal: "serve hot or cold tea"}, []check{plans(), noAssumptions()}},

		// Candidates.
		{"a reference that fits two candidates asks SELECT_ONE", req{goal: "use the pepper", cands: []string{"black pepper", "bell pepper"}},
			[]check{asks(askonce.QuestionSelectOne, "target_action_ambiguous", "black pepper", "bell pepper"), defaults("")}},
		{"a reference that names a candidate plans", req{goal: "use the black pepper", cands: []string{"black pepper", "bell pepper"}},
			[]check{plans(), noAssumptions(), text("+use the black pepper")}},
		{"the answer names the candidate in the plan", req{goal: "use the pepper", answer: "bell", cands: []string{"black pepper", "bell pepper"}},
			[]check{text("+use the pepper", "-bell"), binds("pepper=bell pepper"), noAssumptions()}},
		{"one fitting candidate is used without asking and named", req{goal: "use the pepper", cands: []string{"black pepper", "olive oil"}},
			[]check{text("+use the pepper", "-black"), binds("pepper=black pepper"), noAssumptions()}},
		{"a universal quantifier means every fitting candidate, named in the plan", req{goal: "use every pepper", cands: []string{"black pepper", "bell pepper"}},
			[]check{text("+use every pepper"), binds("pepper=black pepper", "pepper=bell pepper"), assumes("“pepper” to mean all of “black pepper” and “bell pepper”")}},
		{"a directive takes the first candidate", req{goal: "use the pepper", directive: fallback, cands: []string{"black pepper", "bell pepper"}},
			[]check{text("+use the pepper", "-black"), binds("pepper=black pepper"), assumes("“pepper”", "“black pepper”")}},
		{"a stray CJK character keeps the question English", req{goal: "use the pepper 胡", cands: []string{"black pepper", "bell pepper"}},
			[]check{asks(askonce.QuestionSelectOne, "target_action_ambiguous", "black pepper", "bell pepper"), questionText("Which “pepper” is meant")}},
		{"a Japanese goal asks in Japanese", req{goal: "胡椒を使って", cands: []string{"黒胡椒", "白胡椒"}},
			[]check{asks(askonce.QuestionSelectOne, "target_action_ambiguous", "黒胡椒", "白胡椒"), questionText("「胡椒」は")}},

		// Target file.
		{"the file with several candidates asks TARGET_FILE", req{goal: "summarise the file", files: []string{"a.md", "docs/b.md"}},
			[]check{asks(askonce.QuestionTargetFile, "target_file_ambiguous", "a.md", "docs/b.md"), defaults("")}},
		{"the file with one candidate uses it", req{goal: "summarise this file", files: []string{"a.md"}},
			[]check{spec("target", "a.md"), text("+summarise this file", "-a.md"), binds("file=a.md")}},
		{"the file named in the goal needs no question", req{goal: "open b.md and summarise the file", files: []string{"a.md", "docs/b.md"}},
			[]check{spec("target", "docs/b.md"), noAssumptions()}},
		{"target file answer picks it", req{goal: "summarise the file", answer: "docs/b.md", files: []string{"a.md", "docs/b.md"}},
			[]check{spec("target", "docs/b.md")}},
		{"target file under a directive takes the first", req{goal: "summarise that file", directive: fallback, files: []string{"a.md", "docs/b.md"}},
			[]check{spec("target", "a.md"), assumes("first candidate")}},
		{"the file without candidates plans", req{goal: "summarise the file"}, []check{plans()}},
		{"a target file answer with ./ is cleaned", req{goal: "summarise the file", answer: "./docs/b.md", files: []string{"a.md", "docs/b.md"}},
			[]check{spec("target", "docs/b.md")}},
		{"a target file answer with ../ that stays inside the project is cleaned", req{goal: "summarise the file", answer: "docs/../notes/c.md", files: []string{"a.md", "docs/b.md"}},
			[]check{spec("target", "notes/c.md")}},
		{"a boolean field asks CONFIRM without a default", req{goal: "migrate the users", schema: `{"type": "object", "required": ["dryRun"], "properties": {"dryRun": {"type": "boolean"}}}`},
			[]check{asks(askonce.QuestionConfirm, "missing_required_info", "yes", "no"), defaults("")}},

		// Spec schema.
		{"a required enum field the goal leaves open asks SELECT_ONE", req{goal: "ship the release", schema: envSchema},
			[]check{asks(askonce.QuestionSelectOne, "missing_required_info", "staging", "production")}},
		{"the answer lands in the spec", req{goal: "ship the release", answer: "production", schema: envSchema},
			[]check{spec("environment", "production")}},

		// Vague goals are the opt-in vague check's, not the general profile's.
		{"fix it plans under general", req{goal: "fix it"}, []check{plans()}},
		{"make a mod is vague under minecraft-mod", req{profile: minecraft, goal: "make a mod"}, []check{asks(askonce.QuestionFreeText, "missing_required_info")}},
		{"free text answer names the minecraft thing", req{profile: minecraft, goal: "make a mod", answer: "a glowing red lamp block that is unbreakable"},
			[]check{spec("properties.colour", "red"), spec("properties.hardness", "unbreakable"), spec("properties.light", "glowing"), title("Glowing red lamp block")}},

		// Plans.
		{"numbered list gives chained tasks after the line that introduces it", req{goal: "Set up the project:\n1. create the repo\n2) add a README\n3. write the CI config"},
			[]check{deps("t1:", "t2:t1", "t3:t2", "t4:t3"), title("Set up the project"), text("+set up the project:", "+create the repo", "+add a readme", "+write the ci config")}},
		{"then splits steps", req{goal: "run the tests, then fix the failures and then open a pull request"},
			[]check{deps("t1:", "t2:t1", "t3:t2"), text("+run the tests", "+fix the failures", "+open a pull request")}},
		{"sentences are steps", req{goal: "Write the migration. Apply it to staging! Check the logs."},
			[]check{deps("t1:", "t2:t1", "t3:t2")}},
		{"parallel cue shares dependencies", req{goal: "Build the frontend. In parallel, build the backend. Then deploy both."},
			[]check{deps("t1:", "t2:", "t3:t1,t2")}},
		{"single step plan", req{goal: "write unit tests for the tokenizer"}, []check{deps("t1:"), noAssumptions(), title("Write unit tests for the tokenizer")}},
		{"minecraft plan is a DAG, not a chain", req{profile: minecraft, goal: "a glowing green emerald ore"},
			[]check{deps("spec:", "texture:spec", "model:spec", "register:model,texture", "lang:register", "recipe:register", "loot:register", "test:lang,loot,recipe"),
				spec("kind", "block"), spec("properties.colour", "green"), title("Glowing green emerald ore")}},
		{"minecraft food plan has food values", req{profile: minecraft, goal: "a hot edible cheese snack"},
			[]check{spec("kind", "food"), text("+food values"), spec("properties.temperature", "hot")}},
		{"minecraft fluid plan has a bucket and no loot table", req{profile: minecraft, goal: "a glowing liquid"},
			[]check{spec("kind", "fluid"), text("+bucket", "-loot table")}},
		{"minecraft default kind is recorded", req{profile: minecraft, goal: "hot cheese"},
			[]check{spec("kind", "block"), assumes("No kind was named")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := interpret(t, in, tc.req)
			for _, c := range tc.checks {
				c(t, o)
			}
		})
	}
}

// With two answer sections (the fallback re-run after an answer that
// settled nothing), the last one counts.
func TestTheLastAnswerSectionCounts(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	goal := "deploy to staging or production"
	res, err := in.Interpret(context.Background(), &askonce.Request{Goal: goal, Prompt: askonce.ResolvedPrompt(askonce.ResolvedPrompt(goal, "staging"), "production"), Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Outcome
	text("+deploy to staging or production")(t, o)
	spec("choices", `["production"]`)(t, o)
}

func TestAnswerThatSettlesNothingRepeatsTheQuestionText(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	for _, profile := range []string{general, minecraft} {
		first := interpret(t, in, req{profile: profile, goal: "hot frozen cheese"})
		again := interpret(t, in, req{profile: profile, goal: "hot frozen cheese", answer: "banana"})
		if first.Question == nil || again.Question == nil || askonce.QuestionHash(first.Question.Text) != askonce.QuestionHash(again.Question.Text) {
			t.Errorf("%s: the repeated question differs: %+v vs %+v", profile, first.Question, again.Question)
		}
	}
}

func TestUnknownProfileIsAnError(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	_, err := in.Interpret(context.Background(), &askonce.Request{Prompt: "hot frozen cheese", Profile: "nope"})
	if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v, want EINVALID naming the profile", err)
	}
	if in.HasProfile("nope") || !in.HasProfile("") || !in.HasProfile(minecraft) {
		t.Error("HasProfile is wrong")
	}
}

func TestInterpretRejectsNilRequestAndDoneContext(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	if _, err := in.Interpret(context.Background(), nil); err == nil {
		t.Error("nil request: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := in.Interpret(ctx, &askonce.Request{Prompt: "write tests"}); err == nil {
		t.Error("done context: no error")
	}
}

func TestProfilesListsTheEmbeddedProfiles(t *testing.T) {
	t.Parallel()
	want := []string{general, minecraft}
	if got := newInterpreter(t).Profiles(); !slices.Equal(got, want) {
		t.Errorf("Interpreter.Profiles() = %q, want %q", got, want)
	}
	if rules.DefaultProfile != general {
		t.Errorf("DefaultProfile = %q", rules.DefaultProfile)
	}
}

const candyProfile = `{
  "name": "ignored-the-key-wins",
  "checks": ["contradiction", "vague"],
  "groups": [{"name": "taste", "sides": [
    {"name": "sweet", "words": ["sweet", "sugary"]},
    {"name": "sour", "words": ["sour", "tart"]}]}]
}`

func TestProfileFileReplacesAnEmbeddedProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "general.json")
	if err := os.WriteFile(file, []byte(candyProfile), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := rules.New(rules.Options{ProfileFiles: map[string]string{general: file, "candy": file}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if got := in.Profiles(); !slices.Equal(got, []string{"candy", general, minecraft}) {
		t.Errorf("Profiles() = %q", got)
	}
	o := interpret(t, in, req{goal: "a sweet sour candy"})
	asks(askonce.QuestionSelectOne, "scope_unclear", "sweet", "sour")(t, o)
	o = interpret(t, in, req{goal: "a sweet sour candy", answer: "sugary"})
	spec("attributes.taste", "sugary")(t, o)
	// The replaced profile no longer knows temperatures or destructive words.
	o = interpret(t, in, req{goal: "hot frozen cheese, delete the old one"})
	plans()(t, o)
	// The added profile works too, and minecraft-mod is untouched.
	asks(askonce.QuestionSelectOne, "scope_unclear", "tart", "sugary")(t, interpret(t, in, req{profile: "candy", goal: "tart sugary drops"}))
	cosmetic(true)(t, interpret(t, in, req{profile: minecraft, goal: "hot frozen cheese"}))
}

func TestLoadProfile(t *testing.T) {
	t.Parallel()
	p, err := rules.LoadProfile(strings.NewReader(strings.Replace(candyProfile, "ignored-the-key-wins", "candy", 1)))
	if err != nil {
		t.Fatalf("LoadProfile: %v", err)
	}
	in, err := rules.New(rules.Options{Profiles: []*rules.Profile{p}})
	if err != nil {
		t.Fatal(err)
	}
	asks(askonce.QuestionSelectOne, "scope_unclear", "sweet", "sour")(t, interpret(t, in, req{profile: "candy", goal: "sweet and sour"}))

	bad := []struct{ name, json string }{
		{"unknown key", `{"name": "x", "chekcs": []}`},
		{"a grammar list, which is closed.json's alone", `{"name": "x", "negations": ["nah"]}`},
		{"unknown check", `{"name": "x", "checks": ["mind-reading"]}`},
		{"one-sided group", `{"name": "x", "groups": [{"name": "g", "sides": [{"name": "a", "words": ["a1"]}]}]}`},
		{"word on two sides", `{"name": "x", "groups": [{"name": "g", "sides": [{"name": "a", "words": ["w"]}, {"name": "b", "words": ["w"]}]}]}`},
		{"no name", `{"checks": []}`},
		{"template without tasks", `{"name": "x", "planner": "template"}`},
		{"template with a cycle", `{"name": "x", "planner": "template", "tasks": [
			{"id": "a", "title": "A", "dependsOn": ["b"]}, {"id": "b", "title": "B", "dependsOn": ["a"]}]}`},
		{"template with a missing dependency", `{"name": "x", "planner": "template", "tasks": [{"id": "a", "title": "A", "dependsOn": ["z"]}]}`},
		{"unknown planner", `{"name": "x", "planner": "oracle"}`},
		{"not JSON", `name: x`},
	}
	for _, b := range bad {
		if _, err := rules.LoadProfile(strings.NewReader(b.json)); err == nil {
			t.Errorf("%s: no error", b.name)
		}
	}
	if _, err := rules.New(rules.Options{ProfileFiles: map[string]string{"x": filepath.Join(t.TempDir(), "missing.json")}}); err == nil {
		t.Error("missing profile file: no error")
	}
}

func TestEmbeddedProfilesLoadAsUserFiles(t *testing.T) {
	t.Parallel()
	for _, name := range []string{general, minecraft} {
		f, err := os.Open(filepath.Join("profiles", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := rules.LoadProfile(f)
		f.Close()
		if err != nil || p.Name != name {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The rules interpreter calls no model: no tokens, no cost, not words
// counted as tokens (the job page then says "no model tokens").
func TestUsageIsZeroWithoutAModel(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t)
	res, err := in.Interpret(context.Background(), &askonce.Request{Prompt: "write unit tests for notes.md"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage != (askonce.Usage{}) {
		t.Errorf("usage = %+v, want none", res.Usage)
	}
}

func BenchmarkInterpret(b *testing.B) {
	in := newInterpreter(b)
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		req  *askonce.Request
	}{
		{"plan", req{goal: "Set up the project:\n1. create the repo\n2. add a README, then write the CI config"}.request()},
		{"question", req{goal: "hot frozen cheese"}.request()},
		{"minecraft-plan", req{profile: minecraft, goal: "hot frozen cheese block", answer: "hot"}.request()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := in.Interpret(ctx, bc.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInterpretRoundTrip is the interpreter's share of the engine's
// clarification round trip (BenchmarkRoundTripClarification at the
// repository root): the goal, which asks, then the resolved prompt after
// the answer "hot", which plans, as Engine.plan passes them.
func BenchmarkInterpretRoundTrip(b *testing.B) {
	in := newInterpreter(b)
	ctx := context.Background()
	const goal = "hot frozen cheese"
	answer := askonce.TextAnswer("hot")
	ask := &askonce.Request{JobID: "bench", Goal: goal, Prompt: goal, Attempt: 1, Reason: askonce.ReasonInitial}
	plan := &askonce.Request{JobID: "bench", Goal: goal, Prompt: askonce.ResolvedPrompt(goal, answer.Prompt()), Answer: answer.JSON(), Attempt: 1, Reason: askonce.ReasonClarificationAnswer}
	b.ReportAllocs()
	for b.Loop() {
		if res, err := in.Interpret(ctx, ask); err != nil || res.Outcome.Question == nil {
			b.Fatalf("goal: %v", err)
		}
		if res, err := in.Interpret(ctx, plan); err != nil || res.Outcome.Plan == nil {
			b.Fatalf("answer: %v", err)
		}
	}
}

// FuzzInterpret checks that any prompt gives output that parses, and a
// plan that validates, under every profile, with and without a directive.
func FuzzInterpret(f *testing.F) {
	for _, s := range []string{
		"hot frozen cheese", "hot frozen cheese\n\nClarification Answer: frozen", "delete notes.md or not",
		"1. a\n2. b or c then d", "熱い凍ったチーズ、削除して", "the file or this file", "or or or", "- - -",
		"a hot block that freezes water, then rm -rf it", "\n\nClarification Answer: askonce.TextAnswer(",
		")use the pepper", "胡椒を使って", "put it on the table\n\nClarification Answer: Dining", "deploy to staging or production",
		"use the pepper (both)", "the bigger of the two peppers", "the pepper other than the bell one", "edit the file with the c", "take the pepper from the bag and grind it",
	} {
		f.Add(s, false, false)
	}
	in, err := rules.New(rules.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, prompt string, mod, directive bool) {
		r := &askonce.Request{Prompt: prompt, Files: []string{"a.md", "b/c.go", "docs/a.md"},
			Candidates: []string{"black pepper", "bell pepper", "DiningTable", "Apple_1", "黒胡椒", "白胡椒"}, SpecSchema: []byte(envSchema)}
		if mod {
			r.Profile = minecraft
		}
		if directive {
			r.Directive = fallback
		}
		res, err := in.Interpret(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		o, err := askonce.ParseOutcome(res.Raw)
		if err != nil {
			if !utf8.ValidString(prompt) {
				return // invalid UTF-8 in, invalid UTF-8 out
			}
			t.Fatalf("ParseOutcome: %v\n%s", err, res.Raw)
		}
		if o.Plan != nil {
			schema := r.SpecSchema
			if mod {
				schema = nil // the template planner does not read the schema
			}
			if errs := o.Plan.Validate(schema); len(errs) > 0 {
				t.Fatalf("plan does not validate: %v\n%s", errs, res.Raw)
			}
		} else if directive {
			t.Fatalf("asked under a directive:\n%s", res.Raw)
		}
	})
}
