package mcp_test

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
	"github.com/askonce/askonce/mcp"
	"github.com/askonce/askonce/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncLog is a log the server writes while a test reads it.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fuzzServer is an engine on a real SQLite file with the test
// interpreter, and an MCP server over it logging to log.
func fuzzServer(f *testing.F, log io.Writer) *sdk.Server {
	f.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(f.TempDir(), "a.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	eng := &askonce.Engine{Store: st, Interpreter: askonce.InterpreterFunc(interpret), LinkSecret: []byte("test link secret, 32 bytes long!")}
	f.Cleanup(func() { eng.Drain(context.Background()) })
	return mcp.New(mcp.Config{Engine: eng, PublicURL: "http://askonce.test", PollInterval: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(log, nil))})
}

// Seeds: valid messages, and the malformed ones that found defects (kept
// in testdata/fuzz too).
var mcpSeeds = []string{
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"plan","arguments":{"goal":"no question here"}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"nope","params":{}}`,
	`{"jsonrpc":"2.0","id":"x","method":"tools/nope"}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`,
	`{"jsonrpc":`,
	`[]`,
	`null`,
	`{"jsonrpc":"2.0","method":"notifications/initialized","id":5}`,
}

// checkMessages fails unless every one of msgs is a JSON-RPC 2.0 message
// and none is an internal error.
func checkMessages(t *testing.T, msgs [][]byte) {
	t.Helper()
	for _, m := range msgs {
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
			Error   *struct {
				Code *int `json:"code"`
			} `json:"error"`
		}
		if bytes.HasPrefix(bytes.TrimSpace(m), []byte("[")) {
			var batch []json.RawMessage
			if err := json.Unmarshal(m, &batch); err != nil {
				t.Fatalf("not a JSON-RPC batch (%v): %s", err, m)
			}
			for _, b := range batch {
				checkMessages(t, [][]byte{b})
			}
			continue
		}
		if err := json.Unmarshal(m, &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Fatalf("not a JSON-RPC 2.0 message (%v): %s", err, m)
		}
		if msg.Error != nil && (msg.Error.Code == nil || *msg.Error.Code == -32603) {
			t.Fatalf("an internal error, or one without a code: %s", m)
		}
	}
}

// No message posted to /mcp in a 2025-11-25 session gets a 5xx, a panic,
// or an answer other than a JSON-RPC message as application/json (or an
// event stream of them), or an empty 202 for a notification.
func FuzzHTTP(f *testing.F) {
	for _, s := range mcpSeeds {
		f.Add([]byte(s))
	}
	log := &syncLog{}
	srv := httptest.NewServer(mcp.Handler(fuzzServer(f, log), mcp.HTTPOptions{MaxBody: 64 << 10}))
	f.Cleanup(srv.Close)
	var session string
	f.Fuzz(func(t *testing.T, body []byte) {
		if session == "" {
			session = initSession(t, srv.URL)
		}
		req, err := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
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
		switch {
		case resp.StatusCode >= 500:
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		case resp.StatusCode == http.StatusAccepted && len(b) == 0:
		case strings.HasPrefix(ct, "application/json"):
			checkMessages(t, [][]byte{b})
		case strings.HasPrefix(ct, "text/event-stream"):
			var msgs [][]byte
			for line := range strings.SplitSeq(string(b), "\n") {
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					msgs = append(msgs, []byte(data))
				}
			}
			checkMessages(t, msgs)
		default:
			t.Fatalf("status %d, content type %q: %s", resp.StatusCode, ct, b)
		}
		if resp.StatusCode == http.StatusNotFound {
			session = "" // a message that closed the session: start another
		}
		if strings.Contains(log.String(), "panic") {
			t.Fatalf("a panic in the log:\n%s", log.String())
		}
	})
}

// initSession opens a 2025-11-25 session at url.
func initSession(t *testing.T, url string) string {
	t.Helper()
	r := rawPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`)
	id, _ := r.json["session"].(string)
	if id == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	if r := rawPost(t, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return id
}

// No line sent to askonce mcp over stdio, after an initialize, gets an
// answer that is not a JSON-RPC message, an internal error, or a panic;
// the connection answers a ping after it.
func FuzzStdio(f *testing.F) {
	for _, s := range mcpSeeds {
		f.Add([]byte(s))
	}
	log := &syncLog{}
	server := fuzzServer(f, log)
	f.Fuzz(func(t *testing.T, line []byte) {
		line = bytes.ReplaceAll(line, []byte("\n"), []byte(" "))
		in := strings.Join([]string{
			`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			string(line),
			`{"jsonrpc":"2.0","id":"end","method":"ping"}`,
		}, "\n") + "\n"
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		server.Run(ctx, &mcp.Stdio{Reader: strings.NewReader(in), Writer: &out})
		var msgs [][]byte
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 4<<20)
		pong := false
		for sc.Scan() {
			msgs = append(msgs, bytes.Clone(sc.Bytes()))
			pong = pong || strings.Contains(sc.Text(), `"id":"end"`)
		}
		checkMessages(t, msgs)
		if !pong {
			t.Fatalf("no answer to the ping after %q:\n%s", line, out.String())
		}
		if strings.Contains(log.String(), "panic") {
			t.Fatalf("a panic in the log:\n%s", log.String())
		}
	})
}
