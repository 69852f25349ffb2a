package a2a_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/mcp"
)

// reply is one HTTP answer: status, content type and body.
type reply struct {
	status      int
	contentType string
	body        []byte
}

// decoded is the reply's JSON object, nil when it is not one; of an
// event stream, its first event's.
func (r reply) decoded() map[string]any {
	body := r.body
	if strings.HasPrefix(r.contentType, "text/event-stream") {
		_, data, ok := strings.Cut(string(body), "data: ")
		if !ok {
			return nil
		}
		data, _, _ = strings.Cut(data, "\n")
		body = []byte(data)
	}
	var out map[string]any
	if json.Unmarshal(body, &out) != nil {
		return nil
	}
	return out
}

// postRaw posts body to url with header and returns the answer as sent.
func postRaw(t *testing.T, url string, header http.Header, body string) reply {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	// Bounded, body included: a stream that never ends fails the test.
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header.Get("Content-Type"), b}
}

// versionHeader is keyA's header with A2A-Version v ("" for none).
func versionHeader(v string) http.Header {
	h := http.Header{"Authorization": {"Bearer " + keyA}}
	if v != "" {
		h.Set("A2A-Version", v)
	}
	return h
}

// checkRPCError fails unless r is HTTP status with a JSON-RPC error of
// code as application/json (or as the first event of a stream), and
// returns the error's message.
func checkRPCError(t *testing.T, what string, r reply, status, code int) string {
	t.Helper()
	out := r.decoded()
	if r.status != status || !(strings.HasPrefix(r.contentType, "application/json") || strings.HasPrefix(r.contentType, "text/event-stream")) || out == nil || out["jsonrpc"] != "2.0" || rpcCode(out) != code {
		t.Errorf("%s: %d %s %s; want %d application/json with JSON-RPC error %d", what, r.status, r.contentType, r.body, status, code)
		return ""
	}
	msg, _ := out["error"].(map[string]any)["message"].(string)
	return msg
}

// A 0.3 message/send or message/stream whose configuration carries a push
// config but no message is invalid params, as in 1.0, not a panic (the
// SDK's 0.3 layer reads the message it does not check for).
func TestSendWithAPushConfigAndNoMessageIsInvalidParams(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct{ version, method string }{
		{"", "message/send"},
		{"", "message/stream"},
		{"0.3", "message/send"},
		{"1.0", "SendMessage"},
		{"1.0", "SendStreamingMessage"},
	} {
		config := `"configuration":{"pushNotificationConfig":{"url":"http://127.0.0.1:9/p"}}`
		if c.version == "1.0" {
			config = `"configuration":{"taskPushNotificationConfig":{"url":"http://127.0.0.1:9/p"}}`
		}
		for _, params := range []string{`{` + config + `}`, `{}`, `null`} {
			r := postRaw(t, e.base+a2a.Path, versionHeader(c.version), `{"jsonrpc":"2.0","id":1,"method":"`+c.method+`","params":`+params+`}`)
			if msg := checkRPCError(t, c.method+" "+params, r, http.StatusOK, -32602); msg != "" && !strings.Contains(msg, "message") {
				t.Errorf("%s %s: %q; want it to say the message is required", c.method, params, msg)
			}
		}
	}
}

// A body that is JSON but not a request object (an array, a batch, a
// string, a number, null) is invalid request (-32600) in both versions;
// one that is not JSON is a parse error (-32700). Each is a JSON-RPC
// error sent as application/json.
func TestBodyThatIsNotARequestObjectIsInvalidRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, version := range []string{"", "0.3", "1.0"} {
		for _, c := range []struct {
			body string
			code int
		}{
			{`[]`, -32600},
			{`[{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}]`, -32600},
			{`"str"`, -32600},
			{`5`, -32600},
			{`null`, -32600},
			{` {"jsonrpc":"2.0","id":1,`, -32700},
			{`not json`, -32700},
		} {
			checkRPCError(t, "A2A-Version "+version+" "+c.body, postRaw(t, e.base+a2a.Path, versionHeader(version), c.body), http.StatusOK, c.code)
		}
	}
}

// A2A 0.3's JSON-RPC errors are sent as application/json, as its results
// and all of 1.0's answers are.
func TestJSONRPCErrorsOfBothVersionsAreApplicationJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		version, body string
		code          int
	}{
		{"", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"no-such-task"}}`, -32001},
		{"", `{"jsonrpc":"2.0","id":2,"method":"tasks/nope","params":{}}`, -32601},
		{"", `{"jsonrpc":"1.0","id":3,"method":"tasks/get","params":{"id":"x"}}`, -32600},
		{"0.3", `{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"id":"no-such-task"}}`, -32001},
		{"1.0", `{"jsonrpc":"2.0","id":5,"method":"GetTask","params":{"id":"no-such-task"}}`, -32001},
		{"1.0", `{"jsonrpc":"2.0","id":6,"method":"Nope","params":{}}`, -32601},
	} {
		checkRPCError(t, c.body, postRaw(t, e.base+a2a.Path, versionHeader(c.version), c.body), http.StatusOK, c.code)
	}
}

// An address over its limit of wrong keys gets 429 with the rate-limit
// code, the same as MCP's and the same in 1.0 and 0.3, not invalid
// request: the request was well-formed. On HTTP+JSON it is the binding's
// 429 RESOURCE_EXHAUSTED.
func TestWrongKeysOverTheLimitAreTheRateLimitCodeInBothVersions(t *testing.T) {
	t.Parallel()
	if a2a.CodeOverLimit != mcp.CodeOverLimit {
		t.Fatalf("A2A's rate-limit code %d, MCP's %d; want one code", a2a.CodeOverLimit, mcp.CodeOverLimit)
	}
	e, _ := keyedEnv(t, nil)
	wrong := func(version, client string) http.Header {
		h := http.Header{"Authorization": {"Bearer guess"}, "X-Forwarded-For": {client}}
		if version != "" {
			h.Set("A2A-Version", version)
		}
		return h
	}
	for i, version := range []string{"", "0.3", "1.0"} {
		client := "203.0.113." + string(rune('1'+i))
		for range 3 {
			checkRPCError(t, "wrong key", postRaw(t, e.base+a2a.Path, wrong(version, client), getTask), http.StatusUnauthorized, -32600)
		}
		r := postRaw(t, e.base+a2a.Path, wrong(version, client), getTask)
		if msg := checkRPCError(t, "A2A-Version "+version+": fourth wrong key", r, http.StatusTooManyRequests, -32029); !strings.Contains(msg, "too many wrong API keys") {
			t.Errorf("A2A-Version %s: 429 says %q", version, msg)
		}
	}
	r := postRaw(t, e.base+a2a.RESTPath+"/tasks/x", wrong("1.0", "203.0.113.1"), `{}`)
	out := r.decoded()
	rest, _ := out["error"].(map[string]any)
	if r.status != http.StatusTooManyRequests || !strings.HasPrefix(r.contentType, "application/json") || rest["status"] != "RESOURCE_EXHAUSTED" || rest["code"] != float64(429) {
		t.Errorf("HTTP+JSON over the limit: %d %s %s; want 429 RESOURCE_EXHAUSTED", r.status, r.contentType, r.body)
	}
}

// A route the HTTP+JSON binding does not have, or a method a route does
// not take, is the binding's JSON error of its status, not the mux's
// plain text.
func TestUnknownRESTRouteIsTheBindingsJSONError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, c := range []struct {
		version, method, path string
		status                int
	}{
		{"1.0", "POST", "/0", http.StatusNotFound},
		{"1.0", "GET", "/nope/nope", http.StatusNotFound},
		{"", "POST", "/v1/nope", http.StatusNotFound},
	} {
		req, err := http.NewRequest(c.method, e.base+a2a.RESTPath+c.path, strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = versionHeader(c.version)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out struct {
			Error struct {
				Code   int    `json:"code"`
				Status string `json:"status"`
			} `json:"error"`
		}
		if resp.StatusCode != c.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || json.Unmarshal(b, &out) != nil || out.Error.Code != c.status || out.Error.Status == "" {
			t.Errorf("%s %s: %d %s %s; want %d with the binding's JSON error", c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"), b, c.status)
		}
	}
}
