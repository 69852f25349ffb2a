package a2a_test

import (
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
	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/sqlite"
)

// lockedBuffer is a log that the server writes while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fuzzServer is the endpoint on a real SQLite file and listener, without
// keys, with short waits; its log is returned to look for panics.
func fuzzServer(f *testing.F) (string, *lockedBuffer) {
	f.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(f.TempDir(), "a2a.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	rl, err := rules.New(rules.Options{})
	if err != nil {
		f.Fatal(err)
	}
	eng := &askonce.Engine{Store: st, Interpreter: rl, LinkSecret: st.LinkSecret()}
	f.Cleanup(func() { eng.Drain(context.Background()) })
	log := &lockedBuffer{}
	mux := http.NewServeMux()
	a2a.New(a2a.Config{Engine: eng, Wait: 2 * time.Second, StreamTimeout: 3 * time.Second, PollInterval: 10 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(log, nil)), Pusher: a2a.NewPusher(a2a.PusherConfig{Engine: eng})}).Mount(mux)
	srv := httptest.NewServer(mux)
	f.Cleanup(srv.Close)
	return srv.URL, log
}

// Seeds of the fuzz targets: a valid request of each version; the
// malformed ones that found defects are in testdata/fuzz/FuzzJSONRPC.
var a2aSeeds = []struct{ version, body string }{
	{"", `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hot frozen cheese"}]}}}`},
	{"1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hot frozen cheese"}]}}}`},
	{"1.0", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hot frozen cheese"}]}}}`},
	{"", `{"jsonrpc":"2.0","id":1,"method":"tasks/pushNotificationConfig/set","params":{"taskId":"t","pushNotificationConfig":{"url":"http://0x7f000001/"}}}`},
}

// checkJSONRPC fails unless an answer of /a2a is no 5xx, is JSON (or an
// event stream of JSON) with a JSON-RPC 2.0 message, and its error, if
// any, is not an internal one.
func checkJSONRPC(t *testing.T, status int, contentType string, body []byte) {
	t.Helper()
	if status >= 500 {
		t.Fatalf("status %d: %s", status, body)
	}
	var msgs [][]byte
	switch {
	case strings.HasPrefix(contentType, "application/json"):
		msgs = [][]byte{body}
	case strings.HasPrefix(contentType, "text/event-stream"):
		for line := range strings.SplitSeq(string(body), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				msgs = append(msgs, []byte(data))
			}
		}
		if len(msgs) == 0 {
			t.Fatalf("an empty event stream (%d)", status)
		}
	default:
		t.Fatalf("status %d, content type %q: %s", status, contentType, body)
	}
	for _, m := range msgs {
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Code    *int   `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(m, &msg); err != nil || msg.JSONRPC != "2.0" || (msg.Result == nil) == (msg.Error == nil) {
			t.Fatalf("not a JSON-RPC 2.0 response (%v): %s", err, m)
		}
		if msg.Error != nil && (msg.Error.Code == nil || *msg.Error.Code == -32603) {
			t.Fatalf("an internal error, or one without a code: %s", m)
		}
	}
}

// No body sent to the JSON-RPC endpoint, in either version, gets a 5xx,
// a panic, or an answer that is not a JSON-RPC response as
// application/json (or an event stream of them).
func FuzzJSONRPC(f *testing.F) {
	for _, s := range a2aSeeds {
		f.Add(s.version, []byte(s.body))
	}
	url, log := fuzzServer(f)
	f.Fuzz(func(t *testing.T, version string, body []byte) {
		if version != "" && version != "0.3" && version != "1.0" {
			version = "1.0"
		}
		req, err := http.NewRequest("POST", url+a2a.Path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if version != "" {
			req.Header.Set("A2A-Version", version)
		}
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		checkJSONRPC(t, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		if strings.Contains(log.String(), "panic") {
			t.Fatalf("a panic in the log:\n%s", log.String())
		}
	})
}

// No request to the HTTP+JSON endpoint, of either version, gets a 5xx or
// a panic, and every answer is JSON (problem+json for 0.3's errors) or an
// event stream: an unknown route too (testdata/fuzz/FuzzREST found it
// answered in plain text).
func FuzzREST(f *testing.F) {
	for _, s := range []struct{ version, method, path, body string }{
		{"1.0", "POST", "/message:send", `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hot frozen cheese"}]}}`},
		{"", "POST", "/v1/message:send", `{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hot frozen cheese"}]}}`},
		{"", "POST", "/v1/message:send", `{"configuration":{"pushNotificationConfig":{"url":"http://127.0.0.1:9/p"}}}`},
		{"1.0", "GET", "/tasks/nope", ``},
		{"1.0", "GET", "/tasks?pageToken=1:", ``},
		{"", "GET", "/v1/tasks/nope", ``},
		{"1.0", "POST", "/message:send", `[]`},
	} {
		f.Add(s.version, s.method, s.path, []byte(s.body))
	}
	url, log := fuzzServer(f)
	f.Fuzz(func(t *testing.T, version, method, path string, body []byte) {
		if version != "" && version != "0.3" && version != "1.0" {
			version = "1.0"
		}
		if method != "GET" && method != "DELETE" {
			method = "POST"
		}
		req, err := http.NewRequest(method, url+a2a.RESTPath+"/"+strings.TrimLeft(path, "/"), bytes.NewReader(body))
		if err != nil {
			return // not a URL: no request to send
		}
		req.Header.Set("Content-Type", "application/json")
		if version != "" {
			req.Header.Set("A2A-Version", version)
		}
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		ct := resp.Header.Get("Content-Type")
		if resp.StatusCode >= 500 {
			t.Fatalf("%s %s: status %d: %s", method, path, resp.StatusCode, b)
		}
		json := strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "application/problem+json")
		if !json && !strings.HasPrefix(ct, "text/event-stream") {
			t.Fatalf("%s %s: status %d, content type %q: %s", method, path, resp.StatusCode, ct, b)
		}
		if strings.Contains(log.String(), "panic") {
			t.Fatalf("a panic in the log:\n%s", log.String())
		}
	})
}
