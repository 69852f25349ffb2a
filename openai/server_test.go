package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/openai"
	"github.com/askonce/askonce/sqlite"
)

// fakeServer is an OpenAI-compatible chat-completions server on loopback,
// scripted per test: each request takes the next step, and every request
// is recorded so that tests assert on what the interpreter sent.
type fakeServer struct {
	t   testing.TB
	srv *httptest.Server

	mu    sync.Mutex
	steps []http.HandlerFunc
	calls []call
}

// call is one request the fake server received.
type call struct {
	At     time.Time
	Header http.Header
	Body   chatRequest
}

// chatRequest is the part of the chat-completions request body the tests
// look at, decoded independently of the client.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Temperature    *float64 `json:"temperature"`
	MaxTokens      *int64   `json:"max_tokens"`
	Seed           *int64   `json:"seed"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string         `json:"name"`
			Schema map[string]any `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func newFakeServer(t testing.TB, steps ...http.HandlerFunc) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s", r.Method, r.URL.Path), "invalid_request_error")
		return
	}
	raw, err := io.ReadAll(r.Body)
	var body chatRequest
	if err == nil {
		err = json.Unmarshal(raw, &body)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "bad request body: "+err.Error(), "invalid_request_error")
		return
	}
	f.mu.Lock()
	f.calls = append(f.calls, call{At: time.Now(), Header: r.Header.Clone(), Body: body})
	n := len(f.calls)
	var step http.HandlerFunc
	if len(f.steps) > 0 {
		step, f.steps = f.steps[0], f.steps[1:]
	}
	f.mu.Unlock()
	if step == nil {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("script exhausted at request %d", n), "server_error")
		return
	}
	step(w, r)
}

func (f *fakeServer) requests() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// baseURL is what a user would configure: the API root before
// /chat/completions.
func (f *fakeServer) baseURL() string { return f.srv.URL + "/v1" }

func (c call) system() string { return c.message("system") }
func (c call) user() string   { return c.message("user") }

func (c call) message(role string) string {
	for _, m := range c.Body.Messages {
		if m.Role == role {
			return m.Content
		}
	}
	return ""
}

// format is the request's response_format type, "" when none was sent.
func (c call) format() string {
	if c.Body.ResponseFormat == nil {
		return ""
	}
	return c.Body.ResponseFormat.Type
}

// reply answers with a chat completion whose message content is content.
func reply(content string, promptTokens, completionTokens int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id":      "chatcmpl-test",
			"object":  "chat.completion",
			"created": time.Now().Unix(),
			"model":   "test-model-2026-01-01",
			"choices": []map[string]any{{
				"index":         0,
				"message":       map[string]any{"role": "assistant", "content": content},
				"finish_reason": "stop",
			}},
			"usage": map[string]any{
				"prompt_tokens":     promptTokens,
				"completion_tokens": completionTokens,
				"total_tokens":      promptTokens + completionTokens,
			},
		})
	}
}

// apiError answers with OpenAI's error body and status; header holds
// name, value pairs (Retry-After).
func apiError(status int, message, typ string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		writeError(w, status, message, typ)
	}
}

func writeError(w http.ResponseWriter, status int, message, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": message, "type": typ, "code": nil},
	})
}

// hang blocks until the client goes away, then closes done.
func hang(done chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		<-r.Context().Done()
	}
}

// newInterpreter returns an openai interpreter pointed at f, with fast
// backoff and no API key; mod adjusts the config.
func newInterpreter(t testing.TB, f *fakeServer, mod func(*openai.Config)) *openai.Interpreter {
	t.Helper()
	cfg := openai.Config{
		BaseURL:        f.baseURL(),
		Model:          "test-model",
		Getenv:         func(string) string { return "" },
		RetryBaseDelay: time.Millisecond,
	}
	if mod != nil {
		mod(&cfg)
	}
	in, err := openai.New(cfg)
	if err != nil {
		t.Fatalf("openai.New: %v", err)
	}
	return in
}

// newEngine returns an engine on a real SQLite file in the test's temp
// dir.
func newEngine(t testing.TB, in askonce.Interpreter) *askonce.Engine {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return &askonce.Engine{Store: st, Interpreter: in}
}

func attempts(t testing.TB, e *askonce.Engine, j *askonce.Job) []askonce.Attempt {
	t.Helper()
	as, err := e.Attempts(context.Background(), j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

func reasons(as []askonce.Attempt) string {
	var rs []string
	for _, a := range as {
		rs = append(rs, string(a.Reason))
	}
	return strings.Join(rs, ",")
}
