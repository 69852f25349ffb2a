package askonce_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// A job's files are paths a builder will use: a bad entry is EINVALID
// naming the entry and the problem, and no job is stored.
func TestCreate_FilesArePathsABuilderCanUse(t *testing.T) {
	t.Parallel()
	s := scripted()
	e := newEngine(t, s)
	cases := []struct {
		name, file, want string
	}{
		{"LeadingTilde", "~/notes.md", `files[1]: "~/notes.md" starts with ~`},
		{"Newline", "a.md\nb.md", "control character or line break"},
		{"ControlCharacter", "a\x1b[31m.md", "control character or line break"},
		{"BidiOverride", "invoice\u202efdp.exe", "control character or line break"},
		{"Over1024Bytes", strings.Repeat("d/", 512) + "f", "path is 1025 bytes; the limit is 1024"},
		{"Absolute", "/etc/passwd", "is absolute"},
		{"OutsideTheRoot", "docs/../../etc/passwd", "leaves the project root"},
		{"Empty", "", "is not a path"},
		{"NotUTF8", "a\xff.md", "not valid UTF-8"},
	}
	for _, c := range cases {
		_, err := e.Create(ctx, askonce.CreateRequest{Goal: "fix the typo", Files: []string{"ok.md", c.file}})
		if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), c.want) {
			t.Errorf("%s: Create = %v; want invalid saying %q", c.name, err, c.want)
		}
	}
	page, err := e.List(ctx, "", askonce.JobFilter{})
	if err != nil || len(page.Jobs) != 0 || len(s.requests()) != 0 {
		t.Fatalf("a rejected create left %d jobs (%v) and %d interpreter calls", len(page.Jobs), err, len(s.requests()))
	}
	ok := []string{"README.md", "docs/ノート.md", "./src/main.go", ".", strings.Repeat("d/", 511) + "fg"}
	e = newEngine(t, scripted(reply(planRaw, u1)))
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "fix the typo", Files: ok})
	if err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("usable files rejected: %v", err)
	}
}

// specSchema is checked when the job is created: an unusable schema is
// EINVALID naming the problem, before any interpreter runs, not a
// validation_error blamed on the interpreter after three attempts.
func TestCreate_UnusableSpecSchemaIsInvalidBeforeAnyInterpreterRuns(t *testing.T) {
	t.Parallel()
	s := scripted(reply(planRaw, u1))
	e := newEngine(t, s)
	for schema, want := range map[string]string{
		`{"type":"objekt"}`:                                       "specSchema is not a usable JSON Schema: at /type",
		`{"$ref":"https://example.com/s.json"}`:                   `$ref "https://example.com/s.json" points outside the schema`,
		`{"properties":{"a":{"$ref":"a.json"}}}`:                  `$ref "a.json" points outside the schema`,
		`{"$ref":"#/definitions/nowhere"}`:                        "#/definitions/nowhere",
		`"object"`:                                                "specSchema must be a JSON object",
		`{"required":"name"}`:                                     "at /required",
		`{"properties":{"n":{"minimum":"one"}}}`:                  "at /properties/n/minimum",
		`{"pattern":"[a-"}`:                                       "is not valid regex",
		`{"$schema":"http://example.com/draft"}`:                  "points outside the schema",
		`{"$defs":{"a":{"$ref":"#/$defs/b"}},"$ref":"#/$defs/a"}`: "#/$defs/b",
	} {
		_, err := e.Create(ctx, askonce.CreateRequest{Goal: "make a block", SpecSchema: json.RawMessage(schema)})
		if askonce.ErrorCode(err) != askonce.EINVALID || !strings.Contains(askonce.ErrorMessage(err), want) {
			t.Errorf("specSchema %s: Create = %v; want invalid saying %q", schema, err, want)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Fatalf("the interpreter ran %d times for rejected schemas", n)
	}
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make a block", SpecSchema: json.RawMessage(`{"$defs":{"k":{"type":"string"}},"properties":{"kind":{"$ref":"#/$defs/k"}}}`)})
	if err != nil || j.Status != askonce.StatusSuccess {
		t.Fatalf("a schema with a local $ref: %v %+v", err, j)
	}
}
