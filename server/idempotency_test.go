package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
	"github.com/google/uuid"
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

// fingerprint is the fingerprint the server gives a request.
func fingerprint(method, path string, body []byte) string {
	sum := sha256.Sum256(body)
	return method + " " + path + " " + hex.EncodeToString(sum[:])
}

// deadClaim stores an in-flight claim of key whose owner, a process that
// never held a lease, is dead: what a SIGKILLed server leaves behind.
func deadClaim(t *testing.T, e *env, key, method, path string, body []byte, jobID string, base int64) {
	t.Helper()
	prev, _, err := e.store.ClaimIdempotencyKey(t.Context(), &askonce.IdempotencyRecord{
		TenantID: askonce.DefaultTenant, Key: key, Fingerprint: fingerprint(method, path, body),
		Owner: "killed-process", JobID: jobID, BaseVersion: base,
	})
	if err != nil || prev != nil {
		t.Fatalf("claim %s: %+v, %v", key, prev, err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A retry whose claim belongs to a dead process that created nothing
// runs the request, with the job id the claim recorded; it is never 409.
func TestIdempotencyKey_DeadOwnersRetryRunsTheRequestWhenNothingWasCreated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	body := mustJSON(t, map[string]any{"goal": readme, "sessionId": "s"})
	jobID := uuid.Must(uuid.NewV7()).String()
	deadClaim(t, e, "k", "POST", "/jobs", body, jobID, 0)

	retry := e.do("POST", "/jobs", body, "Idempotency-Key", "k")
	if retry.status != http.StatusCreated || str(retry.body, "jobId") != jobID || retry.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry after the owner died: %d %s; want 201 creating job %s", retry.status, retry.raw, jobID)
	}
	if n := jobCount(t, e); n != 1 {
		t.Fatalf("%d jobs, want 1", n)
	}
	again := e.do("POST", "/jobs", body, "Idempotency-Key", "k")
	if !bytes.Equal(again.raw, retry.raw) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the taken-over response is not replayed: %d %s", again.status, again.raw)
	}
}

// A retry whose claim belongs to a dead process that had created the job
// gets that job in its current state, as POST /jobs renders it, and
// creates no second one.
func TestIdempotencyKey_DeadOwnersRetryReturnsTheJobItCreated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	body := mustJSON(t, map[string]any{"goal": hotFrozen, "sessionId": "s"})
	jobID := uuid.Must(uuid.NewV7()).String()
	deadClaim(t, e, "k", "POST", "/jobs", body, jobID, 0)
	if _, err := e.engine.Create(t.Context(), askonce.CreateRequest{ID: jobID, Goal: hotFrozen, SessionID: "s"}); err != nil {
		t.Fatal(err)
	}

	retry := e.do("POST", "/jobs", body, "Idempotency-Key", "k")
	if retry.status != http.StatusCreated || str(retry.body, "jobId") != jobID || str(retry.body, "status") != "pending" ||
		retry.body["needsClarification"] != true || retry.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry after the owner died: %d %s; want 201 with pending job %s", retry.status, retry.raw, jobID)
	}
	if n := jobCount(t, e); n != 1 {
		t.Fatalf("%d jobs, want 1", n)
	}
	if n := count(e.eventTypes(jobID), "created"); n != 1 {
		t.Fatalf("%d created events, want 1", n)
	}
}

// The same for an answer: a dead process's answer that was applied is
// not applied twice, and one that was not is applied by the retry.
func TestIdempotencyKey_DeadOwnersRetriedAnswerIsAppliedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, applied := range []bool{true, false} {
		j := e.create(map[string]any{"goal": hotFrozen})
		id := str(j, "jobId")
		pending, err := e.engine.Get(t.Context(), askonce.DefaultTenant, id)
		if err != nil {
			t.Fatal(err)
		}
		path := "/jobs/" + id + "/clarification"
		body := mustJSON(t, map[string]any{"answer": "hot"})
		key := fmt.Sprint("answer-", applied)
		deadClaim(t, e, key, "POST", path, body, id, pending.Version)
		if applied {
			if _, _, err := e.engine.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: id, Answer: askonce.TextAnswer("hot")}); err != nil {
				t.Fatal(err)
			}
		}
		retry := e.do("POST", path, body, "Idempotency-Key", key)
		if retry.status != http.StatusOK || str(retry.body, "jobId") != id || str(retry.body, "status") == "pending" {
			t.Fatalf("applied=%v: retry after the owner died: %d %s; want 200 with the answered job", applied, retry.status, retry.raw)
		}
		if replayed := retry.header.Get("Idempotent-Replayed") == "true"; replayed != applied {
			t.Fatalf("applied=%v: Idempotent-Replayed %v", applied, replayed)
		}
		if n := count(e.eventTypes(id), "answered"); n != 1 {
			t.Fatalf("applied=%v: %d answered events, want 1", applied, n)
		}
	}
}

// A claim whose owner is alive stays in progress past the lease's length:
// the owner renews it while its request runs. Two servers on one store
// are two replicas.
func TestIdempotencyKey_LiveOwnerKeepsItsClaimPastTheLease(t *testing.T) {
	t.Parallel()
	rl, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	slow := askonce.InterpreterFunc(func(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
		close(entered)
		<-release
		return rl.Interpret(ctx, req)
	})
	const lease = 60 * time.Millisecond
	a := newEnv(t, envOptions{interp: slow, config: func(c *server.Config) { c.OwnerLease = lease }})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the servers close, so that a failure does not hang
	b := httptest.NewServer(server.New(server.Config{Engine: &askonce.Engine{Store: a.store, Interpreter: rl}, Idempotency: a.store, OwnerLease: lease}))
	t.Cleanup(b.Close)
	onB := &env{t: t, srv: b, engine: a.engine, store: a.store}

	body := map[string]any{"goal": readme}
	done := make(chan response)
	go func() { done <- a.do("POST", "/jobs", body, "Idempotency-Key", "k") }()
	<-entered
	time.Sleep(5 * lease)
	r := onB.do("POST", "/jobs", body, "Idempotency-Key", "k")
	wantError(t, r, http.StatusConflict, "conflict", "is in progress")
	if r.header.Get("Retry-After") == "" {
		t.Error("an in-progress 409 has no Retry-After")
	}
	unblock()
	first := <-done
	if first.status != http.StatusCreated {
		t.Fatalf("first: %d %s", first.status, first.raw)
	}
	if replay := onB.do("POST", "/jobs", body, "Idempotency-Key", "k"); !bytes.Equal(replay.raw, first.raw) {
		t.Fatalf("replay on the other replica: %d %s", replay.status, replay.raw)
	}
}

// A store error (500) leaves the key unstored: the retry runs the create
// again, on the job id the claim recorded.
func TestIdempotencyKey_500IsNotStoredAndTheRetryRunsAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	failing := &failCreate{Store: e.store}
	failing.fail.Store(true)
	api := httptest.NewServer(server.New(server.Config{Engine: &askonce.Engine{Store: failing, Interpreter: e.engine.Interpreter}, Idempotency: e.store}))
	t.Cleanup(api.Close)
	on := &env{t: t, srv: api, engine: e.engine, store: e.store}

	body := map[string]any{"goal": readme}
	first := on.do("POST", "/jobs", body, "Idempotency-Key", "k")
	wantError(t, first, http.StatusInternalServerError, "internal", "internal error")
	failing.fail.Store(false)
	retry := on.do("POST", "/jobs", body, "Idempotency-Key", "k")
	if retry.status != http.StatusCreated || retry.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry after a 500: %d %s; want the create run again", retry.status, retry.raw)
	}
	if n := jobCount(t, e); n != 1 {
		t.Fatalf("%d jobs, want 1", n)
	}
}

// failCreate is a store whose CreateJob fails while fail is set.
type failCreate struct {
	*sqlite.Store
	fail atomic.Bool
}

func (f *failCreate) CreateJob(ctx context.Context, c *askonce.Change) error {
	if f.fail.Load() {
		return errors.New("disk I/O error")
	}
	return f.Store.CreateJob(ctx, c)
}

// A takeover whose re-run conflicts because the "dead" process was only
// slow and changed the job meanwhile answers with that job, not 409.
func TestIdempotencyKey_TakeoverRacingASlowOwnerReturnsItsJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": hotFrozen}), "jobId")
	pending, err := e.engine.Get(t.Context(), askonce.DefaultTenant, id)
	if err != nil {
		t.Fatal(err)
	}
	path := "/jobs/" + id + "/clarification"
	body := mustJSON(t, map[string]any{"answer": "hot"})
	deadClaim(t, e, "k", "POST", path, body, id, pending.Version)

	// The slow owner's answer lands after the takeover looked at the job
	// (the third read: the claim's, the takeover's, the re-run's).
	hooked := &onRead{Store: e.store, n: 3, hook: func() {
		if _, _, err := e.engine.Act(t.Context(), askonce.Act{Do: askonce.ActAnswer, ID: id, Answer: askonce.TextAnswer("hot")}); err != nil {
			t.Error(err)
		}
	}}
	api := httptest.NewServer(server.New(server.Config{Engine: &askonce.Engine{Store: hooked, Interpreter: e.engine.Interpreter}, Idempotency: e.store}))
	t.Cleanup(api.Close)
	on := &env{t: t, srv: api, engine: e.engine, store: e.store}

	retry := on.do("POST", path, body, "Idempotency-Key", "k")
	if retry.status != http.StatusOK || str(retry.body, "jobId") != id || str(retry.body, "status") == "pending" || retry.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry racing the slow owner: %d %s; want 200 with its answered job", retry.status, retry.raw)
	}
	if n := count(e.eventTypes(id), "answered"); n != 1 {
		t.Fatalf("%d answered events, want 1", n)
	}
}

// onRead is a store that runs hook before its n-th GetJob.
type onRead struct {
	*sqlite.Store
	n    int
	hook func()
	mu   sync.Mutex
	seen int
}

func (o *onRead) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	o.mu.Lock()
	o.seen++
	run := o.seen == o.n
	o.mu.Unlock()
	if run {
		o.hook()
	}
	return o.Store.GetJob(ctx, tenant, id)
}
