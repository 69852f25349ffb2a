package askonce

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRule9_DAGRules(t *testing.T) {
	t.Parallel()
	task := func(id string, deps ...string) Task { return Task{ID: id, Title: id, DependsOn: deps} }
	cases := []struct {
		name  string
		plan  Plan
		wants []string
	}{
		{"Valid", Plan{Tasks: []Task{task("a"), task("b", "a"), task("c", "a", "b")}}, nil},
		{"NoTasks", Plan{}, []string{"no tasks"}},
		{"DuplicateID", Plan{Tasks: []Task{task("a"), task("a")}}, []string{`"a" is used by tasks 1 and 2`}},
		{"MissingDependency", Plan{Tasks: []Task{task("a", "zz")}}, []string{`depends on "zz"`}},
		{"Cycle", Plan{Tasks: []Task{task("a", "c"), task("b", "a"), task("c", "b")}}, []string{"dependency cycle: a -> c -> b -> a"}},
		{"SelfCycle", Plan{Tasks: []Task{task("a", "a")}}, []string{"dependency cycle: a -> a"}},
		{"EmptyID", Plan{Tasks: []Task{task("")}}, []string{"task 1 has no id"}},
		{"SpecNotObject", Plan{Spec: json.RawMessage(`[1]`), Tasks: []Task{task("a")}}, []string{"spec must be a JSON object"}},
		{"AllErrorsAtOnce", Plan{Tasks: []Task{task("a", "x"), task("a")}}, []string{"used by tasks", `depends on "x"`}},
	}
	for _, c := range cases {
		errs := c.plan.Validate(nil)
		if len(c.wants) == 0 && len(errs) > 0 {
			t.Errorf("%s: unexpected errors %v", c.name, errs)
		}
		joined := strings.Join(errs, "\n")
		for _, w := range c.wants {
			if !strings.Contains(joined, w) {
				t.Errorf("%s: errors %q lack %q", c.name, joined, w)
			}
		}
	}
}

func TestRule9_SpecSchema(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","required":["name","kind"],"additionalProperties":false,
		"properties":{"name":{"type":"string","minLength":1},"kind":{"enum":["block","item"]},"hardness":{"type":"number","minimum":0}}}`)
	p := Plan{Tasks: []Task{{ID: "a", Title: "a"}}}
	p.Spec = json.RawMessage(`{"name":"cheese","kind":"block","hardness":2}`)
	if errs := p.Validate(schema); len(errs) > 0 {
		t.Fatalf("valid spec rejected: %v", errs)
	}
	p.Spec = json.RawMessage(`{"kind":"food","hardness":-1,"colour":"red"}`)
	joined := strings.Join(p.Validate(schema), "\n")
	for _, w := range []string{`missing required property "name"`, "$.kind: value is not one of", "$.hardness: -1 is less than the minimum 0", `property "colour" is not allowed`} {
		if !strings.Contains(joined, w) {
			t.Errorf("errors %q lack %q", joined, w)
		}
	}
}

func TestParseOutcome(t *testing.T) {
	t.Parallel()
	good := []string{
		`{"plan":{"title":"T","tasks":[{"id":"a","title":"A"}]}}`,
		"```json\n{\"question\":{\"type\":\"FREE_TEXT\",\"text\":\"What?\"}}\n```",
		`{"clarification":{"reason":"target_file_exists","text":"Overwrite?"}}`,
	}
	for _, g := range good {
		if _, err := ParseOutcome([]byte(g)); err != nil {
			t.Errorf("ParseOutcome(%q): %v", g, err)
		}
	}
	bad := map[string]string{
		``:                          "empty",
		`not json`:                  "not a JSON object",
		`{"plan":{},"question":{}}`: "both",
		`{"title":"x"}`:             "neither",
		`{"plan":{"tasks":[]}} xx`:  "text after",
		"\xff":                      "UTF-8",
		`{"question":{"text":""}}`:  "no text",
	}
	for in, want := range bad {
		_, err := ParseOutcome([]byte(in))
		if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), want) {
			t.Errorf("ParseOutcome(%q) = %v; want invalid mentioning %q", in, err, want)
		}
	}
}

func TestRule10_DerivedTitle(t *testing.T) {
	t.Parallel()
	if got := DeriveTitle("  fix the\tlogin   bug\nand more details"); got != "fix the login bug" {
		t.Errorf("DeriveTitle = %q", got)
	}
	long := strings.Repeat("word ", 40)
	got := DeriveTitle(long)
	if utf8.RuneCountInString(got) > MaxTitle || !strings.HasSuffix(got, "…") || strings.Contains(got, "wor…") {
		t.Errorf("long title %q (%d runes)", got, utf8.RuneCountInString(got))
	}
	jp := DeriveTitle(strings.Repeat("日本語", 40))
	if utf8.RuneCountInString(jp) > MaxTitle || !utf8.ValidString(jp) {
		t.Errorf("japanese title %q", jp)
	}
}
