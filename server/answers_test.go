package server_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// questioner is an interpreter that asks its question until the prompt
// carries a clarification answer, then plans: the stand-in for an LLM
// interpreter that sets allowOther.
type questioner struct{ question string }

func (q questioner) Interpret(_ context.Context, req *askonce.Request) (*askonce.Response, error) {
	if strings.Contains(req.Prompt, "Clarification Answer:") {
		return &askonce.Response{Raw: []byte(`{"plan":{"tasks":[{"id":"a","title":"Make it"}]}}`)}, nil
	}
	return &askonce.Response{Raw: []byte(q.question)}, nil
}

const askOther = `{"question":{"type":"SELECT_ONE","text":"Hot or frozen?","options":["hot","frozen"],"allowOther":true}}`

// The job view shows allowOther, and an answer of the user's own is taken,
// stored and becomes the Clarification Answer section.
func TestAllowOther_JobViewShowsItAndAnOtherAnswerIsStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{interp: questioner{askOther}})
	j := e.create(map[string]any{"goal": hotFrozen})
	id := str(j, "jobId")
	if str(j, "status") != "pending" || j["clarificationAllowOther"] != true {
		t.Fatalf("create: %v", j)
	}
	if g := e.do("GET", "/jobs/"+id, nil); g.body["clarificationAllowOther"] != true {
		t.Fatalf("GET: %s", g.raw)
	}
	a := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": " banana "})
	if a.status != http.StatusOK || str(a.body, "status") != "success" || str(a.body, "clarificationAnswer") != "banana" ||
		str(a.body, "clarificationSource") != "user" || str(a.body, "resolvedPrompt") != hotFrozen+"\n\nClarification Answer: banana" {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	h := e.do("GET", "/sessions/"+str(j, "sessionId")+"/history", nil)
	entries, _ := h.body["entries"].([]any)
	if len(entries) != 1 || str(entries[0].(map[string]any), "answer") != "banana" {
		t.Fatalf("history: %s", h.raw)
	}
}

// A question that does not allow other answers leaves the field out.
func TestAllowOther_AbsentOnQuestionsThatDoNotAllowIt(t *testing.T) {
	t.Parallel()
	for name, q := range map[string]string{
		"SelectOne": `{"question":{"type":"SELECT_ONE","text":"Hot or frozen?","options":["hot","frozen"]}}`,
		// Only SELECT_ONE may allow other answers: an interpreter's
		// allowOther on a CONFIRM is dropped.
		"ConfirmClaimingIt": `{"question":{"type":"CONFIRM","text":"Delete it?","allowOther":true}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{interp: questioner{q}})
			j := e.create(map[string]any{"goal": hotFrozen})
			if _, ok := j["clarificationAllowOther"]; ok || str(j, "status") != "pending" {
				t.Fatalf("create: %v", j)
			}
			r := e.do("POST", "/jobs/"+str(j, "jobId")+"/clarification", map[string]any{"answer": "banana"})
			wantError(t, r, http.StatusUnprocessableEntity, "invalid", "banana")
		})
	}
}

// An invalid answer to an allowOther question is 422 naming the options
// and saying that other text is allowed; the job stays pending.
func TestAllowOther_InvalidAnswerIs422SayingOtherTextIsAllowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{interp: questioner{askOther}})
	id := str(e.create(map[string]any{"goal": hotFrozen}), "jobId")
	for name, answer := range map[string]string{
		"Blank":         "  \t ",
		"ZeroWidthOnly": "\u200b",
		"Over4KiB":      strings.Repeat("b", askonce.MaxFreeText+1),
	} {
		r := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": answer})
		wantError(t, r, http.StatusUnprocessableEntity, "invalid", "or other text of your own (at most 4096 bytes)")
		if !slices.Equal(strs(r.body["allowed"]), []string{"hot", "frozen"}) {
			t.Errorf("%s: allowed %s", name, r.raw)
		}
	}
	if g := e.do("GET", "/jobs/"+id, nil); str(g.body, "status") != "pending" {
		t.Fatalf("the job moved: %s", g.raw)
	}
}

// A gate-mode agent's question keeps allowOther in the nested question of
// the report response.
func TestAllowOther_InTheReportResponsesQuestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": hotFrozen, "mode": "gate"}), "jobId")
	r := e.do("POST", "/jobs/"+id+"/report", map[string]any{"question": map[string]any{
		"type": "SELECT_ONE", "text": "Hot or frozen?", "options": []string{"hot", "frozen"}, "allowOther": true}})
	if r.status != http.StatusOK || str(r.body, "action") != "ask" || obj(r.body, "question")["allowOther"] != true ||
		obj(r.body, "job")["clarificationAllowOther"] != true {
		t.Fatalf("report: %d %s", r.status, r.raw)
	}
	a := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "lukewarm"})
	if a.status != http.StatusOK || str(a.body, "clarificationAnswer") != "lukewarm" {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
}

// Files and specSchema are checked when the job is created: a 422
// "invalid" naming the problem, and no job.
func TestCreate_BadFilesAndUnusableSpecSchemaAre422(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, c := range []struct {
		name string
		body map[string]any
		msg  string
	}{
		{"FileWithTilde", map[string]any{"goal": readme, "files": []string{"~/.ssh/config"}}, `files[0]: "~/.ssh/config" starts with ~`},
		{"FileWithNewline", map[string]any{"goal": readme, "files": []string{"a.md", "b.md\nc.md"}}, "files[1]"},
		{"FileWithBidiOverride", map[string]any{"goal": readme, "files": []string{"a\u202e.md"}}, "control character"},
		{"FileOver1024Bytes", map[string]any{"goal": readme, "files": []string{strings.Repeat("x", 1025)}}, "the limit is 1024"},
		{"FileOutsideTheRoot", map[string]any{"goal": readme, "files": []string{"../x"}}, "leaves the project root"},
		{"SchemaNotValid", map[string]any{"goal": readme, "specSchema": map[string]any{"type": 5}}, "specSchema is not a usable JSON Schema: at /type"},
		{"SchemaExternalRef", map[string]any{"goal": readme, "specSchema": map[string]any{"$ref": "http://127.0.0.1:9/schema.json"}},
			`$ref "http://127.0.0.1:9/schema.json" points outside the schema`},
		{"SchemaNotAnObject", map[string]any{"goal": readme, "specSchema": []int{1}}, "specSchema must be a JSON object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("POST", "/jobs", c.body)
			wantError(t, r, http.StatusUnprocessableEntity, "invalid", c.msg)
		})
	}
	l := e.do("GET", "/jobs", nil)
	if jobs, _ := l.body["jobs"].([]any); len(jobs) != 0 {
		t.Fatalf("rejected creates left jobs: %s", l.raw)
	}
}

// The OpenAPI document, generated from the types, has allowOther in the
// job view and in the question.
func TestOpenAPI_DocumentsAllowOther(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	schemas := obj(obj(openAPIDoc(t, e), "components"), "schemas")
	for schema, prop := range map[string]string{"JobView": "clarificationAllowOther", "Question": "allowOther"} {
		p := obj(obj(obj(schemas, schema), "properties"), prop)
		if str(p, "type") != "boolean" {
			t.Errorf("%s.%s: %v", schema, prop, p)
		}
		if slices.Contains(strs(obj(schemas, schema)["required"]), prop) {
			t.Errorf("%s.%s is required", schema, prop)
		}
	}
}
