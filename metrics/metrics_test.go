package metrics_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/metrics"
)

func text(t *testing.T, r *metrics.Registry) string {
	t.Helper()
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteText_ExpositionFormat(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	c := r.Counter("demo_total", "A demo\ncounter with a \\ backslash.", "kind")
	c.Inc("b")
	c.Add(2.5, "a")
	c.Inc(`quote " and \ and` + "\nnewline")
	g := r.Gauge("demo_up", "")
	g.Set(1)
	h := r.Histogram("demo_seconds", "Latency.", []float64{0.1, 1}, "route")
	h.Observe(0.05, "x")
	h.Observe(0.1, "x") // on the bound: le="0.1"
	h.Observe(3, "x")

	want := `# TYPE demo_seconds histogram
demo_seconds_bucket{route="x",le="0.1"} 2
demo_seconds_bucket{route="x",le="1"} 2
demo_seconds_bucket{route="x",le="+Inf"} 3
demo_seconds_sum{route="x"} 3.15
demo_seconds_count{route="x"} 3
# HELP demo_total A demo\ncounter with a \\ backslash.
# TYPE demo_total counter
demo_total{kind="a"} 2.5
demo_total{kind="b"} 1
demo_total{kind="quote \" and \\ and\nnewline"} 1
# TYPE demo_up gauge
demo_up 1
`
	got := text(t, r)
	// The help line of the histogram comes first; check it, then the rest.
	const helpLine = "# HELP demo_seconds Latency.\n"
	if !strings.HasPrefix(got, helpLine) || got[len(helpLine):] != want {
		t.Fatalf("exposition:\n%s\nwant:\n%s%s", got, helpLine, want)
	}
}

func TestRegister_SameNameSharesTheFamily(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	r.Counter("x_total", "x", "a").Inc("1")
	r.Counter("x_total", "x", "a").Inc("1")
	if !strings.Contains(text(t, r), `x_total{a="1"} 2`) {
		t.Fatalf("re-registration did not share:\n%s", text(t, r))
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering x_total as a gauge did not panic")
		}
	}()
	r.Gauge("x_total", "x", "a")
}

func TestCounter_WrongLabelCountPanics(t *testing.T) {
	t.Parallel()
	c := metrics.NewRegistry().Counter("y_total", "y", "a", "b")
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	c.Inc("only-one")
}

func TestCounter_ConcurrentIncrementsAllCount(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	c := r.Counter("z_total", "z")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				c.Inc()
			}
		})
	}
	wg.Wait()
	if !strings.Contains(text(t, r), "z_total 8000\n") {
		t.Fatal(text(t, r))
	}
}

func TestServeHTTP_ContentType(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	metrics.NewObserver(r)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if ct := w.Header().Get("Content-Type"); ct != metrics.ContentType {
		t.Fatalf("content type %q", ct)
	}
	if !strings.Contains(w.Body.String(), "askonce_up 1\n") {
		t.Fatalf("body:\n%s", w.Body.String())
	}
}

func event(typ askonce.EventType, data map[string]any) askonce.Event {
	ev := askonce.Event{Type: typ}
	if data != nil {
		ev.Data, _ = json.Marshal(data)
	}
	return ev
}

func TestObserver_CountsTransitionsAttemptsDeliveriesAndRequests(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	o := metrics.NewObserver(r)
	if o != metrics.NewObserver(r) {
		t.Fatal("NewObserver on one registry returned two observers")
	}
	o.JobCreated(&askonce.Job{})
	o.Transition(&askonce.Job{Status: askonce.StatusPending}, &askonce.Effects{Events: []askonce.Event{
		event(askonce.EventAttempt, nil),
		event(askonce.EventAsked, map[string]any{"type": "SELECT_ONE"}),
	}})
	o.Transition(&askonce.Job{Status: askonce.StatusPlanning}, &askonce.Effects{Events: []askonce.Event{
		event(askonce.EventAutoResolved, map[string]any{"source": "history"}),
	}})
	o.Transition(&askonce.Job{}, &askonce.Effects{Events: []askonce.Event{event(askonce.EventGated, nil)}})
	// The hard cap's fallback, then its failure.
	o.Transition(&askonce.Job{}, &askonce.Effects{Events: []askonce.Event{event(askonce.EventFallbackApplied, nil)}})
	o.Transition(&askonce.Job{Status: askonce.StatusFailed, Error: askonce.HardCapMessage}, &askonce.Effects{Events: []askonce.Event{event(askonce.EventFailed, nil)}})
	// A failure for another reason is not the hard cap.
	o.Transition(&askonce.Job{Status: askonce.StatusFailed, Error: "interpreter error: boom"}, &askonce.Effects{Events: []askonce.Event{event(askonce.EventFailed, nil)}})
	// A decline's fallback is the user's choice, not the hard cap.
	o.Transition(&askonce.Job{}, &askonce.Effects{Events: []askonce.Event{event(askonce.EventAnswered, nil), event(askonce.EventFallbackApplied, nil)}})
	o.Attempt(nil, askonce.Attempt{Reason: askonce.ReasonInitial, Outcome: askonce.AttemptQuestion, Duration: 20 * time.Millisecond})
	o.Attempt(nil, askonce.Attempt{Reason: askonce.ReasonReport, Outcome: askonce.AttemptPlan})
	o.ObserveDelivery("webhook", true, 30*time.Millisecond)
	r.ObserveDelivery("webhook", false, time.Second)
	o.ObserveHTTP("POST /jobs", 201, 3*time.Millisecond)

	got := text(t, r)
	for _, line := range []string{
		`askonce_up 1`,
		`askonce_jobs_total{status="planning"} 2`,
		`askonce_jobs_total{status="pending"} 1`,
		`askonce_jobs_total{status="failed"} 2`,
		`askonce_questions_asked_total{type="SELECT_ONE"} 1`,
		`askonce_auto_resolved_total{source="history"} 1`,
		`askonce_gated_total 1`,
		`askonce_hard_cap_total{outcome="fallback"} 1`,
		`askonce_hard_cap_total{outcome="fail"} 1`,
		`askonce_interpreter_attempts_total{reason="initial",outcome="question"} 1`,
		`askonce_interpreter_attempts_total{reason="report",outcome="plan"} 1`,
		`askonce_interpreter_attempt_duration_seconds_count{outcome="question"} 1`,
		`askonce_dispatch_deliveries_total{builder="webhook",outcome="ok"} 1`,
		`askonce_dispatch_deliveries_total{builder="webhook",outcome="error"} 1`,
		`askonce_dispatch_delivery_duration_seconds_count{builder="webhook",outcome="error"} 1`,
		`askonce_http_request_duration_seconds_count{route="POST /jobs",status="201"} 1`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("missing %q", line)
		}
	}
	if strings.Contains(got, `askonce_interpreter_attempt_duration_seconds_count{outcome="plan"}`) {
		t.Error("a gate report was observed as interpreter latency")
	}
	if t.Failed() {
		t.Logf("exposition:\n%s", got)
	}
}

func TestObserver_NilRecordsNothing(t *testing.T) {
	t.Parallel()
	var o *metrics.Observer
	o.Transition(&askonce.Job{}, &askonce.Effects{})
	o.Attempt(nil, askonce.Attempt{})
	o.JobCreated(nil)
	o.ObserveDelivery("x", true, 0)
	o.ObserveHTTP("x", 200, 0)
}
