package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce/auth"
)

// With API keys every request is scoped to its tenant: another tenant's
// job is 404, and no key is 401.
func TestAPIKeys_TenantIsolation(t *testing.T) {
	t.Parallel()
	keys, err := auth.LoadKeys(strings.NewReader("acme " + auth.HashKey("key-a") + "\nglobex " + auth.HashKey("key-b") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{keys: keys})
	A := []string{"Authorization", "Bearer key-a"}
	B := []string{"Authorization", "Bearer key-b"}

	for _, c := range []struct {
		name   string
		header []string
		msg    string
	}{
		{"NoKey", nil, "an API key is required"},
		{"WrongKey", []string{"Authorization", "Bearer nope"}, "not valid"},
		{"BasicAuth", []string{"Authorization", "Basic a2V5LWE6"}, "Bearer"},
		{"WrongXAPIKey", []string{"X-API-Key", "nope"}, "not valid"},
	} {
		r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, c.header...)
		wantError(t, r, http.StatusUnauthorized, "unauthorized", c.msg)
		if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q", c.name, r.header.Get("WWW-Authenticate"))
		}
	}

	id := str(e.create(map[string]any{"goal": hotFrozen, "sessionId": "shared"}, A...), "jobId")
	for _, c := range []struct{ method, path string }{
		{"GET", "/jobs/" + id},
		{"POST", "/jobs/" + id + "/clarification"},
		{"POST", "/jobs/" + id + "/cancel"},
		{"POST", "/jobs/" + id + "/decline"},
		{"GET", "/jobs/" + id + "/events"},
	} {
		var body any
		if c.method == "POST" {
			body = map[string]any{"answer": "hot"}
			if !strings.HasSuffix(c.path, "clarification") {
				body = `{}`
			}
		}
		wantError(t, e.do(c.method, c.path, body, B...), http.StatusNotFound, "not_found", "")
	}
	if js, _ := e.do("GET", "/jobs", nil, B...).body["jobs"].([]any); len(js) != 0 {
		t.Fatalf("tenant B lists %d of A's jobs", len(js))
	}
	// X-API-Key works as well as Bearer; A still sees its pending job.
	if r := e.do("GET", "/jobs/"+id, nil, "X-API-Key", "key-a"); r.status != http.StatusOK || str(r.body, "status") != "pending" {
		t.Fatalf("tenant A reads its job: %d %s", r.status, r.raw)
	}
	// Sessions are per tenant too.
	if r := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}, A...); r.status != http.StatusOK {
		t.Fatalf("A answers: %d %s", r.status, r.raw)
	}
	if es, _ := e.do("GET", "/sessions/shared/history", nil, A...).body["entries"].([]any); len(es) != 1 {
		t.Fatalf("A's history has %d entries", len(es))
	}
	if es, _ := e.do("GET", "/sessions/shared/history", nil, B...).body["entries"].([]any); len(es) != 0 {
		t.Fatalf("B sees %d of A's history entries", len(es))
	}
	// Idempotency keys are per tenant: the same key in B runs B's request.
	a := e.do("POST", "/jobs", map[string]any{"goal": readme}, append(A, "Idempotency-Key", "same")...)
	b := e.do("POST", "/jobs", map[string]any{"goal": readme}, append(B, "Idempotency-Key", "same")...)
	if a.status != 201 || b.status != 201 || b.header.Get("Idempotent-Replayed") != "" || str(a.body, "jobId") == str(b.body, "jobId") {
		t.Fatalf("idempotency across tenants: %d %s / %d %s", a.status, a.raw, b.status, b.raw)
	}
	// Operations routes are public.
	for _, p := range []string{"/healthz", "/openapi.json", "/metrics"} {
		if r := e.do("GET", p, nil); r.status != http.StatusOK {
			t.Errorf("%s without a key: %d", p, r.status)
		}
	}
}

// An answer (or decline) given over HTTP with a named key records the
// key's name as answeredBy; an unnamed key's answer records none.
func TestAPIKeys_NamedKeysAnswerIsRecordedAsAnsweredBy(t *testing.T) {
	t.Parallel()
	keys, err := auth.LoadKeys(strings.NewReader("acme " + auth.HashKey("key-named") + " name=ci-bot\nacme " + auth.HashKey("key-plain") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{keys: keys})
	for _, c := range []struct{ key, path, want string }{
		{"key-named", "clarification", "ci-bot"},
		{"key-named", "decline", "ci-bot"},
		{"key-plain", "clarification", ""},
	} {
		auth := []string{"Authorization", "Bearer " + c.key}
		id := str(e.create(map[string]any{"goal": hotFrozen}, auth...), "jobId")
		var body any = map[string]any{"answer": "hot"}
		if c.path == "decline" {
			body = `{}`
		}
		r := e.do("POST", "/jobs/"+id+"/"+c.path, body, auth...)
		if r.status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", c.key, c.path, r.status, r.raw)
		}
		got := e.do("GET", "/jobs/"+id, nil, auth...)
		if str(got.body, "answeredVia") != "http" || str(got.body, "answeredBy") != c.want {
			t.Errorf("%s %s: answeredVia %q answeredBy %q; want http, %q", c.key, c.path, str(got.body, "answeredVia"), str(got.body, "answeredBy"), c.want)
		}
	}
}
