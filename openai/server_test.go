package openai_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/internal/openaitest"
	"github.com/askonce/askonce/openai"
	"github.com/askonce/askonce/sqlite"
)

// fakeServer is the OpenAI-compatible chat-completions server on loopback
// (internal/openaitest), scripted per test: each request takes the next
// step, and every request is recorded so that tests assert on what the
// interpreter sent.
type fakeServer struct{ *openaitest.Server }

// call is one request the fake server received.
type call = openaitest.Request

func newFakeServer(t testing.TB, steps ...http.HandlerFunc) *fakeServer {
	t.Helper()
	return &fakeServer{openaitest.New(t, steps...)}
}

func (f *fakeServer) requests() []call { return f.Requests() }

// baseURL is what a user would configure: the API root before
// /chat/completions.
func (f *fakeServer) baseURL() string { return f.BaseURL() }

var (
	// reply answers with a chat completion whose message content is content.
	reply = openaitest.Reply
	// apiError answers with OpenAI's error body and status; header holds
	// name, value pairs (Retry-After).
	apiError = openaitest.APIError
)

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
