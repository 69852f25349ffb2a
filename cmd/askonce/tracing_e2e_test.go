package main_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
)

// otlpReceiver is an OTLP/HTTP trace endpoint on loopback that keeps the
// body of every export.
type otlpReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if req.Method == http.MethodPost && req.URL.Path == "/v1/traces" {
			r.mu.Lock()
			r.bodies = append(r.bodies, body)
			r.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *otlpReceiver) all() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Join(r.bodies, nil)
}

// OTEL_EXPORTER_OTLP_ENDPOINT switches tracing on: the server's spans (the
// request's, the interpreter attempt's) reach the OTLP endpoint by the
// time serve exits, and the request's log line carries its trace id.
func serveTracingExportsSpansToTheOTLPEndpoint(t *testing.T) {
	t.Parallel()
	otlp := newOTLPReceiver(t)
	in := start(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + otlp.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"},
		"--db", filepath.Join(t.TempDir(), "a.db"))
	r := in.do("POST", "/jobs", map[string]any{"goal": "write the README then add tests"})
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	in.stop(syscall.SIGTERM)
	if code := in.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM:\n%s", code, in.logs.String())
	}
	got := otlp.all()
	for _, name := range []string{"POST /jobs", "askonce.interpret", "sqlite.write"} {
		if !bytes.Contains(got, []byte(name)) {
			t.Errorf("no %q span exported (%d bytes exported)", name, len(got))
		}
	}
	if !regexp.MustCompile(`msg="http request".*route="POST /jobs".*trace_id=[0-9a-f]{32}`).MatchString(in.logs.String()) {
		t.Errorf("the request's log line has no trace_id:\n%s", in.logs.String())
	}
}
