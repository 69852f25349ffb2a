package askonce_test

import (
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"
)

// The engine's askonce.interpret spans go to the global tracer provider
// of the moment: to each provider set in turn, not to the first one the
// engine met (otel's global tracer follows only the first provider set
// after it was made). Not parallel: the provider is global.
func TestInterpretSpansFollowTheGlobalProviderSetLast(t *testing.T) {
	t.Cleanup(func() { otel.SetTracerProvider(noop.NewTracerProvider()) })
	e := newEngine(t, rulesInterpreter(t)) // fast: Create returns once its attempt ran
	// First without a provider set here, then under two in turn.
	create(t, e, "make a plan")
	for i := range 2 {
		exp := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
		otel.SetTracerProvider(tp)
		j := create(t, e, "make a plan")
		var n int
		for _, s := range exp.GetSpans() {
			if s.Name == "askonce.interpret" && hasAttr(s.Attributes, "askonce.job.id", j.ID) {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("provider %d recorded %d askonce.interpret spans of job %s, want 1", i+1, n, j.ID)
		}
		tp.Shutdown(ctx) // (which empties exp)
	}
}

func hasAttr(attrs []attribute.KeyValue, key, value string) bool {
	for _, a := range attrs {
		if string(a.Key) == key && a.Value.AsString() == value {
			return true
		}
	}
	return false
}
