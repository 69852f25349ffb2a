package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
	"github.com/askonce/askonce/webhook"
)

// goal is planned by the rules interpreter without a question.
const goal = "write the README then add tests"

const secret = "whsec_" + "c2VjcmV0LWtleS1mb3ItdGVzdHM=" // base64("secret-key-for-tests")

// stack is a store, a dispatcher on its write pool, and an engine, all on
// one SQLite file.
type stack struct {
	path string
	hook *Hook
	st   *sqlite.Store
	d    *Dispatcher
	eng  *askonce.Engine
	once sync.Once
}

// testConfig is a Config with tiny waits.
func testConfig(b Builder) Config {
	return Config{
		Builder:      b,
		MaxAttempts:  5,
		Backoff:      func(int) time.Duration { return 5 * time.Millisecond },
		PollInterval: 20 * time.Millisecond,
		JobTimeout:   20 * time.Second,
		Concurrency:  4,
		Logger:       testLogger(),
		testOnly:     true,
	}
}

// testLogger discards River's logs unless DISPATCH_TEST_LOG is set.
func testLogger() *slog.Logger {
	if os.Getenv("DISPATCH_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// openStack opens (or re-opens) the file at path with a started
// dispatcher configured by cfg; cleanup stops and closes it unless the
// test did.
func openStack(t *testing.T, path string, cfg Config) *stack {
	t.Helper()
	ctx := t.Context()
	s := &stack{path: path, hook: new(Hook)}
	var err error
	s.st, err = sqlite.Options{OnDispatch: s.hook.Enqueue}.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DB, cfg.Store = s.st.WriteDB(), s.st
	s.d, err = New(ctx, cfg)
	if err != nil {
		s.st.Close()
		t.Fatal(err)
	}
	s.hook.Set(s.d)
	if err := s.d.Start(ctx); err != nil {
		s.st.Close()
		t.Fatal(err)
	}
	interp, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.eng = &askonce.Engine{Store: s.st, Interpreter: interp}
	t.Cleanup(func() { s.close(t) })
	return s
}

// close stops the dispatcher gracefully, then closes the store, once.
func (s *stack) close(t *testing.T) {
	t.Helper()
	s.once.Do(func() { s.closeOnce(t) })
}

func (s *stack) closeOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 20*time.Second)
	defer cancel()
	if err := s.d.Stop(ctx); err != nil {
		t.Errorf("stop: %v", err)
	}
	if err := s.st.Close(); err != nil {
		t.Errorf("close store: %v", err)
	}
}

// succeed creates a job that the engine plans at once, so it is
// dispatched in the success transaction.
func (s *stack) succeed(t *testing.T) *askonce.Job {
	t.Helper()
	j, err := s.eng.Create(context.Background(), askonce.CreateRequest{Goal: goal})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess || j.Dispatch != askonce.DispatchQueued || j.Plan == nil {
		t.Fatalf("job %s: status %s dispatch %q plan %v, want a queued success", j.ID, j.Status, j.Dispatch, j.Plan)
	}
	return j
}

// waitDispatch waits until the job's dispatch is settled (delivered or
// failed) and returns it.
func (s *stack) waitDispatch(t *testing.T, id string) *askonce.Job {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		j, err := s.st.GetJob(context.Background(), askonce.DefaultTenant, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Dispatch == askonce.DispatchDelivered || j.Dispatch == askonce.DispatchFailed {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: dispatch still %q after %d tries (last error %q)", id, j.Dispatch, j.DeliveryAttempts, j.DeliveryError)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// deliveryEvents returns the job's delivered and delivery_failed events.
func (s *stack) deliveryEvents(t *testing.T, id string) []askonce.Event {
	t.Helper()
	evs, err := s.st.Events(context.Background(), askonce.EventQuery{TenantID: askonce.DefaultTenant, JobID: id})
	if err != nil {
		t.Fatal(err)
	}
	var out []askonce.Event
	for _, e := range evs {
		if e.Type == askonce.EventDelivered || e.Type == askonce.EventDeliveryFailed {
			out = append(out, e)
		}
	}
	return out
}

// receiver is a webhook endpoint on loopback that records every request.
type receiver struct {
	*httptest.Server
	// status decides the answer to the n-th request (from 1) for an id.
	status func(id string, n int) int
	delay  time.Duration

	mu    sync.Mutex
	tries map[string]int
	acked map[string]int // 2xx answers per webhook-id
	reqs  []request
}

type request struct {
	header http.Header
	body   []byte
	status int
}

func newReceiver(t *testing.T, status func(id string, n int) int) *receiver {
	r := &receiver{status: status, tries: map[string]int{}, acked: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if r.delay > 0 {
		time.Sleep(r.delay)
	}
	id := req.Header.Get(webhook.HeaderID)
	r.mu.Lock()
	r.tries[id]++
	code := r.status(id, r.tries[id])
	if code/100 == 2 {
		r.acked[id]++
	}
	r.reqs = append(r.reqs, request{header: req.Header.Clone(), body: body, status: code})
	r.mu.Unlock()
	w.WriteHeader(code)
	fmt.Fprintf(w, "status %d", code)
}

func (r *receiver) requests(id string) []request {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []request
	for _, q := range r.reqs {
		if q.header.Get(webhook.HeaderID) == id {
			out = append(out, q)
		}
	}
	return out
}

func (r *receiver) ackCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.acked)
}

func TestRule11_WebhookRetriesUntilDelivered(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(_ string, n int) int {
		if n <= 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	var mu sync.Mutex
	var oks, fails int
	cfg := testConfig(&Webhook{URL: rcv.URL + "/hook?token=hidden", Secret: secret, Timeout: 5 * time.Second})
	cfg.OnDelivery = func(builder string, ok bool, _ time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		if builder != "webhook" {
			t.Errorf("OnDelivery builder %q", builder)
		}
		if ok {
			oks++
		} else {
			fails++
		}
	}
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), cfg)
	j := s.succeed(t)

	got := s.waitDispatch(t, j.ID)
	if got.Dispatch != askonce.DispatchDelivered || got.DeliveryAttempts != 3 || got.DeliveryError != "" {
		t.Fatalf("dispatch %q attempts %d error %q, want delivered after 3 with no error", got.Dispatch, got.DeliveryAttempts, got.DeliveryError)
	}
	evs := s.deliveryEvents(t, j.ID)
	var types []askonce.EventType
	for _, e := range evs {
		types = append(types, e.Type)
	}
	want := []askonce.EventType{askonce.EventDeliveryFailed, askonce.EventDeliveryFailed, askonce.EventDelivered}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	var failed struct {
		Error   string `json:"error"`
		Attempt int    `json:"attempt"`
		Final   bool   `json:"final"`
	}
	if err := json.Unmarshal(evs[1].Data, &failed); err != nil {
		t.Fatal(err)
	}
	if failed.Attempt != 2 || failed.Final || !strings.Contains(failed.Error, "500") {
		t.Errorf("second delivery_failed event %s", evs[1].Data)
	}

	reqs := rcv.requests(j.ID)
	if len(reqs) != 3 {
		t.Fatalf("receiver got %d requests for %s, want 3", len(reqs), j.ID)
	}
	acked := 0
	for _, q := range reqs {
		if err := webhook.Verify(secret, q.header, q.body, time.Minute); err != nil {
			t.Errorf("Verify: %v", err)
		}
		if q.status/100 == 2 {
			acked++
		}
	}
	if acked != 1 {
		t.Errorf("%d acknowledged deliveries, want 1", acked)
	}
	var env struct {
		Type      string          `json:"type"`
		Timestamp time.Time       `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
	last := reqs[2]
	if err := json.Unmarshal(last.body, &env); err != nil {
		t.Fatal(err)
	}
	var sent askonce.Job
	if err := json.Unmarshal(env.Data, &sent); err != nil {
		t.Fatal(err)
	}
	if env.Type != EventJobSucceeded || env.Timestamp.IsZero() || sent.ID != j.ID || sent.Status != askonce.StatusSuccess ||
		sent.Plan == nil || len(sent.Plan.Tasks) == 0 {
		t.Errorf("body %s", last.body)
	}
	if ct := last.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	mu.Lock()
	if oks != 1 || fails != 2 {
		t.Errorf("OnDelivery saw %d ok and %d failed, want 1 and 2", oks, fails)
	}
	mu.Unlock()
	// The URL's query (a token) stays out of recorded errors.
	for _, e := range evs {
		if strings.Contains(string(e.Data), "hidden") {
			t.Errorf("event leaks the URL: %s", e.Data)
		}
	}
}

func testWebhookGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(string, int) int { return http.StatusServiceUnavailable })
	cfg := testConfig(&Webhook{URL: rcv.URL, Secret: secret})
	cfg.MaxAttempts = 3
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), cfg)
	j := s.succeed(t)

	got := s.waitDispatch(t, j.ID)
	if got.Dispatch != askonce.DispatchFailed || got.DeliveryAttempts != 3 || !strings.Contains(got.DeliveryError, "503") {
		t.Fatalf("dispatch %q attempts %d error %q, want failed after 3 with the last error", got.Dispatch, got.DeliveryAttempts, got.DeliveryError)
	}
	evs := s.deliveryEvents(t, j.ID)
	if len(evs) != 3 {
		t.Fatalf("%d delivery events, want 3", len(evs))
	}
	for i, e := range evs {
		var data struct {
			Final bool `json:"final"`
		}
		json.Unmarshal(e.Data, &data)
		if e.Type != askonce.EventDeliveryFailed || data.Final != (i == 2) {
			t.Errorf("event %d: %s %s", i, e.Type, e.Data)
		}
	}
	// No try after the last one.
	time.Sleep(200 * time.Millisecond)
	if n := len(rcv.requests(j.ID)); n != 3 {
		t.Errorf("receiver got %d requests, want 3", n)
	}
}

func testWebhookUnreachableIsAFailedTry(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	cfg := testConfig(&Webhook{URL: url, Secret: secret, Timeout: 2 * time.Second})
	cfg.MaxAttempts = 2
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), cfg)
	j := s.succeed(t)
	got := s.waitDispatch(t, j.ID)
	if got.Dispatch != askonce.DispatchFailed || got.DeliveryAttempts != 2 || !strings.Contains(got.DeliveryError, "webhook:") {
		t.Fatalf("dispatch %q attempts %d error %q", got.Dispatch, got.DeliveryAttempts, got.DeliveryError)
	}
}

func TestNoneBuilderQueuesNothing(t *testing.T) {
	t.Parallel()
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), testConfig(nil))
	j := s.succeed(t)
	time.Sleep(100 * time.Millisecond)
	got, err := s.st.GetJob(t.Context(), askonce.DefaultTenant, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Dispatch != askonce.DispatchQueued || got.DeliveryAttempts != 0 {
		t.Errorf("dispatch %q attempts %d, want queued and untouched", got.Dispatch, got.DeliveryAttempts)
	}
	// Builders poll for successful jobs instead.
	page, err := s.st.ListJobs(t.Context(), askonce.DefaultTenant, askonce.JobFilter{Status: askonce.StatusSuccess})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Jobs) != 1 || page.Jobs[0].ID != j.ID {
		t.Errorf("GET /jobs?status=success would list %d jobs", len(page.Jobs))
	}
	// Not even River's tables exist.
	var n int
	if err := s.st.WriteDB().QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_master WHERE name = 'river_job'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("river_job exists with the none builder")
	}
}

func TestRule11_EnqueueIsUniquePerJob(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(string, int) int { return http.StatusOK })
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), testConfig(&Webhook{URL: rcv.URL, Secret: secret}))
	j := s.succeed(t)
	s.waitDispatch(t, j.ID)

	// A second queueing of the same job, even after its delivery
	// completed, inserts nothing.
	ctx := t.Context()
	tx, err := s.st.WriteDB().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.d.Enqueue(ctx, tx, j); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.st.WriteDB().QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE kind = ?`, jobKind).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d river jobs, want 1", n)
	}
	time.Sleep(100 * time.Millisecond)
	if len(rcv.requests(j.ID)) != 1 {
		t.Errorf("delivered %d times", len(rcv.requests(j.ID)))
	}
	// And the store refuses a second dispatch of a job on its own.
	again := j.Clone()
	cur, _ := s.st.GetJob(ctx, j.TenantID, j.ID)
	again.Version = cur.Version
	if err := s.st.UpdateJob(ctx, &askonce.Change{Job: again, Dispatch: true}); askonce.ErrorCode(err) != askonce.ECONFLICT {
		t.Errorf("second dispatch: %v, want a conflict", err)
	}
}

// A success whose queue entry cannot be written is rolled back with it:
// on the row-first path the job stays as it was before the success; with
// a fast interpreter, whose job commits with its outcome, nothing is
// stored at all.
func TestHookBeforeSetRollsBackTheSuccess(t *testing.T) {
	t.Parallel()
	interp, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		interp askonce.Interpreter
		jobs   int
	}{
		{"RowFirst", askonce.InterpreterFunc(interp.Interpret), 1},
		{"Fast", interp, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hook Hook
			st, err := sqlite.Options{OnDispatch: hook.Enqueue}.Open(t.Context(), filepath.Join(t.TempDir(), "a.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			eng := &askonce.Engine{Store: st, Interpreter: tc.interp}
			if _, err := eng.Create(t.Context(), askonce.CreateRequest{Goal: goal}); err == nil {
				t.Fatal("a success went through with no dispatcher to queue it")
			}
			page, err := st.ListJobs(t.Context(), askonce.DefaultTenant, askonce.JobFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Jobs) != tc.jobs {
				t.Fatalf("%d jobs stored, want %d", len(page.Jobs), tc.jobs)
			}
			for _, j := range page.Jobs {
				if j.Status == askonce.StatusSuccess || j.Dispatch != askonce.DispatchNone {
					t.Errorf("job %s is %s with dispatch %q, want it left before success", j.ID, j.Status, j.Dispatch)
				}
			}
		})
	}
}

// TestExactlyOnceAcrossRestart drives many jobs to success at once while
// deliveries run on the same connection, some failing a first time, then
// stops the dispatcher and closes the store mid-way, re-opens both on the
// same file and checks that every job is acknowledged exactly once.
func TestRule11_ExactlyOnceAcrossRestart(t *testing.T) {
	t.Parallel()
	const jobs = 50
	rcv := newReceiver(t, func(id string, n int) int {
		// Every job whose id ends in an even hex digit fails its first try.
		if n == 1 && strings.ContainsAny(id[len(id)-1:], "02468ace") {
			return http.StatusBadGateway
		}
		return http.StatusNoContent
	})
	rcv.delay = 15 * time.Millisecond
	path := filepath.Join(t.TempDir(), "a.db")
	cfg := testConfig(&Webhook{URL: rcv.URL, Secret: secret})
	cfg.Concurrency = 2
	s := openStack(t, path, cfg)

	ids := make(chan string, jobs)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			j, err := s.eng.Create(context.Background(), askonce.CreateRequest{Goal: goal})
			if err != nil {
				t.Errorf("create: %v", err)
				return
			}
			if j.Status != askonce.StatusSuccess {
				t.Errorf("job %s is %s", j.ID, j.Status)
			}
			ids <- j.ID
		})
	}
	wg.Wait()
	close(ids)
	if t.Failed() {
		t.FailNow()
	}

	// Stop mid-way.
	deadline := time.Now().Add(10 * time.Second)
	for rcv.ackCount() < jobs/5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	s.close(t)
	stoppedAt := rcv.ackCount()
	t.Logf("acknowledged before the restart: %d of %d", stoppedAt, jobs)
	if stoppedAt == jobs {
		t.Log("every delivery finished before the stop; the restart has nothing left to do")
	}

	// No delivery runs while nothing is open.
	time.Sleep(50 * time.Millisecond)
	if n := rcv.ackCount(); n != stoppedAt {
		t.Errorf("%d deliveries acknowledged after the stop", n-stoppedAt)
	}

	s2 := openStack(t, path, cfg)
	for id := range ids {
		j := s2.waitDispatch(t, id)
		if j.Dispatch != askonce.DispatchDelivered {
			t.Errorf("job %s: %s (%s)", id, j.Dispatch, j.DeliveryError)
		}
	}
	time.Sleep(100 * time.Millisecond) // a duplicate would arrive now
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.acked) != jobs {
		t.Errorf("%d ids acknowledged, want %d", len(rcv.acked), jobs)
	}
	for id, n := range rcv.acked {
		if n != 1 {
			t.Errorf("job %s acknowledged %d times", id, n)
		}
	}
	for _, q := range rcv.reqs {
		if err := webhook.Verify(secret, q.header, q.body, time.Minute); err != nil {
			t.Errorf("Verify: %v", err)
		}
	}
}

// TestLoadOnTheSharedConnection runs River on the store's one write
// connection while many jobs are created and read at once: no write may
// fail (SQLITE_BUSY or otherwise) and nothing may hang.
func TestLoadOnTheSharedConnection(t *testing.T) {
	t.Parallel()
	const jobs, creators = 200, 16
	rcv := newReceiver(t, func(string, int) int { return http.StatusOK })
	cfg := testConfig(&Webhook{URL: rcv.URL, Secret: secret})
	cfg.Concurrency = 8
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), cfg)

	// A bound, not a speed claim: under -race on a busy 2-core machine
	// 200 creates with deliveries take tens of seconds.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ids := make(chan string, jobs)
	sem := make(chan struct{}, creators)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			j, err := s.eng.Create(ctx, askonce.CreateRequest{Goal: goal})
			if err != nil {
				t.Errorf("create: %v", err)
				return
			}
			if _, err := s.st.ListJobs(ctx, askonce.DefaultTenant, askonce.JobFilter{Status: askonce.StatusSuccess, Limit: 10}); err != nil {
				t.Errorf("list: %v", err)
			}
			ids <- j.ID
		})
	}
	wg.Wait()
	close(ids)
	for id := range ids {
		if j := s.waitDispatch(t, id); j.Dispatch != askonce.DispatchDelivered || j.DeliveryAttempts != 1 {
			t.Errorf("job %s: %s after %d tries (%s)", id, j.Dispatch, j.DeliveryAttempts, j.DeliveryError)
		}
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.reqs) != jobs || len(rcv.acked) != jobs {
		t.Errorf("%d requests for %d ids, want %d", len(rcv.reqs), len(rcv.acked), jobs)
	}
}
