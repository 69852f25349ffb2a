// Package openaitest is an OpenAI-compatible chat-completions server on
// loopback for tests outside package openai (the askonce eval end-to-end
// tests): a scripted model, one step per request, recording every request
// it received.
package openaitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Server answers POST /v1/chat/completions with its steps in turn; a
// request after the last step is a 500.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	steps    []http.HandlerFunc
	requests []Request
}

// Request is one chat-completions request as received: when, its
// headers, and the part of its body tests look at, decoded independently
// of the client.
type Request struct {
	At     time.Time   `json:"-"`
	Header http.Header `json:"-"`

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

// Format is the request's response_format type, "" when none was sent.
func (r Request) Format() string {
	if r.ResponseFormat == nil {
		return ""
	}
	return r.ResponseFormat.Type
}

// Message is the content of the request's first message of role.
func (r Request) Message(role string) string {
	for _, m := range r.Messages {
		if m.Role == role {
			return m.Content
		}
	}
	return ""
}

// New starts a server that runs steps, closed when the test ends.
func New(t testing.TB, steps ...http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{steps: steps}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// BaseURL is what a user configures: the API root before /chat/completions.
func (s *Server) BaseURL() string { return s.srv.URL + "/v1" }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		WriteError(w, http.StatusNotFound, fmt.Sprintf("no route %s %s", r.Method, r.URL.Path), "invalid_request_error")
		return
	}
	var req Request
	raw, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(raw, &req)
	}
	if err != nil {
		WriteError(w, http.StatusBadRequest, "bad request body: "+fmt.Sprint(err), "invalid_request_error")
		return
	}
	req.At, req.Header = time.Now(), r.Header.Clone()
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var step http.HandlerFunc
	if len(s.steps) > 0 {
		step, s.steps = s.steps[0], s.steps[1:]
	}
	n := len(s.requests)
	s.mu.Unlock()
	if step == nil {
		WriteError(w, http.StatusInternalServerError, fmt.Sprintf("script exhausted at request %d", n), "server_error")
		return
	}
	step(w, r)
}

// Reply answers with a completion whose message is content, reporting the
// given token usage.
func Reply(content string, promptTokens, completionTokens int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion", "created": time.Now().Unix(), "model": "test-model-2026-01-01",
			"choices": []map[string]any{{
				"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop",
			}},
			"usage": map[string]any{
				"prompt_tokens": promptTokens, "completion_tokens": completionTokens, "total_tokens": promptTokens + completionTokens,
			},
		})
	}
}

// Error answers with OpenAI's error body (type server_error) and status.
func Error(status int, message string) http.HandlerFunc {
	return APIError(status, message, "server_error")
}

// APIError answers with OpenAI's error body of type typ and status;
// header holds name, value pairs (Retry-After).
func APIError(status int, message, typ string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		WriteError(w, status, message, typ)
	}
}

// WriteError writes OpenAI's error body of type typ with status.
func WriteError(w http.ResponseWriter, status int, message, typ string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": message, "type": typ, "code": nil}})
}
