package server_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
)

func jobCount(t *testing.T, e *env) int {
	t.Helper()
	js, _ := e.do("GET", "/jobs", nil).body["jobs"].([]any)
	return len(js)
}

func TestRule2_IdempotencyKeyReplaysTheFirstResponseAndCreatesNoSecondJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	body := map[string]any{"goal": hotFrozen, "sessionId": "s"}

	first := e.do("POST", "/jobs", body, "Idempotency-Key", "create-1")
	second := e.do("POST", "/jobs", body, "Idempotency-Key", "create-1")
	if first.status != http.StatusCreated || second.status != http.StatusCreated || !bytes.Equal(first.raw, second.raw) {
		t.Fatalf("replay differs:\nfirst  %d %s\nsecond %d %s", first.status, first.raw, second.status, second.raw)
	}
	if first.header.Get("Idempotent-Replayed") != "" || second.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("Idempotent-Replayed: first %q second %q", first.header.Get("Idempotent-Replayed"), second.header.Get("Idempotent-Replayed"))
	}
	if n := jobCount(t, e); n != 1 {
		t.Fatalf("%d jobs after a replayed create, want 1", n)
	}

	// The same key with another body, or on another path, is refused and
	// changes nothing.
	other := e.do("POST", "/jobs", map[string]any{"goal": readme}, "Idempotency-Key", "create-1")
	wantError(t, other, http.StatusUnprocessableEntity, "idempotency_mismatch", "already used for another request")
	id := str(first.body, "jobId")
	elsewhere := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}, "Idempotency-Key", "create-1")
	wantError(t, elsewhere, http.StatusUnprocessableEntity, "idempotency_mismatch", "already used")
	if n := jobCount(t, e); n != 1 {
		t.Fatalf("%d jobs after a mismatched key, want 1", n)
	}
	if g := e.do("GET", "/jobs/"+id, nil); str(g.body, "status") != "pending" {
		t.Fatalf("a mismatched key changed the job: %s", g.raw)
	}

	// Rule 2: a retried answer with the same key gets the first response.
	a1 := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}, "Idempotency-Key", "answer-1")
	a2 := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}, "Idempotency-Key", "answer-1")
	if a1.status != http.StatusOK || !bytes.Equal(a1.raw, a2.raw) || a2.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("answer replay:\nfirst  %d %s\nsecond %d %s", a1.status, a1.raw, a2.status, a2.raw)
	}
	// Without the key the same answer is a conflict: it was not run twice.
	wantError(t, e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}), http.StatusConflict, "conflict", "status is success")
	if n := count(e.eventTypes(id), "answered"); n != 1 {
		t.Fatalf("%d answered events, want 1", n)
	}
}

// A 4xx is stored and replayed too: the retry of a bad request is the
// same bad request.
func TestIdempotencyKey_Replays4xx(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	first := e.do("POST", "/jobs", map[string]any{"goal": "  "}, "Idempotency-Key", "k")
	second := e.do("POST", "/jobs", map[string]any{"goal": "  "}, "Idempotency-Key", "k")
	wantError(t, first, http.StatusUnprocessableEntity, "invalid", "goal is empty")
	if second.status != first.status || !bytes.Equal(first.raw, second.raw) || second.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("4xx replay: %d %s", second.status, second.raw)
	}
}

// A retry while the first request still runs is 409; once it has finished
// the retry gets its response.
func TestIdempotencyKey_InFlightIsConflict(t *testing.T) {
	t.Parallel()
	rl, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	slow := askonce.InterpreterFunc(func(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
		if strings.HasPrefix(req.Goal, "slow") {
			close(entered)
			<-release
		}
		return rl.Interpret(ctx, req)
	})
	e := newEnv(t, envOptions{interp: slow})
	body := map[string]any{"goal": "slow: " + readme}

	done := make(chan response)
	go func() { done <- e.do("POST", "/jobs", body, "Idempotency-Key", "slow-1") }()
	<-entered
	wantError(t, e.do("POST", "/jobs", body, "Idempotency-Key", "slow-1"), http.StatusConflict, "conflict", "is in progress")
	close(release)
	first := <-done
	if first.status != http.StatusCreated {
		t.Fatalf("first: %d %s", first.status, first.raw)
	}
	if replay := e.do("POST", "/jobs", body, "Idempotency-Key", "slow-1"); !bytes.Equal(replay.raw, first.raw) {
		t.Fatalf("replay after completion: %d %s", replay.status, replay.raw)
	}
	if n := jobCount(t, e); n != 1 {
		t.Fatalf("%d jobs, want 1", n)
	}
}
