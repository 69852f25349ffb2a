package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/internal/openapitest"
	"github.com/askonce/askonce/metrics"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

// env is one API on a real loopback listener, a real SQLite file and the
// rules interpreter.
type env struct {
	t      *testing.T
	srv    *httptest.Server
	engine *askonce.Engine
	store  *sqlite.Store
	reg    *metrics.Registry
	logs   *syncBuffer
	// contract is the served OpenAPI document, loaded with kin-openapi;
	// do validates every response against it.
	contract *openapitest.Contract
}

type envOptions struct {
	interp askonce.Interpreter // default: rules
	keys   *auth.Keys
	config func(*server.Config)
	http   func(*http.Server) // before the listener starts
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	interp := o.interp
	if interp == nil {
		r, err := rules.New(rules.Options{})
		if err != nil {
			t.Fatal(err)
		}
		interp = r
	}
	reg := metrics.NewRegistry()
	eng := &askonce.Engine{Store: st, Interpreter: interp, Observer: metrics.NewObserver(reg)}
	logs := &syncBuffer{}
	cfg := server.Config{
		Engine:       eng,
		Keys:         o.keys,
		Metrics:      reg,
		Logger:       slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		PollInterval: 20 * time.Millisecond,
		Idempotency:  st,
	}
	if o.config != nil {
		o.config(&cfg)
	}
	api := server.New(cfg)
	srv := httptest.NewUnstartedServer(api)
	if o.http != nil {
		o.http(srv.Config)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	c, err := openapitest.Load(api.OpenAPI(), srv.URL)
	if err != nil {
		t.Fatalf("the OpenAPI document does not load: %v", err)
	}
	return &env{t: t, srv: srv, engine: eng, store: st, reg: reg, logs: logs, contract: c}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

// do sends a request. body is nil, a string or []byte (sent as is), or a
// value sent as JSON; header is name, value pairs. A JSON body gets
// Content-Type application/json unless header sets one.
func (e *env) do(method, path string, body any, header ...string) response {
	e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("%s %s: read: %v", method, path, err)
	}
	e.checkContract(req, resp, raw)
	out := response{status: resp.StatusCode, header: resp.Header, raw: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			e.t.Fatalf("%s %s: response is not a JSON object: %v\n%s", method, path, err, raw)
		}
	}
	return out
}

// create posts a goal and returns the job view; it fails the test unless
// the status is 201.
func (e *env) create(body map[string]any, header ...string) map[string]any {
	e.t.Helper()
	r := e.do("POST", "/jobs", body, header...)
	if r.status != http.StatusCreated {
		e.t.Fatalf("create %v: %d %s", body, r.status, r.raw)
	}
	return r.body
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func obj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

func strs(v any) []string {
	xs, _ := v.([]any)
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// wantError checks an error response: the status, success false, the code,
// and a message containing msg.
func wantError(t *testing.T, r response, status int, code, msg string) {
	t.Helper()
	if r.status != status || r.body["success"] != false || str(r.body, "code") != code || !strings.Contains(str(r.body, "error"), msg) {
		t.Fatalf("got %d %s\nwant %d with success false, code %q and an error containing %q", r.status, r.raw, status, code, msg)
	}
}

// eventTypes lists the types of a job's events over the JSON endpoint.
func (e *env) eventTypes(id string, header ...string) []string {
	e.t.Helper()
	r := e.do("GET", "/jobs/"+id+"/events", nil, header...)
	if r.status != http.StatusOK {
		e.t.Fatalf("events: %d %s", r.status, r.raw)
	}
	var types []string
	for _, ev := range r.body["events"].([]any) {
		types = append(types, str(ev.(map[string]any), "type"))
	}
	return types
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	id, typ, data string
}

// readSSE parses an event stream into a channel, closed at the end of the
// stream.
func readSSE(body io.Reader) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.typ != "" || ev.data != "" {
					ch <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"), strings.HasPrefix(line, "retry:"):
			case strings.HasPrefix(line, "id: "):
				ev.id = line[len("id: "):]
			case strings.HasPrefix(line, "event: "):
				ev.typ = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data += line[len("data: "):]
			}
		}
	}()
	return ch
}

// waitEvent returns the next event of type typ, failing after a timeout or
// at the end of the stream. Events of other types are skipped and
// returned in skipped.
func waitEvent(t *testing.T, ch <-chan sseEvent, typ string) (ev sseEvent, skipped []string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("stream ended before a %q event (saw %v)", typ, skipped)
			}
			if ev.typ == typ {
				return ev, skipped
			}
			skipped = append(skipped, ev.typ)
		case <-timeout:
			t.Fatalf("no %q event within 10s (saw %v)", typ, skipped)
		}
	}
}

// waitEnd waits for the stream to end, returning the events still sent.
func waitEnd(t *testing.T, ch <-chan sseEvent) []string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	var rest []string
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return rest
			}
			rest = append(rest, ev.typ)
		case <-timeout:
			t.Fatalf("stream did not end within 10s (saw %v)", rest)
		}
	}
}

// openStream starts GET /jobs/{id}/events as an event stream.
func (e *env) openStream(ctx context.Context, id string, header ...string) (*http.Response, <-chan sseEvent) {
	e.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/jobs/"+id+"/events", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		e.t.Fatalf("stream: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return resp, readSSE(resp.Body)
}

// eventually polls cond until it holds, for up to 10s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

const (
	hotFrozen = "hot frozen cheese"
	readme    = "write the README then add tests"
)
