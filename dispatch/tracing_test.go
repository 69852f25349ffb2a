package dispatch

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/askonce/askonce/internal/tracing/tracingtest"

	"github.com/askonce/askonce"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// A delivery queued inside a traced request carries that request's trace:
// the webhook POST has a W3C traceparent with the same trace id, and the
// delivery's span is in the trace too.
func TestTracingWebhookDeliveryCarriesTheTraceOfTheRequestThatQueuedIt(t *testing.T) {
	exp := tracingtest.RecordSpans(t)
	rcv := newReceiver(t, func(string, int) int { return http.StatusOK })
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), testConfig(&Webhook{URL: rcv.URL, Secret: secret, Timeout: 5 * time.Second}))

	ctx, span := otel.Tracer("test").Start(context.Background(), "request")
	j, err := s.eng.Create(ctx, askonce.CreateRequest{Goal: goal})
	span.End()
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess || j.Dispatch != askonce.DispatchQueued {
		t.Fatalf("job %s: status %s dispatch %q, want a queued success", j.ID, j.Status, j.Dispatch)
	}
	if got := s.waitDispatch(t, j.ID); got.Dispatch != askonce.DispatchDelivered {
		t.Fatalf("dispatch %q (%s), want delivered", got.Dispatch, got.DeliveryError)
	}

	reqs := rcv.requests(j.ID)
	if len(reqs) != 1 {
		t.Fatalf("%d POSTs for the job, want 1", len(reqs))
	}
	tp := reqs[0].header.Get("traceparent")
	remote := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), propagation.HeaderCarrier(reqs[0].header)))
	want := span.SpanContext().TraceID()
	if !remote.IsValid() || remote.TraceID() != want {
		t.Fatalf("webhook traceparent %q, want one in trace %s", tp, want)
	}
	var deliver *tracetest.SpanStub
	for _, sp := range exp.GetSpans() {
		if sp.Name == "dispatch.deliver" && sp.SpanContext.TraceID() == want {
			deliver = &sp
		}
	}
	if deliver == nil {
		t.Fatalf("no dispatch.deliver span in trace %s; spans: %v", want, spanNames(exp))
	}
	if remote.SpanID() != deliver.SpanContext.SpanID() {
		t.Errorf("traceparent parent span %s, want the delivery's span %s", remote.SpanID(), deliver.SpanContext.SpanID())
	}
}

func spanNames(exp *tracetest.InMemoryExporter) []string {
	var out []string
	for _, s := range exp.GetSpans() {
		out = append(out, s.Name)
	}
	return out
}
