// Package tracing sets up askonce's OpenTelemetry tracing and holds the
// small pieces the other packages share: the W3C trace context carried by
// queued deliveries, and a log handler that stamps each line with the
// trace it belongs to.
//
// Tracing is off unless the standard OTEL_* environment variables ask for
// it (see [Enabled]). Off, the global tracer provider stays OpenTelemetry's
// no-op one, so the spans askonce starts cost next to nothing.
package tracing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// ServiceName is the service.name of askonce's spans unless
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES names another.
const ServiceName = "askonce"

// Enabled reports whether the environment asks for traces: an OTLP
// endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or an exporter
// (OTEL_TRACES_EXPORTER other than "none") is set, and OTEL_SDK_DISABLED
// is not "true".
func Enabled(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if e := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); e != "" {
		return e != "none"
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs a tracer provider that exports through the exporter the
// OTEL_* variables configure (OTLP over HTTP/protobuf by default, or what
// OTEL_TRACES_EXPORTER and OTEL_EXPORTER_OTLP_PROTOCOL name), and the W3C
// trace-context and baggage propagators, when [Enabled] says so. It
// returns the function that flushes and shuts the provider down; with
// tracing off it installs nothing and that function does nothing.
func Setup(ctx context.Context, getenv func(string) string) (shutdown func(context.Context) error, err error) {
	if !Enabled(getenv) {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := spanExporter(ctx, getenv)
	if err != nil {
		return nil, errors.New("tracing: " + err.Error())
	}
	res, err := resource.Merge(resource.Default(),
		resource.NewSchemaless(semconv.ServiceName(ServiceName)))
	if err != nil {
		return nil, errors.New("tracing: " + err.Error())
	}
	// The environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) wins
	// over the default name.
	if env, eerr := resource.New(ctx, resource.WithFromEnv()); eerr == nil {
		if merged, merr := resource.Merge(res, env); merr == nil {
			res = merged
		}
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return tp.Shutdown, nil
}

// spanExporter is the exporter OTEL_TRACES_EXPORTER names: otlp (the
// default) over the protocol OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
// OTEL_EXPORTER_OTLP_PROTOCOL names (http/protobuf, the default, or grpc),
// or console. These are the choices of the contrib autoexport package,
// made here because autoexport also links in its metric and log
// exporters, which askonce never uses (docs/deploy.md). The exporters read
// their other OTEL_EXPORTER_OTLP_* variables themselves.
func spanExporter(ctx context.Context, getenv func(string) string) (sdktrace.SpanExporter, error) {
	switch name := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); name {
	case "", "otlp":
		proto := cmp.Or(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")), strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")), "http/protobuf")
		switch proto {
		case "http/protobuf":
			return otlptracehttp.New(ctx)
		case "grpc":
			return otlptracegrpc.New(ctx)
		}
		return nil, fmt.Errorf("OTLP protocol %q: want http/protobuf or grpc", proto)
	case "console":
		return stdouttrace.New()
	default:
		return nil, fmt.Errorf("OTEL_TRACES_EXPORTER %q: want otlp, console or none", name)
	}
}

// w3c is the propagator of queued work and outgoing webhooks: the W3C
// traceparent and tracestate headers, whatever the global propagator is.
var w3c = propagation.TraceContext{}

// Carrier returns the W3C trace context of ctx's span (traceparent and,
// if any, tracestate), to store with work queued for later, or nil when
// ctx has no valid span.
func Carrier(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	c := propagation.MapCarrier{}
	w3c.Inject(ctx, c)
	return c
}

// FromCarrier returns ctx with the remote span context stored by
// [Carrier], if c holds a valid one.
func FromCarrier(ctx context.Context, c map[string]string) context.Context {
	if len(c) == 0 {
		return ctx
	}
	return w3c.Extract(ctx, propagation.MapCarrier(c))
}

// InjectHeader sets the traceparent (and tracestate) header of h from
// ctx's span; with no span it sets nothing.
func InjectHeader(ctx context.Context, h interface{ Set(string, string) }) {
	if trace.SpanContextFromContext(ctx).IsValid() {
		w3c.Inject(ctx, headerCarrier{h})
	}
}

// headerCarrier adapts a header setter to a TextMapCarrier for Inject.
type headerCarrier struct {
	h interface{ Set(string, string) }
}

func (c headerCarrier) Get(string) string { return "" }
func (c headerCarrier) Set(k, v string)   { c.h.Set(k, v) }
func (c headerCarrier) Keys() []string    { return nil }

// LogHandler wraps h so that each record logged with a context that holds
// a valid span gets trace_id and span_id attributes: the join between a
// log line and its trace.
func LogHandler(h slog.Handler) slog.Handler {
	if _, ok := h.(logHandler); ok {
		return h
	}
	return logHandler{h}
}

type logHandler struct{ slog.Handler }

func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return l.Handler.Handle(ctx, r)
}

func (l logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{l.Handler.WithAttrs(as)}
}

func (l logHandler) WithGroup(name string) slog.Handler {
	return logHandler{l.Handler.WithGroup(name)}
}
