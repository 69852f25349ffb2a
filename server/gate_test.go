package server_test

import (
	"net/http"
	"testing"

	"github.com/askonce/askonce"
)

var moduleQuestion = map[string]any{"reason": "scope_unclear", "text": "Which module?", "options": []string{"billing", "invoices"}}

// Gate mode over POST /jobs/{id}/report: the gate-mode table of
// docs/protocol.md (ask, wait, resume, proceed), then a plan.
func TestGateMode_ReportEndpointAskWaitResumeProceedDone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	j := e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"})
	id := str(j, "jobId")
	if str(j, "mode") != "gate" || str(j, "status") != "planning" || j["needsClarification"] != false {
		t.Fatalf("create: %v", j)
	}
	report := func(body map[string]any) map[string]any {
		t.Helper()
		r := e.do("POST", "/jobs/"+id+"/report", body)
		if r.status != http.StatusOK {
			t.Fatalf("report %v: %d %s", body, r.status, r.raw)
		}
		return r.body
	}
	usage := map[string]any{"promptTokens": 10, "completionTokens": 5, "costUsd": 0.001}

	// A: the first request for clarification is asked and persisted.
	r := report(map[string]any{"question": moduleQuestion, "usage": usage})
	if str(r, "action") != "ask" || str(obj(r, "question"), "type") != "SELECT_ONE" || str(obj(r, "job"), "status") != "pending" {
		t.Fatalf("ask: %v", r)
	}
	// B: asked again while unanswered: wait, with the stored question.
	r = report(map[string]any{"question": map[string]any{"text": "Another question?"}})
	if str(r, "action") != "wait" || str(obj(r, "question"), "text") != "Which module?" {
		t.Fatalf("wait: %v", r)
	}
	// The user answers over the API; askonce does not interpret a gate job.
	a := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "inv"})
	if a.status != http.StatusOK || str(a.body, "status") != "planning" || str(a.body, "clarificationAnswer") != "invoices" {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	// C: resume with the answer and the resolved prompt.
	r = report(map[string]any{"question": moduleQuestion})
	if str(r, "action") != "resume" || str(r, "answer") != "invoices" || str(r, "resolvedPrompt") != "refactor the payments module\n\nClarification Answer: invoices" {
		t.Fatalf("resume: %v", r)
	}
	// D: asking after the answer was delivered: proceed under the fallback
	// directive, never a second question.
	r = report(map[string]any{"question": moduleQuestion})
	if str(r, "action") != "proceed" || str(r, "directive") != askonce.FallbackDirective || str(obj(r, "job"), "status") != "planning" {
		t.Fatalf("proceed: %v", r)
	}
	// An invalid plan is 422 with every problem, and changes nothing.
	before := e.do("GET", "/jobs/"+id, nil)
	bad := e.do("POST", "/jobs/"+id+"/report", map[string]any{"plan": map[string]any{"tasks": []any{map[string]any{"id": "a", "title": "A", "dependsOn": []string{"a"}}}}})
	wantError(t, bad, http.StatusUnprocessableEntity, "invalid", "cycle")
	if after := e.do("GET", "/jobs/"+id, nil); str(after.body, "status") != "planning" || after.body["updatedAt"] != before.body["updatedAt"] {
		t.Fatalf("an invalid plan changed the job: %s", after.raw)
	}
	// A plan: done.
	r = report(map[string]any{"title": "Refactor invoices", "plan": map[string]any{"tasks": []any{map[string]any{"id": "t1", "title": "Refactor", "dependsOn": []string{}}}}, "usage": usage})
	job := obj(r, "job")
	if str(r, "action") != "done" || str(job, "status") != "success" || job["success"] != true || str(job, "title") != "Refactor invoices" {
		t.Fatalf("plan: %v", r)
	}
	g := e.do("GET", "/jobs/"+id, nil)
	if obj(g.body, "usage")["promptTokens"] != float64(20) || len(g.body["attempts"].([]any)) != 6 {
		t.Fatalf("usage and attempts do not add up: %s", g.raw)
	}
	if n := count(e.eventTypes(id), "asked"); n != 1 {
		t.Fatalf("%d questions asked, want 1", n)
	}
}

func TestGateMode_ReportNeedsExactlyOneOutcome(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"}), "jobId")
	wantError(t, e.do("POST", "/jobs/"+id+"/report", `{}`), http.StatusUnprocessableEntity, "invalid", "exactly one of question, plan or error")
	wantError(t, e.do("POST", "/jobs/"+id+"/report", map[string]any{"error": "x", "question": moduleQuestion}), http.StatusUnprocessableEntity, "invalid", "exactly one")
	wantError(t, e.do("POST", "/jobs/"+id+"/report", map[string]any{"error": "x", "usage": map[string]any{"promptTokens": -1}}), http.StatusUnprocessableEntity, "invalid", "negative")
	wantError(t, e.do("POST", "/jobs/"+id+"/report", map[string]any{"question": map[string]any{"text": "?", "colour": 1}}), http.StatusBadRequest, "bad_request", `unknown field "colour"`)
	// The agent gives up: the job fails with its message.
	r := e.do("POST", "/jobs/"+id+"/report", map[string]any{"error": "cannot reach the repository"})
	if r.status != http.StatusOK || str(r.body, "action") != "fail" || str(obj(r.body, "job"), "error") != "cannot reach the repository" || obj(r.body, "job")["success"] != false {
		t.Fatalf("error report: %d %s", r.status, r.raw)
	}
}
