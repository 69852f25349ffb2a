package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/askonce/askonce/auth"
)

// Over HTTP a second agent's identical question in the same project is
// answered from memory, GET /memory lists the entry and DELETE forgets it;
// another tenant can neither read, use nor forget it.
func TestHTTPMemory_ProjectAnswerIsUsedListedAndForgottenOnlyByItsTenant(t *testing.T) {
	t.Parallel()
	keys, err := auth.LoadKeys(strings.NewReader("acme " + auth.HashKey("key-a") + "\nglobex " + auth.HashKey("key-b") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{keys: keys})
	A := []string{"Authorization", "Bearer key-a"}
	B := []string{"Authorization", "Bearer key-b"}
	shop := map[string]any{"scope": "project", "project": "shop"}

	first := e.create(map[string]any{"goal": hotFrozen, "sessionId": "agent-a", "memory": shop}, A...)
	if str(first, "status") != "pending" {
		t.Fatalf("first job %s, want pending", first["status"])
	}
	if r := e.do("POST", "/jobs/"+str(first, "jobId")+"/clarification", map[string]any{"answer": "frozen"}, A...); r.status != http.StatusOK {
		t.Fatalf("answer: %d %s", r.status, r.raw)
	}
	second := e.create(map[string]any{"goal": hotFrozen, "sessionId": "agent-b", "memory": shop}, A...)
	mem := obj(second, "clarificationMemory")
	if str(second, "status") != "success" || str(second, "clarificationSource") != "history" ||
		str(mem, "scope") != "project" || str(mem, "project") != "shop" || str(mem, "jobId") != str(first, "jobId") {
		t.Fatalf("second agent's job: %v", second)
	}
	other := e.create(map[string]any{"goal": hotFrozen, "sessionId": "agent-b", "memory": shop}, B...)
	if str(other, "status") != "pending" {
		t.Fatalf("another tenant's job in project shop is %s, want pending", other["status"])
	}

	list := e.do("GET", "/memory?scope=project&project=shop", nil, A...)
	entries, _ := list.body["entries"].([]any)
	if list.status != http.StatusOK || len(entries) != 1 {
		t.Fatalf("GET /memory: %d %s, want one entry", list.status, list.raw)
	}
	entry := entries[0].(map[string]any)
	if str(entry, "answer") != "frozen" || str(entry, "jobId") != str(first, "jobId") || str(entry, "expiresAt") == "" || entry["uses"] != float64(1) {
		t.Errorf("entry %v, want the answer frozen of the first job, with an expiry, used once", entry)
	}
	hash := str(entry, "questionHash")
	forget := "/memory/" + hash + "?scope=project&project=shop"
	if r := e.do("GET", "/memory?scope=project&project=shop", nil, B...); len(r.body["entries"].([]any)) != 0 {
		t.Errorf("the other tenant lists %s", r.raw)
	}
	wantError(t, e.do("DELETE", forget, nil, B...), http.StatusNotFound, "not_found", "no project answer")
	if r := e.do("DELETE", forget, nil, A...); r.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.status, r.raw)
	}
	third := e.create(map[string]any{"goal": hotFrozen, "sessionId": "agent-c", "memory": shop}, A...)
	if str(third, "status") != "pending" {
		t.Fatalf("after forget the job is %s, want pending", third["status"])
	}
}

func TestHTTPMemory_InvalidMemoryIs422NamingTheField(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, c := range []struct {
		memory map[string]any
		field  string
	}{
		{map[string]any{"scope": "galaxy"}, "memory.scope"},
		{map[string]any{"scope": "project", "project": strings.Repeat("x", 129)}, "memory.project"},
		{map[string]any{"scope": "project", "project": "a\nb"}, "memory.project"},
		{map[string]any{"scope": "project", "project": "shop", "ttl": "soon"}, "memory.ttl"},
		{map[string]any{"scope": "project", "project": "shop", "ttl": "100000h"}, "memory.ttl"},
	} {
		r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen, "memory": c.memory})
		wantError(t, r, http.StatusUnprocessableEntity, "invalid", c.field)
	}
	wantError(t, e.do("GET", "/memory?scope=planet", nil), http.StatusUnprocessableEntity, "invalid", "scope")
	wantError(t, e.do("GET", "/memory?scope=project&project="+url.QueryEscape("a\x01"), nil), http.StatusUnprocessableEntity, "invalid", "project")
	wantError(t, e.do("DELETE", "/memory/abc?scope=session", nil), http.StatusUnprocessableEntity, "invalid", "session")
	if r := e.do("GET", "/jobs", nil); len(r.body["jobs"].([]any)) != 0 {
		t.Errorf("jobs after the rejected requests: %s", r.raw)
	}
}
