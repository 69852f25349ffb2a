package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce/internal/metricstest"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/metrics"
	dto "github.com/prometheus/client_model/go"
)

func gather(t *testing.T, r *metrics.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return metricstest.Parse(t, b.String())
}

// value is metricstest.Value with the labels as name, value pairs.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	return metricstest.Value(fams, name, want)
}

func TestServeHTTP_TextFormatWithRuntimeAndProcessMetrics(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	metrics.NewObserver(r)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	fams := metricstest.Parse(t, w.Body.String())
	if v, ok := value(fams, metrics.NameUp); !ok || v != 1 {
		t.Errorf("askonce_up = %v, %v", v, ok)
	}
	if _, ok := value(fams, "go_goroutines"); !ok {
		t.Error("no go_goroutines: the Go collector is not registered")
	}
	if runtime.GOOS == "linux" {
		if _, ok := value(fams, "process_resident_memory_bytes"); !ok {
			t.Error("no process_resident_memory_bytes: the process collector is not registered")
		}
	}
}

// The observer takes its labels from the transition's typed fields: the
// status entered (fx.From to job.Status), the question's type, the answer's
// source, the hard-cap outcome. Event data is not read.
func TestObserver_CountsTransitionsAttemptsDeliveriesAndRequests(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	o := metrics.NewObserver(r)
	if o != metrics.NewObserver(r) {
		t.Fatal("NewObserver on one registry returned two observers")
	}
	ev := func(types ...askonce.EventType) []askonce.Event {
		var evs []askonce.Event
		for _, typ := range types {
			evs = append(evs, askonce.Event{Type: typ})
		}
		return evs
	}
	planning, pending := askonce.StatusPlanning, askonce.StatusPending
	o.JobCreated(&askonce.Job{})
	// Asked: planning -> pending, the type from the job's question.
	o.Transition(&askonce.Job{Status: pending, Question: &askonce.Question{Type: askonce.QuestionSelectOne}},
		&askonce.Effects{From: planning, Events: ev(askonce.EventAsked)})
	// Answered: pending -> planning.
	o.Transition(&askonce.Job{Status: planning, AnswerSource: askonce.SourceUser},
		&askonce.Effects{From: pending, Events: ev(askonce.EventAnswered)})
	// Auto-resolved: no status entered; the source from the job.
	o.Transition(&askonce.Job{Status: planning, AnswerSource: askonce.SourceHistory},
		&askonce.Effects{From: planning, Events: ev(askonce.EventAutoResolved)})
	o.Transition(&askonce.Job{Status: planning}, &askonce.Effects{From: planning, Events: ev(askonce.EventGated)})
	// The hard cap's fallback, then its failure.
	o.Transition(&askonce.Job{Status: planning}, &askonce.Effects{From: planning, HardCap: askonce.HardCapFallback, Events: ev(askonce.EventFallbackApplied)})
	o.Transition(&askonce.Job{Status: askonce.StatusFailed}, &askonce.Effects{From: planning, HardCap: askonce.HardCapFail, Events: ev(askonce.EventFailed)})
	// A failure for another reason is not the hard cap.
	o.Transition(&askonce.Job{Status: askonce.StatusFailed}, &askonce.Effects{From: planning, Events: ev(askonce.EventFailed)})
	// A decline's fallback is the user's choice, not the hard cap.
	o.Transition(&askonce.Job{Status: planning}, &askonce.Effects{From: pending, Events: ev(askonce.EventAnswered, askonce.EventFallbackApplied)})
	o.Attempt(nil, askonce.Attempt{Reason: askonce.ReasonInitial, Outcome: askonce.AttemptQuestion, Duration: 20 * time.Millisecond})
	o.Attempt(nil, askonce.Attempt{Reason: askonce.ReasonReport, Outcome: askonce.AttemptPlan})
	o.ObserveDelivery("webhook", true, 30*time.Millisecond)
	r.ObserveDelivery("webhook", false, time.Second)
	o.ObserveHTTP("POST /jobs", 201, 3*time.Millisecond)
	o.ObserveElicitation("form", "accept")

	fams := gather(t, r)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{metrics.NameUp, nil, 1},
		{metrics.NameJobs, []string{"status", "planning"}, 3},
		{metrics.NameJobs, []string{"status", "pending"}, 1},
		{metrics.NameJobs, []string{"status", "failed"}, 2},
		{metrics.NameQuestions, []string{"type", "SELECT_ONE"}, 1},
		{metrics.NameAutoResolved, []string{"source", "history"}, 1},
		{metrics.NameGated, nil, 1},
		{metrics.NameHardCap, []string{"outcome", "fallback"}, 1},
		{metrics.NameHardCap, []string{"outcome", "fail"}, 1},
		{metrics.NameAttempts, []string{"reason", "initial", "outcome", "question"}, 1},
		{metrics.NameAttempts, []string{"reason", "report", "outcome", "plan"}, 1},
		{metrics.NameAttemptSeconds, []string{"outcome", "question"}, 1},
		{metrics.NameDeliveries, []string{"builder", "webhook", "outcome", "ok"}, 1},
		{metrics.NameDeliveries, []string{"builder", "webhook", "outcome", "error"}, 1},
		{metrics.NameDeliverySeconds, []string{"builder", "webhook", "outcome", "error"}, 1},
		{metrics.NameHTTPSeconds, []string{"route", "POST /jobs", "status", "201"}, 1},
		{metrics.NameElicitations, []string{"mode", "form", "outcome", "accept"}, 1},
	} {
		if got, ok := value(fams, c.name, c.labels...); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if _, ok := value(fams, metrics.NameAttemptSeconds, "outcome", "plan"); ok {
		t.Error("a gate report was observed as interpreter latency")
	}
	for _, name := range []string{metrics.NameJobs, metrics.NameQuestions, metrics.NameAutoResolved} {
		for _, m := range fams[name].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == "unknown" {
					t.Errorf("%s has an unknown label: %v", name, m)
				}
			}
		}
	}
}

// Driving the real engine through Step's effects gives the same labels: an
// asked question is counted by its type, read from the job, not from the
// event's JSON.
func TestObserver_CountsStepEffects(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	o := metrics.NewObserver(r)
	now := time.Now()
	job := &askonce.Job{ID: "j", Status: askonce.StatusPlanning, Goal: "do the thing", HardCap: askonce.HardCapFail, ClarificationStatus: askonce.ClarificationNone}
	q := askonce.Question{Type: askonce.QuestionConfirm, Text: "Proceed?"}
	next, fx, err := askonce.Step(job, askonce.Asked{Question: q}, now)
	if err != nil {
		t.Fatal(err)
	}
	o.Transition(next, fx)
	if next.Status != askonce.StatusPending {
		t.Fatalf("Step asked: status %q, events %v", next.Status, fx.Events)
	}
	if fx.From != askonce.StatusPlanning {
		t.Errorf("Effects.From = %q, want planning", fx.From)
	}
	fams := gather(t, r)
	if v, _ := value(fams, metrics.NameQuestions, "type", string(askonce.QuestionConfirm)); v != 1 {
		t.Errorf("questions{type=CONFIRM} = %v, want 1", v)
	}
	if v, _ := value(fams, metrics.NameJobs, "status", "pending"); v != 1 {
		t.Errorf("jobs{status=pending} = %v, want 1", v)
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
	o.ObserveElicitation("form", "accept")
	o.AddMCPSessions(1)
	o.AddMCPCalls(1)
	o.ObserveMCPRefused("calls")
	if metrics.NewObserver(nil) != nil {
		t.Error("NewObserver(nil) is not nil")
	}
}

// The MCP gauges go up and down with their sessions and calls; refusals
// are counted by limit.
func TestObserver_MCPSessionsCallsAndRefusals(t *testing.T) {
	t.Parallel()
	r := metrics.NewRegistry()
	o := metrics.NewObserver(r)
	o.AddMCPSessions(1)
	o.AddMCPSessions(1)
	o.AddMCPSessions(-1)
	o.AddMCPCalls(1)
	o.ObserveMCPRefused("sessions")
	o.ObserveMCPRefused("sessions")
	fams := gather(t, r)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{metrics.NameMCPSessions, nil, 1},
		{metrics.NameMCPCalls, nil, 1},
		{metrics.NameMCPRefused, []string{"limit", "sessions"}, 2},
	} {
		if v, ok := value(fams, c.name, c.labels...); !ok || v != c.want {
			t.Errorf("%s%v = %v (%v), want %v", c.name, c.labels, v, ok, c.want)
		}
	}
}
