package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// After managed and gate traffic, /metrics holds the counters of what
// happened.
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
	text := string(r.raw)
	for _, line := range []string{
		`askonce_up 1`,
		// Created 3, re-planned after 2 answers.
		`askonce_jobs_total{status="planning"} 5`,
		`askonce_jobs_total{status="pending"} 2`,
		`askonce_jobs_total{status="success"} 2`,
		`askonce_jobs_total{status="failed"} 1`,
		`askonce_questions_asked_total{type="SELECT_ONE"} 2`,
		`askonce_hard_cap_total{outcome="fallback"} 1`,
		`askonce_hard_cap_total{outcome="fail"} 1`,
		`askonce_interpreter_attempts_total{reason="initial",outcome="question"} 1`,
		`askonce_interpreter_attempts_total{reason="initial",outcome="plan"} 1`,
		`askonce_interpreter_attempts_total{reason="clarification_answer",outcome="plan"} 1`,
		`askonce_interpreter_attempts_total{reason="report",outcome="question"} 4`,
		`askonce_interpreter_attempt_duration_seconds_count{outcome="plan"} 2`,
		`askonce_http_request_duration_seconds_count{route="POST /jobs",status="201"} 3`,
		`askonce_http_request_duration_seconds_count{route="POST /jobs/{id}/clarification",status="200"} 2`,
		`askonce_http_request_duration_seconds_count{route="POST /jobs/{id}/report",status="200"} 4`,
		`askonce_http_request_duration_seconds_count{route="unmatched",status="404"} 1`,
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("missing %s", line)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", text)
	}
}
