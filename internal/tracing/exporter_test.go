package tracing

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// The OTLP protocol variables pick the wire: a span export opens with an
// HTTP/1.1 POST to /v1/traces for http/protobuf (the default) and with
// the HTTP/2 preface of gRPC for grpc; the traces-specific variable wins.
func TestSpanExporterSpeaksTheProtocolTheVariablesName(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "POST /v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, "POST /v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "PRI * HTTP/2.0"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, "POST /v1/traces"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, "PRI * HTTP/2.0"},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		// The exporters read the endpoint from the process environment.
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+ln.Addr().String())
		t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
		first := make(chan string, 1)
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				first <- err.Error()
				return
			}
			defer conn.Close()
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			b := make([]byte, 15)
			n, _ := io.ReadFull(conn, b)
			first <- string(b[:n])
		}()
		exp, err := spanExporter(context.Background(), func(k string) string { return c.env[k] })
		if err != nil {
			t.Fatalf("%v: %v", c.env, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		go exp.ExportSpans(ctx, []sdktrace.ReadOnlySpan{tracetest.SpanStub{Name: "s"}.Snapshot()})
		var got string
		select {
		case got = <-first:
		case <-time.After(10 * time.Second):
			t.Fatalf("%v: no connection to the endpoint", c.env)
		}
		cancel()
		exp.Shutdown(context.Background())
		ln.Close()
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: the export opened with %q, want %q", c.env, got, c.want)
		}
	}
}

// console prints spans; an unknown exporter or protocol is an error that
// names it.
func TestSpanExporterConsoleAndUnknownNames(t *testing.T) {
	exp, err := spanExporter(context.Background(), func(k string) string { return map[string]string{"OTEL_TRACES_EXPORTER": "console"}[k] })
	if _, ok := exp.(*stdouttrace.Exporter); err != nil || !ok {
		t.Errorf("console: %T %v, want the stdout exporter", exp, err)
	}
	for env, want := range map[string]string{
		"OTEL_TRACES_EXPORTER":        `OTEL_TRACES_EXPORTER "zipkin"`,
		"OTEL_EXPORTER_OTLP_PROTOCOL": `OTLP protocol "zipkin"`,
	} {
		_, err := spanExporter(context.Background(), func(k string) string {
			if k == env {
				return "zipkin"
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=zipkin: %v, want an error naming %s", env, err, want)
		}
	}
}
