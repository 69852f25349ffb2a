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
		{"SpecNull", Plan{Spec: json.RawMessage(`null`), Tasks: []Task{task("a")}}, []string{"spec must be a JSON object"}},
		{"SpecString", Plan{Spec: json.RawMessage(` "{}"`), Tasks: []Task{task("a")}}, []string{"spec must be a JSON object"}},
		{"SpecObjectAfterWhiteSpace", Plan{Spec: json.RawMessage("\n\t {\"a\": 1}"), Tasks: []Task{task("a")}}, nil},
		{"SpecNotJSON", Plan{Spec: json.RawMessage(`{"a":`), Tasks: []Task{task("a")}}, []string{"spec is not valid JSON"}},
		{"Bindings", Plan{Tasks: []Task{{ID: "a", Title: "a", Bindings: []Binding{{Mention: "the oil", Candidate: "olive oil"}}}}}, nil},
		{"BindingWithoutCandidate", Plan{Tasks: []Task{{ID: "a", Title: "a", Bindings: []Binding{{Mention: "oil", Candidate: " "}}}}}, []string{`task "a" binding 1 needs both a mention and a candidate`}},
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

func TestRule9_SpecViolationsNameTheValueAndTheRule(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","required":["name","kind"],"additionalProperties":false,
		"properties":{"name":{"type":"string","minLength":1},"kind":{"enum":["block","item"]},"hardness":{"type":"number","minimum":0}}}`)
	p := Plan{Tasks: []Task{{ID: "a", Title: "a"}}}
	p.Spec = json.RawMessage(`{"name":"cheese","kind":"block","hardness":2}`)
	if errs := p.Validate(schema); len(errs) > 0 {
		t.Fatalf("valid spec rejected: %v", errs)
	}
	p.Spec = json.RawMessage(`{"kind":"food","hardness":-1,"colour":"red"}`)
	errs := p.Validate(schema)
	joined := strings.Join(errs, "\n")
	for _, w := range []string{"spec: missing property 'name'", "spec at /kind: value must be one of 'block', 'item'",
		"spec at /hardness: minimum: got -1, want 0", "spec: additional properties 'colour' not allowed"} {
		if !strings.Contains(joined, w) {
			t.Errorf("errors %q lack %q", joined, w)
		}
	}
	if len(errs) != 4 {
		t.Errorf("%d messages for 4 violations: %q", len(errs), errs)
	}
}

// The whole of JSON Schema applies, not a subset: $defs and $ref inside
// the document, oneOf, patterns, and another draft named by $schema.
func TestRule9_SpecSchemaIsFullJSONSchema(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schema, good, bad, want string
	}{
		{"LocalRef", `{"$defs":{"id":{"type":"string","pattern":"^[a-z]+$"}},"properties":{"id":{"$ref":"#/$defs/id"}}}`,
			`{"id":"cheese"}`, `{"id":"Cheese1"}`, "spec at /id: 'Cheese1' does not match pattern"},
		{"OneOf", `{"properties":{"n":{"oneOf":[{"type":"integer"},{"type":"string"}]}}}`,
			`{"n":3}`, `{"n":true}`, "spec at /n"},
		{"Draft07", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"t":{"type":"array","items":[{"type":"string"}],"additionalItems":false}}}`,
			`{"t":["a"]}`, `{"t":["a","b"]}`, "spec at /t"},
		{"PointerEscaped", `{"properties":{"a/b":{"type":"string"}}}`, `{"a/b":"x"}`, `{"a/b":1}`, "spec at /a~1b"},
		{"NoSpecMeetsSchemaOnlyIfEmptyObjectDoes", `{"required":["kind"]}`, `{"kind":1}`, ``, "spec: missing property 'kind'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if err := ValidSchema(json.RawMessage(c.schema)); err != nil {
				t.Fatalf("ValidSchema: %v", err)
			}
			p := Plan{Tasks: []Task{{ID: "a", Title: "a"}}, Spec: json.RawMessage(c.good)}
			if errs := p.Validate(json.RawMessage(c.schema)); len(errs) > 0 {
				t.Fatalf("valid spec %s rejected: %v", c.good, errs)
			}
			p.Spec = json.RawMessage(c.bad)
			errs := p.Validate(json.RawMessage(c.schema))
			if !strings.Contains(strings.Join(errs, "\n"), c.want) {
				t.Fatalf("spec %s: errors %q lack %q", c.bad, errs, c.want)
			}
		})
	}
}

// An unusable schema is the caller's error, named, when the job is
// created: never loaded from elsewhere, never blamed on the interpreter.
func TestRule9_UnusableSpecSchemaIsInvalidAndNamesTheProblem(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, schema, want string }{
		{"NotJSON", `{"type":`, "specSchema is not valid JSON"},
		{"NotAnObject", `[1]`, "specSchema must be a JSON object"},
		{"BooleanSchema", `true`, "specSchema must be a JSON object"},
		{"WrongKeywordType", `{"minimum":"zero"}`, "at /minimum: got string, want number"},
		{"UnknownType", `{"type":"text"}`, "at /type"},
		{"BadPattern", `{"pattern":"("}`, "at /pattern: '(' is not valid regex"},
		{"RelativeRefOutside", `{"$ref":"other.json"}`, `$ref "other.json" points outside the schema`},
		{"HTTPRef", `{"properties":{"a":{"$ref":"http://127.0.0.1:1/x.json"}}}`, `$ref "http://127.0.0.1:1/x.json" points outside the schema`},
		{"FileRef", `{"$ref":"file:///etc/passwd"}`, `$ref "file:///etc/passwd" points outside the schema`},
		{"UnknownMetaschema", `{"$schema":"https://example.com/meta"}`, `"https://example.com/meta" points outside the schema`},
		{"RefToNothing", `{"$ref":"#/$defs/missing"}`, "#/$defs/missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := ValidSchema(json.RawMessage(c.schema))
			if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), c.want) {
				t.Fatalf("ValidSchema(%s) = %v; want invalid naming %q", c.schema, err, c.want)
			}
			if strings.Contains(ErrorMessage(err), "mem:///") {
				t.Errorf("message leaks the compiler's URL: %s", ErrorMessage(err))
			}
		})
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

// ClampTitle collapses white space and drops control characters, and a
// title that needs neither comes back as it was.
func TestRule10_ClampTitleCollapsesWhiteSpaceAndDropsControls(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                      "",
		"Hot cheese":            "Hot cheese",
		" Hot cheese":           "Hot cheese",
		"Hot cheese ":           "Hot cheese",
		" ":                     "",
		"Hot  cheese":           "Hot cheese",
		"Hot\tcheese":           "Hot cheese",
		"Hot\u00a0cheese":       "Hot cheese",
		"Hot\x01cheese":         "Hotcheese",
		"Hot \x01 cheese":       "Hot  cheese",
		"熱い チーズ":                "熱い チーズ",
		"a\u3000b":              "a b",
		"Ends with a dot.":      "Ends with a dot.",
		"tab at the end\t":      "tab at the end",
		"new\nline":             "new line",
		"\x7f":                  "",
		"zero\u200bwidth space": "zero\u200bwidth space",
	} {
		if got := ClampTitle(in); got != want {
			t.Errorf("ClampTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
