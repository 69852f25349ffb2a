package server_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/askonce/askonce/internal/metricstest"
)

// After managed and gate traffic, /metrics (scraped over the loopback
// listener and parsed with the Prometheus text parser) holds the counters
// of what happened, and the Go runtime and process collectors.
func TestMetrics_CountersAfterTraffic(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	// Managed: a question answered, and a goal planned at once.
	id := str(e.create(map[string]any{"goal": hotFrozen}), "jobId")
	e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"})
	e.create(map[string]any{"goal": readme})
	// Gate: ask, answer, resume, then the hard cap: fallback, then fail.
	gid := str(e.create(map[string]any{"goal": "refactor the payments module", "mode": "gate"}), "jobId")
	e.do("POST", "/jobs/"+gid+"/report", map[string]any{"question": moduleQuestion})
	e.do("POST", "/jobs/"+gid+"/clarification", map[string]any{"answer": "billing"})
	for _, want := range []string{"resume", "proceed", "fail"} {
		if r := e.do("POST", "/jobs/"+gid+"/report", map[string]any{"question": moduleQuestion}); str(r.body, "action") != want {
			t.Fatalf("report: %s, want %s", r.raw, want)
		}
	}
	e.do("GET", "/nope", nil)

	r := e.do("GET", "/metrics", nil)
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("metrics: %d %s", r.status, r.header.Get("Content-Type"))
	}
	fams := metricstest.Parse(t, string(r.raw))
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"askonce_up", nil, 1},
		// Created 3, re-planned after 2 answers.
		{"askonce_jobs_total", map[string]string{"status": "planning"}, 5},
		{"askonce_jobs_total", map[string]string{"status": "pending"}, 2},
		{"askonce_jobs_total", map[string]string{"status": "success"}, 2},
		{"askonce_jobs_total", map[string]string{"status": "failed"}, 1},
		{"askonce_questions_asked_total", map[string]string{"type": "SELECT_ONE"}, 2},
		{"askonce_hard_cap_total", map[string]string{"outcome": "fallback"}, 1},
		{"askonce_hard_cap_total", map[string]string{"outcome": "fail"}, 1},
		{"askonce_interpreter_attempts_total", map[string]string{"reason": "initial", "outcome": "question"}, 1},
		{"askonce_interpreter_attempts_total", map[string]string{"reason": "initial", "outcome": "plan"}, 1},
		{"askonce_interpreter_attempts_total", map[string]string{"reason": "clarification_answer", "outcome": "plan"}, 1},
		{"askonce_interpreter_attempts_total", map[string]string{"reason": "report", "outcome": "question"}, 4},
		{"askonce_interpreter_attempt_duration_seconds", map[string]string{"outcome": "plan"}, 2},
		{"askonce_http_request_duration_seconds", map[string]string{"route": "POST /jobs", "status": "201"}, 3},
		{"askonce_http_request_duration_seconds", map[string]string{"route": "POST /jobs/{id}/clarification", "status": "200"}, 2},
		{"askonce_http_request_duration_seconds", map[string]string{"route": "POST /jobs/{id}/report", "status": "200"}, 4},
		{"askonce_http_request_duration_seconds", map[string]string{"route": "unmatched", "status": "404"}, 1},
	} {
		if got, ok := metricstest.Value(fams, c.name, c.labels); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	for _, m := range fams["askonce_jobs_total"].GetMetric() {
		if l := m.GetLabel(); len(l) != 1 || l[0].GetValue() == "unknown" {
			t.Errorf("askonce_jobs_total series %v", l)
		}
	}
	// The standard collectors: Go runtime and (on Linux) process metrics.
	if _, ok := metricstest.Value(fams, "go_goroutines", nil); !ok {
		t.Error("no go_goroutines")
	}
	if runtime.GOOS == "linux" {
		if _, ok := metricstest.Value(fams, "process_resident_memory_bytes", nil); !ok {
			t.Error("no process_resident_memory_bytes")
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", r.raw)
	}
}
