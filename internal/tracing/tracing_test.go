package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func TestEnabledOnlyWhenTheOTELVariablesAskForTraces(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, false},
	} {
		if got := Enabled(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("Enabled(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

func TestSetupWithTracingOffInstallsNothing(t *testing.T) {
	shutdown, err := Setup(context.Background(), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestLogHandlerAddsTheTraceAndSpanIDOfTheContextsSpan(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))).With("k", "v")
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	ctx, span := tp.Tracer("test").Start(context.Background(), "op")
	defer span.End()

	log.InfoContext(ctx, "inside")
	log.Info("outside")
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), buf.String())
	}
	var in, out map[string]any
	if err := json.Unmarshal(lines[0], &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(lines[1], &out); err != nil {
		t.Fatal(err)
	}
	sc := span.SpanContext()
	if in["trace_id"] != sc.TraceID().String() || in["span_id"] != sc.SpanID().String() || in["k"] != "v" {
		t.Errorf("line inside the span: %s, want trace_id %s span_id %s", lines[0], sc.TraceID(), sc.SpanID())
	}
	if _, ok := out["trace_id"]; ok {
		t.Errorf("line without a span has a trace_id: %s", lines[1])
	}
}

func TestCarrierRoundTripsTheSpanContext(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	ctx, span := tp.Tracer("test").Start(context.Background(), "op")
	defer span.End()

	c := Carrier(ctx)
	if c["traceparent"] == "" {
		t.Fatalf("carrier %v has no traceparent", c)
	}
	got := trace.SpanContextFromContext(FromCarrier(context.Background(), c))
	if !got.IsRemote() || got.TraceID() != span.SpanContext().TraceID() || got.SpanID() != span.SpanContext().SpanID() {
		t.Errorf("round trip gave %v, want %v", got, span.SpanContext())
	}
	if Carrier(context.Background()) != nil {
		t.Error("a context without a span has a carrier")
	}
}
