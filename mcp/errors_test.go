package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askonce/askonce/mcp"
)

// rawReply is one HTTP answer of /mcp: status, content type and the body
// decoded as a JSON object (nil when it is not one).
type rawReply struct {
	status      int
	contentType string
	body        string
	json        map[string]any
}

// rawPost posts body to url in session (none for ""), as a client of
// protocol version 2025-11-25 does.
func rawPost(t *testing.T, url, session, body string) rawReply {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := rawReply{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: string(b)}
	data := string(b)
	if strings.HasPrefix(r.contentType, "text/event-stream") {
		_, data, _ = strings.Cut(data, "data: ")
		data, _, _ = strings.Cut(data, "\n")
	}
	json.Unmarshal([]byte(data), &r.json)
	if session == "" && resp.Header.Get("Mcp-Session-Id") != "" {
		r.json["session"] = resp.Header.Get("Mcp-Session-Id")
	}
	return r
}

// rpcErr is a JSON-RPC response's error code and message; 0 for none.
func rpcErr(m map[string]any) (int, string) {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	msg, _ := e["message"].(string)
	return int(code), msg
}

// session initializes a 2025-11-25 session over raw HTTP and returns its
// id.
func session(t *testing.T, url string) string {
	t.Helper()
	r := rawPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`)
	id, _ := r.json["session"].(string)
	if r.status != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s; want a session", r.status, r.body)
	}
	if r := rawPost(t, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return id
}

// checkError fails unless r is status with a JSON-RPC error of code as
// application/json, for id (nil: null).
func checkError(t *testing.T, what string, r rawReply, status, code int, id any) {
	t.Helper()
	got, _ := rpcErr(r.json)
	if r.status != status || !strings.HasPrefix(r.contentType, "application/json") || r.json["jsonrpc"] != "2.0" || got != code || r.json["id"] != id {
		t.Errorf("%s: %d %s %s; want %d application/json with JSON-RPC error %d for id %v", what, r.status, r.contentType, r.body, status, code, id)
	}
}

// In a 2025-11-25 session over HTTP, a call of a method the server does
// not have is the JSON-RPC error -32601 for its id, as on stdio and the
// sessionless path, not an HTTP 400 in plain text.
func TestHTTP_UnknownMethodInASessionIsMethodNotFound(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(mcp.Handler(e.server, mcp.HTTPOptions{}))
	t.Cleanup(srv.Close)
	id := session(t, srv.URL)
	checkError(t, "unknown method", rawPost(t, srv.URL, id, `{"jsonrpc":"2.0","id":7,"method":"nope","params":{}}`), http.StatusOK, -32601, float64(7))
	checkError(t, "unknown method, string id", rawPost(t, srv.URL, id, `{"jsonrpc":"2.0","id":"x","method":"tools/nope"}`), http.StatusOK, -32601, "x")
	// The session still serves.
	if r := rawPost(t, srv.URL, id, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`); r.status != http.StatusOK || r.json["result"] == nil {
		t.Fatalf("tools/list after the unknown method: %d %s", r.status, r.body)
	}
}

// Every refusal of /mcp is a JSON-RPC error as application/json with its
// HTTP status: a body over the limit 413 (-32600, as /a2a's), a body that
// is not JSON 400 (-32700), a request the SDK refuses 400 (-32600), an
// unknown session 404 (-32600), a missing key 401 (-32600).
func TestHTTP_RefusalsAreJSONRPCErrorsAsApplicationJSON(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(mcp.Handler(e.server, mcp.HTTPOptions{MaxBody: 1024}))
	t.Cleanup(srv.Close)
	id := session(t, srv.URL)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("x", 2048) + `"}}`
	r := rawPost(t, srv.URL, id, big)
	checkError(t, "body over the limit", r, http.StatusRequestEntityTooLarge, -32600, nil)
	if _, msg := rpcErr(r.json); !strings.Contains(msg, "larger than 1024 bytes") {
		t.Errorf("413 says %q; want the limit", msg)
	}
	checkError(t, "not JSON", rawPost(t, srv.URL, id, `{"jsonrpc":`), http.StatusBadRequest, -32700, nil)
	checkError(t, "a call without its params", rawPost(t, srv.URL, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call"}`), http.StatusBadRequest, -32600, nil)
	checkError(t, "unknown session", rawPost(t, srv.URL, "no-such-session", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`), http.StatusNotFound, -32600, nil)

	keyed := keyedServer(t, newEnv(t), mcp.HTTPOptions{})
	checkError(t, "no key", rawPost(t, keyed.URL, "", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`), http.StatusUnauthorized, -32600, nil)
}
