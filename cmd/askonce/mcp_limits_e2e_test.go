package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce/auth"
)

// metricValue is the value of the unlabelled metric name on the server's
// /metrics, or -1 when it is not there.
func (in *instance) metricValue(name string) float64 {
	in.t.Helper()
	resp, err := http.Get(in.base + "/metrics")
	if err != nil {
		in.t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				in.t.Fatalf("%s: %v", sc.Text(), err)
			}
			return f
		}
	}
	return -1
}

// rawMCP is an MCP client over plain HTTP, as a script or a broken client
// would speak it: one POST per message.
type rawMCP struct {
	in      *instance
	session string
	key     string // sent as a bearer token when set
}

// post sends one JSON-RPC message and returns the response, its body
// unread (an event stream for a call).
func (c *rawMCP) post(ctx context.Context, msg string) *http.Response {
	c.in.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", c.in.base+"/mcp", strings.NewReader(msg))
	if err != nil {
		c.in.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	// A bound on the whole exchange, body included: an answer that
	// never comes fails the test with a message.
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		c.in.t.Fatalf("POST /mcp: %v", err)
	}
	return resp
}

// rpcReply is the first JSON-RPC message of an answer (plain JSON or an
// event stream).
func rpcReply(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	var body strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if json.Unmarshal([]byte(data), &m) == nil {
				return m
			}
		}
		body.WriteString(line)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the answer %d: %v (read so far: %q)", resp.StatusCode, err, body.String())
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(body.String()), &m); err != nil {
		t.Fatalf("answer %d is no JSON-RPC message: %q", resp.StatusCode, body.String())
	}
	return m
}

const initializeElicit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`

// initialize opens a session; it returns the JSON-RPC answer and the
// session id ("" when refused).
func initialize(t *testing.T, in *instance) (map[string]any, *rawMCP) {
	t.Helper()
	return initializeAs(t, in, "")
}

// initializeAs is initialize with the API key key.
func initializeAs(t *testing.T, in *instance, key string) (map[string]any, *rawMCP) {
	t.Helper()
	c := &rawMCP{in: in, key: key}
	resp := c.post(context.Background(), initializeElicit)
	defer resp.Body.Close()
	m := rpcReply(t, resp)
	if m["result"] != nil {
		c.session = resp.Header.Get("Mcp-Session-Id")
		if c.session == "" {
			t.Fatalf("initialize answered without a session id: %v", m)
		}
		r := c.post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return m, c
}

func rpcErrorCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return int(code)
}

// Sessions nobody uses are reclaimed after --mcp-session-timeout: the
// sessions gauge goes back to 0 and their ids are unknown (404).
func mcpIdleSessionsAreReclaimed(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-session-timeout", "2s")
	var clients []*rawMCP
	for range 20 {
		m, c := initialize(t, in)
		if c.session == "" {
			t.Fatalf("initialize refused: %v", m)
		}
		clients = append(clients, c)
	}
	if got := in.metricValue("askonce_mcp_sessions"); got < 1 {
		t.Fatalf("askonce_mcp_sessions = %v right after 20 initializes; want them counted", got)
	}
	eventually(t, "askonce_mcp_sessions back to 0 after the idle timeout", func() bool {
		return in.metricValue("askonce_mcp_sessions") == 0
	})
	resp := clients[0].post(context.Background(), `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("ping on a reclaimed session: %d, want 404", resp.StatusCode)
	}
}

// ping sends a ping on c's session and returns the HTTP status.
func (c *rawMCP) ping() int {
	c.in.t.Helper()
	resp := c.post(context.Background(), `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// One initialize beyond --mcp-max-sessions makes way for itself by closing
// the least recently used idle session (whose client gets 404 and may
// initialize again), so that abandoned sessions cannot keep new clients
// out; only when every session holds a call in flight is it the JSON-RPC
// error -32029.
func mcpSessionCapClosesTheLeastRecentlyUsedIdleSession(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-max-sessions", "3")
	var clients []*rawMCP
	for range 3 {
		m, c := initialize(t, in)
		if c.session == "" {
			t.Fatalf("initialize within the cap refused: %v", m)
		}
		clients = append(clients, c)
	}
	// Each session's notifications/initialized is answered 202 before it
	// is handled, so the order of use is set by pings answered in turn:
	// a session handles its messages in order, so each ping comes after
	// its own notification.
	for _, i := range []int{1, 2, 0} {
		if st := clients[i].ping(); st != http.StatusOK {
			t.Fatalf("ping on session %d: %d", i, st)
		}
	}
	// clients[1] is now the least recently used.
	if m, c := initialize(t, in); c.session == "" {
		t.Fatalf("the 4th initialize: %v, want a session in place of the least recently used", m)
	}
	// The SDK forgets a closed session's id a moment after it closes.
	eventually(t, "404 on the least recently used session after the 4th initialize", func() bool {
		return clients[1].ping() == http.StatusNotFound
	})
	for _, i := range []int{0, 2} {
		if st := clients[i].ping(); st != http.StatusOK {
			t.Fatalf("ping on session %d, used more recently: %d, want 200", i, st)
		}
	}
	if got := in.metricValue("askonce_mcp_sessions"); got != 3 {
		t.Fatalf("askonce_mcp_sessions = %v, want 3", got)
	}
}

// A session with a call in flight is not closed to make way: when every
// session of the cap holds one, one more initialize is the JSON-RPC error
// -32029, and the call goes on.
func mcpSessionCapIsAJSONRPCErrorWhenEverySessionIsBusy(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-max-sessions", "1")
	_, busy := initialize(t, in)
	if busy.session == "" {
		t.Fatal("initialize refused")
	}
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	waiting := busy.post(ctx, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{"goal":"hot frozen cheese"}}}`)
	defer waiting.Body.Close()
	if m := rpcReply(t, waiting); m["method"] != "elicitation/create" {
		t.Fatalf("first message of the plan call: %v, want elicitation/create", m)
	}
	m, c := initialize(t, in)
	if c.session != "" || rpcErrorCode(m) != -32029 || !strings.Contains(fmt.Sprint(m), "limit") {
		t.Fatalf("initialize while the only session has a call in flight: %v, want the JSON-RPC error -32029 naming the limit", m)
	}
	if st := busy.ping(); st != http.StatusOK {
		t.Fatalf("ping on the busy session: %d, want 200", st)
	}
}

// deleteSession ends the MCP session (DELETE /mcp), with the API key key
// when it is not empty.
func deleteSession(t *testing.T, in *instance, key, session string) {
	t.Helper()
	req, _ := http.NewRequest("DELETE", in.base+"/mcp", nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// The session cap is per API key: with --api-keys-file, a key at
// --mcp-max-sessions that initializes again closes its own least recently
// used idle session, never one of another key of the same tenant or of
// another tenant; a session closed frees its own key's slot.
func mcpSessionCapIsPerAPIKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	lines := "acme " + auth.HashKey("key-a") + "\nacme " + auth.HashKey("key-a2") + "\nbeta " + auth.HashKey("key-b") + "\n"
	if err := os.WriteFile(keys, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	in := start(t, nil, "--db", filepath.Join(dir, "a.db"), "--api-keys-file", keys, "--mcp-max-sessions", "2")
	var held []*rawMCP
	for range 2 {
		m, c := initializeAs(t, in, "key-a")
		if c.session == "" {
			t.Fatalf("key A's initialize within the cap refused: %v", m)
		}
		held = append(held, c)
	}
	// Pings answered in turn set the order of use (see
	// mcpSessionCapClosesTheLeastRecentlyUsedIdleSession): held[0] is the
	// least recently used.
	for i, c := range held {
		if st := c.ping(); st != http.StatusOK {
			t.Fatalf("ping on key A's session %d: %d", i, st)
		}
	}
	var others []*rawMCP
	for _, key := range []string{"key-b", "key-a2"} {
		for i := range 2 {
			m, c := initializeAs(t, in, key)
			if c.session == "" {
				t.Fatalf("%s's initialize %d while key A is at its cap: %v", key, i+1, m)
			}
			others = append(others, c)
		}
	}
	m, third := initializeAs(t, in, "key-a")
	if third.session == "" {
		t.Fatalf("key A's 3rd initialize: %v, want a session in place of key A's least recently used", m)
	}
	eventually(t, "404 on key A's least recently used session after its 3rd initialize", func() bool {
		return held[0].ping() == http.StatusNotFound
	})
	for i, c := range append([]*rawMCP{held[1]}, others...) {
		if st := c.ping(); st != http.StatusOK {
			t.Fatalf("session %d, of key A used later or of another key: %d, want 200", i, st)
		}
	}
	if got := in.metricValue("askonce_mcp_sessions"); got != 6 {
		t.Fatalf("askonce_mcp_sessions = %v, want 6 (2 for each key)", got)
	}
	deleteSession(t, in, "key-a", held[1].session)
	eventually(t, "key A's deleted session's slot", func() bool { return in.metricValue("askonce_mcp_sessions") == 5 })
	if m, c := initializeAs(t, in, "key-a"); c.session == "" {
		t.Fatalf("key A's initialize after a DELETE: %v", m)
	}
}

// The cap on calls in flight is per API key too: while key A's plan call
// waits on its elicitation with --mcp-max-calls 1, key A's next call is
// -32029 and key B's is answered.
func mcpCallCapIsPerAPIKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := start(t, nil, "--db", filepath.Join(dir, "a.db"), "--api-keys-file", keysFile(t, map[string]string{"acme": "key-a", "beta": "key-b"}), "--mcp-max-calls", "1")
	_, a := initializeAs(t, in, "key-a")
	_, b := initializeAs(t, in, "key-b")
	if a.session == "" || b.session == "" {
		t.Fatalf("initialize: sessions %q and %q", a.session, b.session)
	}
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	waiting := a.post(ctx, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{"goal":"hot frozen cheese"}}}`)
	defer waiting.Body.Close()
	if m := rpcReply(t, waiting); m["method"] != "elicitation/create" {
		t.Fatalf("first message of key A's plan call: %v, want elicitation/create", m)
	}
	const list = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_pending","arguments":{}}}`
	busy := a.post(context.Background(), list)
	if m := rpcReply(t, busy); rpcErrorCode(m) != -32029 {
		t.Fatalf("key A's second call beyond --mcp-max-calls 1: %v, want -32029", m)
	}
	busy.Body.Close()
	other := b.post(context.Background(), list)
	defer other.Body.Close()
	if m := rpcReply(t, other); m["result"] == nil {
		t.Fatalf("key B's call while key A is at its cap: %v, want a result", m)
	}
}

// A plan call waiting on its elicitation ends when its client's stream is
// gone: the in-flight gauge goes back to 0 and the slot is free again
// (with --mcp-max-calls 1, a second call meanwhile is -32029).
func mcpWaitingCallEndsWhenItsClientLeaves(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--mcp-max-calls", "1")
	_, c := initialize(t, in)
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	resp := c.post(ctx, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{"goal":"hot frozen cheese"}}}`)
	if m := rpcReply(t, resp); m["method"] != "elicitation/create" {
		t.Fatalf("first message of the plan call: %v, want elicitation/create", m)
	}
	if got := in.metricValue("askonce_mcp_calls_in_flight"); got != 1 {
		t.Fatalf("askonce_mcp_calls_in_flight = %v while the call waits, want 1", got)
	}
	busy := c.post(context.Background(), `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_pending","arguments":{}}}`)
	if m := rpcReply(t, busy); rpcErrorCode(m) != -32029 {
		t.Fatalf("a second call beyond --mcp-max-calls 1: %v, want -32029", m)
	}
	busy.Body.Close()

	leave() // the client goes away without answering
	resp.Body.Close()
	eventually(t, "askonce_mcp_calls_in_flight back to 0 after the client left", func() bool {
		return in.metricValue("askonce_mcp_calls_in_flight") == 0
	})
	again := c.post(context.Background(), `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_pending","arguments":{}}}`)
	defer again.Body.Close()
	if m := rpcReply(t, again); m["result"] == nil {
		t.Fatalf("a call after the slot was freed: %v", m)
	}
}

// askonce mcp answers every request it read before its input closed: a
// shell pipe that writes the handshake and a ping and closes at once gets
// both answers, every time.
func mcpStdioAnswersRequestsPipedBeforeEndOfInput(t *testing.T) {
	t.Parallel()
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	db := filepath.Join(t.TempDir(), "a.db")
	for i := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, builtBinary(t), "mcp", "--db", db)
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		for _, id := range []string{`"id":1,"result"`, `"id":2,"result"`} {
			if !strings.Contains(string(out), id) {
				t.Fatalf("run %d: no answer with %s in %q", i, id, out)
			}
		}
	}
}

// askonce mcp on stdio answers a line that is no JSON-RPC message with
// -32700 (not JSON) or -32600 (not a request) and goes on serving the
// same process.
func mcpStdioAnswersMalformedLinesAndKeepsServing(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(builtBinary(t), "mcp", "--db", filepath.Join(t.TempDir(), "a.db"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	replies := make(chan map[string]any)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			replies <- m
		}
		close(replies)
	}()
	send := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("write %q: %v (stderr: %s)", line, err, stderr.String())
		}
		select {
		case m, ok := <-replies:
			if !ok {
				t.Fatalf("askonce mcp closed stdout after %q (stderr: %s)", line, stderr.String())
			}
			return m
		case <-time.After(20 * time.Second):
			t.Fatalf("no reply to %q within 20s (stderr: %s)", line, stderr.String())
		}
		return nil
	}
	wantError := func(line string, code int, id any) {
		t.Helper()
		m := send(line)
		if rpcErrorCode(m) != code || m["id"] != id || m["jsonrpc"] != "2.0" {
			t.Fatalf("%q answered %v, want the JSON-RPC error %d with id %v", line, m, code, id)
		}
	}
	wantError(`{`, -32700, nil)
	if m := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`); m["result"] == nil {
		t.Fatalf("initialize after a malformed line: %v", m)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	for _, c := range []struct {
		line string
		code int
		id   any
	}{
		{`{`, -32700, nil},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"`, -32700, nil},
		{`null`, -32600, nil},
		{`[]`, -32600, nil},
		{`42`, -32600, nil},
		{`"ping"`, -32600, nil},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, -32600, float64(3)},
		{`{"id":"x","method":"ping"}`, -32600, "x"},
		{`{"jsonrpc":"2.0","id":{"no":"objects"},"method":"ping"}`, -32600, nil},
		{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, -32600, nil}, // no batches in 2025-11-25
	} {
		wantError(c.line, c.code, c.id)
	}
	if m := send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`); m["id"] != float64(5) || m["error"] != nil {
		t.Fatalf("ping after the malformed lines: %v", m)
	}
	m := send(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`)
	if tools, _ := m["result"].(map[string]any)["tools"].([]any); len(tools) == 0 {
		t.Fatalf("tools/list after the malformed lines: %v", m)
	}
	select {
	case err := <-exited:
		t.Fatalf("askonce mcp exited: %v (stderr: %s)", err, stderr.String())
	default:
	}
}
