package server_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
)

// heldInterpreter is the rules interpreter behind a gate: every call
// blocks until the test releases it, like an LLM call that takes longer
// than a connection should be held.
type heldInterpreter struct {
	inner   askonce.Interpreter
	entered chan struct{}
	once    sync.Once
	release chan struct{}
}

func newHeld(t *testing.T) *heldInterpreter {
	t.Helper()
	r, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &heldInterpreter{inner: r, entered: make(chan struct{}, 100), release: make(chan struct{})}
	t.Cleanup(h.open)
	return h
}

func (h *heldInterpreter) open() { h.once.Do(func() { close(h.release) }) }

func (h *heldInterpreter) Interpret(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
	h.entered <- struct{}{}
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.inner.Interpret(ctx, req)
}

func (h *heldInterpreter) waitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-h.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the interpreter was never called")
	}
}

func (e *env) jobStatus(id string) string {
	e.t.Helper()
	return str(e.do("GET", "/jobs/"+id, nil).body, "status")
}

func wantAccepted(t *testing.T, r response) string {
	t.Helper()
	if r.status != http.StatusAccepted {
		t.Fatalf("status %d, want 202: %s", r.status, r.raw)
	}
	id := str(r.body, "jobId")
	if got := r.header.Get("Location"); got != "/jobs/"+id {
		t.Errorf("Location = %q, want /jobs/%s", got, id)
	}
	if got := str(r.body, "status"); got != "planning" {
		t.Errorf("status = %q, want planning", got)
	}
	return id
}

func TestPreferRespondAsyncCreatesAt202AndPlansInTheBackground(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held})
	r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, "Prefer", "respond-async")
	id := wantAccepted(t, r)
	if got := r.header.Get("Preference-Applied"); got != "respond-async" {
		t.Errorf("Preference-Applied = %q, want respond-async", got)
	}
	if _, ok := r.body["needsClarification"]; ok {
		t.Errorf("a 202 says needsClarification before planning ended: %s", r.raw)
	}
	held.waitEntered(t)
	if got := e.jobStatus(id); got != "planning" {
		t.Fatalf("while the interpreter runs the job is %q, want planning", got)
	}
	held.open()
	eventually(t, "the job to leave planning", func() bool { return e.jobStatus(id) == "pending" })
}

// With an interpreter that plans inside the commit (the embedded rules
// interpreter) there is no planning to go on, so Prefer: respond-async is
// declined, as RFC 7240 allows: the outcome comes at once, 201 or 200,
// without Preference-Applied; docs/http.md and docs/protocol.md say so.
func TestPreferRespondAsyncIsDeclinedWhenTheJobIsCommittedWithItsOutcome(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, "Prefer", "respond-async")
	if r.status != http.StatusCreated || str(r.body, "status") != "pending" || r.header.Get("Preference-Applied") != "" {
		t.Fatalf("create with respond-async: %d status %q Preference-Applied %q; want 201 pending without Preference-Applied", r.status, str(r.body, "status"), r.header.Get("Preference-Applied"))
	}
	a := e.do("POST", "/jobs/"+str(r.body, "jobId")+"/clarification", map[string]any{"answer": "hot"}, "Prefer", "respond-async")
	if a.status != http.StatusOK || str(a.body, "status") != "success" || a.header.Get("Preference-Applied") != "" {
		t.Fatalf("answer with respond-async: %d status %q Preference-Applied %q; want 200 success without Preference-Applied", a.status, str(a.body, "status"), a.header.Get("Preference-Applied"))
	}
	const says = "declines `Prefer: respond-async`"
	for _, doc := range []string{"../docs/http.md", "../docs/protocol.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(strings.Fields(string(b)), " "), says) {
			t.Errorf("%s does not say when the server %s", doc, says)
		}
	}
}

func TestCreateWaitsAtMostSyncWaitThenAnswers202(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held, config: func(c *server.Config) { c.SyncWait = 150 * time.Millisecond }})
	start := time.Now()
	r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen})
	id := wantAccepted(t, r)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("answered after %s, before the sync wait of 150ms ran out", d)
	}
	if got := r.header.Get("Preference-Applied"); got != "" {
		t.Errorf("Preference-Applied = %q with no Prefer header", got)
	}
	held.open()
	eventually(t, "the job to be pending", func() bool { return e.jobStatus(id) == "pending" })
}

func TestCreateWithinSyncWaitAnswers201WithTheOutcome(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen})
	if r.status != http.StatusCreated || str(r.body, "status") != "pending" || r.body["needsClarification"] != true {
		t.Fatalf("got %d %s, want 201 pending with needsClarification", r.status, r.raw)
	}
}

func TestPreferWaitShorterThanSyncWaitIsHonoured(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held}) // SyncWait: the 30s default
	start := time.Now()
	r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, "Prefer", "wait=1")
	wantAccepted(t, r)
	if d := time.Since(start); d < time.Second || d > 20*time.Second {
		t.Errorf("answered after %s, want about 1s", d)
	}
	if got := r.header.Get("Preference-Applied"); got != "wait=1" {
		t.Errorf("Preference-Applied = %q, want wait=1", got)
	}
}

func TestPreferWaitLongerThanSyncWaitIsCappedBySyncWait(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held, config: func(c *server.Config) { c.SyncWait = 100 * time.Millisecond }})
	start := time.Now()
	r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, "Prefer", "wait=60")
	wantAccepted(t, r)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("answered after %s: wait=60 outran the 100ms sync wait", d)
	}
}

func TestPreferWaitZeroMeansRespondAsync(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held})
	r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, "Prefer", "wait=0")
	wantAccepted(t, r)
	if got := r.header.Get("Preference-Applied"); got != "respond-async" {
		t.Errorf("Preference-Applied = %q, want respond-async", got)
	}
}

func TestPreferJunkIsIgnored(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, junk := range []string{"wait=abc", "wait=-3", "lenient, =x;;", "respond-sync", "wait=99999999999", "wait=1.5", "wait"} {
		r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, "Prefer", junk)
		if r.status != http.StatusCreated || str(r.body, "status") != "pending" {
			t.Errorf("Prefer %q: got %d %s, want 201 pending", junk, r.status, r.raw)
		}
	}
}

func TestAnswerRespondAsyncAnswers202ThenPlans(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held})
	held.open() // creation plans at once
	id := str(e.create(map[string]any{"goal": hotFrozen}), "jobId")

	held2 := newHeld(t)
	e.engine.Interpreter = held2
	r := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}, "Prefer", "respond-async")
	wantAccepted(t, r)
	if str(r.body, "clarificationStatus") != "answered" || str(r.body, "clarificationAnswer") != "hot" {
		t.Errorf("the 202 does not carry the committed answer: %s", r.raw)
	}
	held2.waitEntered(t)
	held2.open()
	eventually(t, "the answered job to succeed", func() bool { return e.jobStatus(id) == "success" })
}

func TestDeclineRespondAsyncAnswers202ThenPlans(t *testing.T) {
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": hotFrozen}), "jobId")
	held := newHeld(t)
	e.engine.Interpreter = held
	r := e.do("POST", "/jobs/"+id+"/decline", nil, "Prefer", "respond-async")
	wantAccepted(t, r)
	held.open()
	eventually(t, "the declined job to leave planning", func() bool { return e.jobStatus(id) != "planning" })
}

func TestAnswerWhilePlanningIsConflictWithTheJob(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held})
	id := wantAccepted(t, e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, "Prefer", "respond-async"))
	held.waitEntered(t)
	r := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"})
	wantError(t, r, http.StatusConflict, "conflict", "status is planning")
	if got := str(obj(r.body, "job"), "status"); got != "planning" {
		t.Errorf("the 409 carries job status %q, want planning", got)
	}
}

func TestAsyncJobsAreListedAndStreamed(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held})
	id := wantAccepted(t, e.do("POST", "/jobs", map[string]any{"goal": hotFrozen, "sessionId": "async"}, "Prefer", "respond-async"))
	list := e.do("GET", "/jobs?status=planning&sessionId=async", nil)
	if jobs, _ := list.body["jobs"].([]any); len(jobs) != 1 || str(jobs[0].(map[string]any), "jobId") != id {
		t.Fatalf("GET /jobs?status=planning: %s, want the one async job", list.raw)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, ch := e.openStream(ctx, id)
	held.open()
	waitEvent(t, ch, "asked")
}

func TestWaitingRequestEndsWhenClientLeavesAndJobStillPlans(t *testing.T) {
	held := newHeld(t)
	e := newEnv(t, envOptions{interp: held})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/jobs", strings.NewReader(`{"goal":"hot frozen cheese","sessionId":"gone"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if resp, err := e.srv.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("got %d before the interpreter was released", resp.StatusCode)
	}
	held.open()
	eventually(t, "the abandoned job to be planned", func() bool {
		jobs, _ := e.do("GET", "/jobs?sessionId=gone", nil).body["jobs"].([]any)
		return len(jobs) == 1 && str(jobs[0].(map[string]any), "status") == "pending"
	})
}

func TestOpenAPIDocuments202OnPlanningRoutes(t *testing.T) {
	e := newEnv(t, envOptions{})
	doc := e.do("GET", "/openapi.json", nil).body
	paths := obj(doc, "paths")
	for _, p := range []string{"/jobs", "/jobs/{id}/clarification", "/jobs/{id}/decline"} {
		resp := obj(obj(obj(paths, p), "post"), "responses")
		acc := obj(resp, "202")
		if acc == nil || obj(obj(acc, "headers"), "Location") == nil {
			t.Errorf("POST %s: no 202 with a Location header documented: %v", p, resp)
		}
	}
	if obj(obj(obj(obj(paths, "/jobs/{id}/cancel"), "post"), "responses"), "202") != nil {
		t.Error("cancel documents a 202, but it never plans")
	}
}

// slowRules is the rules interpreter without its Fast mark: the create
// commits first and plans in the background.
type slowRules struct{ askonce.Interpreter }

// lostAfterCreate is a store that goes away right after a create
// committed: every later write is EUNAVAILABLE.
type lostAfterCreate struct{ askonce.Store }

func (lostAfterCreate) UpdateJob(context.Context, *askonce.Change) error {
	return askonce.Unavailable(errors.New("connection refused"))
}

func (lostAfterCreate) AddAttempt(context.Context, string, string, askonce.Attempt, askonce.Event) error {
	return askonce.Unavailable(errors.New("connection refused"))
}

// A create that committed is never answered as a failure: when planning
// it cannot be stored (the database went away after the commit), the
// answer is 202 with the committed job, still planning, which a lease
// takeover resumes later.
func TestCreateCommittedButNotPlannedAnswers202NotAFailure(t *testing.T) {
	t.Parallel()
	r, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{interp: slowRules{r}, config: func(c *server.Config) {
		c.Engine.Store = lostAfterCreate{c.Engine.Store}
	}})
	id := wantAccepted(t, e.do("POST", "/jobs", map[string]any{"goal": "write chapter 1 then review it"}))
	if j, err := e.store.GetJob(context.Background(), askonce.DefaultTenant, id); err != nil || j.Status != askonce.StatusPlanning {
		t.Fatalf("the committed job: %+v, %v; want it stored, planning", j, err)
	}
}
