package server_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce/internal/tracing/tracingtest"

	"github.com/askonce/askonce/internal/tracing"
	"github.com/askonce/askonce/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func attr(s tracetest.SpanStub, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// An HTTP create and answer are each a server span named after the route,
// with the interpreter attempts they ran as child spans carrying reason,
// outcome and tokens, and store writes in the same trace; the access log
// line of the request carries its trace id.
func TestTracingCreateAndAnswerAreServerSpansWithChildAttemptSpans(t *testing.T) {
	exp := tracingtest.RecordSpans(t)
	e := newEnv(t, envOptions{config: func(c *server.Config) {
		c.Logger = slog.New(tracing.LogHandler(c.Logger.Handler()))
	}})

	j := e.create(map[string]any{"prompt": hotFrozen, "sessionId": "trace"})
	id := str(j, "jobId")
	if str(j, "status") != "pending" {
		t.Fatalf("create: status %q, want pending", str(j, "status"))
	}
	a := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"})
	if a.status != http.StatusOK || str(a.body, "status") != "success" {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}

	// otelhttp ends the server span after the response is written.
	server := map[string]tracetest.SpanStub{}
	eventually(t, "both server spans ended", func() bool {
		for _, s := range exp.GetSpans() {
			if s.SpanKind == trace.SpanKindServer {
				server[s.Name] = s
			}
		}
		return len(server) >= 2
	})
	for _, c := range []struct {
		route, reason, outcome string
	}{
		{"POST /jobs", "initial", "question"},
		{"POST /jobs/{id}/clarification", "clarification_answer", "plan"},
	} {
		srv, ok := server[c.route]
		if !ok {
			t.Fatalf("no server span %q; server spans: %v", c.route, server)
		}
		if v, _ := attr(srv, "url.path"); !strings.HasPrefix(v.AsString(), "/jobs") {
			t.Errorf("%s: url.path %q", c.route, v.AsString())
		}
		var attempts []tracetest.SpanStub
		writes := 0
		for _, s := range exp.GetSpans() {
			if s.SpanContext.TraceID() != srv.SpanContext.TraceID() {
				continue
			}
			switch s.Name {
			case "askonce.interpret":
				if s.Parent.SpanID() != srv.SpanContext.SpanID() {
					t.Errorf("%s: attempt span's parent %s, want the server span %s", c.route, s.Parent.SpanID(), srv.SpanContext.SpanID())
				}
				attempts = append(attempts, s)
			case "sqlite.write":
				writes++
			}
		}
		if len(attempts) != 1 {
			t.Fatalf("%s: %d attempt spans in its trace, want 1", c.route, len(attempts))
		}
		for key, want := range map[attribute.Key]string{
			"askonce.attempt.reason":  c.reason,
			"askonce.attempt.outcome": c.outcome,
			"askonce.job.id":          id,
		} {
			if v, _ := attr(attempts[0], key); v.AsString() != want {
				t.Errorf("%s: attempt span %s = %q, want %q", c.route, key, v.AsString(), want)
			}
		}
		for _, key := range []attribute.Key{"askonce.tokens.prompt", "askonce.tokens.completion"} {
			if _, ok := attr(attempts[0], key); !ok {
				t.Errorf("%s: attempt span has no %s", c.route, key)
			}
		}
		if writes == 0 {
			t.Errorf("%s: no sqlite.write span in its trace", c.route)
		}
		// The access log line of the request names its trace.
		want := "trace_id=" + srv.SpanContext.TraceID().String()
		found := false
		for _, line := range strings.Split(e.logs.String(), "\n") {
			if strings.Contains(line, "http request") && strings.Contains(line, `route="`+c.route+`"`) && strings.Contains(line, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no access log line with %s:\n%s", c.route, want, e.logs.String())
		}
	}
}
