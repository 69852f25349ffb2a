package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// keysFile: alpha's ci-bot may send to acme.test addresses only; beta's
// key is unnamed and unrestricted.
const keysFile = "alpha %s name=ci-bot notify=email:*@acme.test,slack:C0ACME*\nbeta %s\n"

func keyedServer(t *testing.T, e *env, o mcp.HTTPOptions) *httptest.Server {
	t.Helper()
	keys, err := auth.LoadKeys(strings.NewReader(strings.Replace(strings.Replace(keysFile, "%s", auth.HashKey("key-a"), 1), "%s", auth.HashKey("key-b"), 1)))
	if err != nil {
		t.Fatal(err)
	}
	o.Caller = keys.Caller
	srv := httptest.NewServer(mcp.Handler(e.server, o))
	t.Cleanup(srv.Close)
	return srv
}

// jobCount is how many jobs tenant has.
func (e *env) jobCount(tenant string) int {
	e.t.Helper()
	page, err := e.engine.List(context.Background(), tenant, askonce.JobFilter{Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	return len(page.Jobs)
}

// plan and ask_user take notify as POST /jobs does: stored with the job,
// validated, and bounded by the key's notify= (a restricted key cannot
// reach other recipients over MCP); a refused call creates no job.
func TestHTTP_NotifyIsStoredAndBoundedByTheKeysRecipients(t *testing.T) {
	e := newEnv(t)
	srv := keyedServer(t, e, mcp.HTTPOptions{})
	a := httpClient(t, srv.URL, "key-a", clientOptions{version: versions[0]})
	b := httpClient(t, srv.URL, "key-b", clientOptions{version: versions[0]})

	for _, c := range []struct {
		name   string
		notify map[string]any
		msg    string
	}{
		{"EmailOutsideTheKeysPatterns", map[string]any{"email": []string{"boss@evil.test"}}, `notify.email[0] "boss@evil.test" is not among the recipients this API key may use`},
		{"SlackOutsideTheKeysPatterns", map[string]any{"slack": map[string]any{"channel": "C0EVIL1234"}}, `notify.slack "C0EVIL1234" is not among`},
	} {
		for _, tool := range []string{mcp.ToolPlan, mcp.ToolAskUser} {
			args := map[string]any{"goal": "ask select", "notify": c.notify}
			if tool == mcp.ToolAskUser {
				args = with(moduleQuestion, "notify", c.notify, "task", c.name)
			}
			if msg := toolError(t, a, tool, args); !strings.Contains(msg, c.msg) {
				t.Errorf("%s %s: %q, want %q", c.name, tool, msg, c.msg)
			}
		}
	}
	if n := e.jobCount("alpha"); n != 0 {
		t.Fatalf("refused calls created %d jobs", n)
	}
	// A malformed recipient is refused whoever asks.
	if msg := toolError(t, b, mcp.ToolPlan, map[string]any{"goal": "ask select", "notify": map[string]any{"slack": map[string]any{"channel": "general"}}}); !strings.Contains(msg, `notify.slack.channel "general" is not a Slack channel id`) {
		t.Errorf("malformed channel: %q", msg)
	}

	allowed := &askonce.Recipients{Email: []string{"dev@acme.test"}, Slack: &askonce.SlackRecipient{Channel: "C0ACME1234"}}
	var job mcp.JobResult
	call(t, a, mcp.ToolPlan, map[string]any{"goal": "ask select", "notify": allowed}, &job)
	if j, err := e.engine.Get(context.Background(), "alpha", job.JobID); err != nil || j.Notify == nil || j.Notify.Email[0] != "dev@acme.test" || j.Notify.Slack.Channel != "C0ACME1234" {
		t.Fatalf("plan's job recipients: %v %+v", err, j)
	}
	var ask mcp.AskResult
	call(t, a, mcp.ToolAskUser, with(moduleQuestion, "notify", allowed, "task", "gate"), &ask)
	if j, err := e.engine.Get(context.Background(), "alpha", ask.JobID); err != nil || j.Notify == nil || j.Notify.Email[0] != "dev@acme.test" {
		t.Fatalf("ask_user's job recipients: %v %+v", err, j)
	}
	// The unrestricted key may name anyone.
	call(t, b, mcp.ToolPlan, map[string]any{"goal": "ask select", "notify": map[string]any{"email": []string{"boss@evil.test"}}}, &job)
	if j, err := e.engine.Get(context.Background(), "beta", job.JobID); err != nil || j.Notify == nil || j.Notify.Email[0] != "boss@evil.test" {
		t.Fatalf("beta's job recipients: %v %+v", err, j)
	}
}

// An answer over MCP with a named key is recorded as given by the key's
// name (the keys file vouches for it); with an unnamed key, by the
// client's name (what the client calls itself).
func TestHTTP_NamedKeysAnswerIsRecordedAsAnsweredBy(t *testing.T) {
	e := newEnv(t)
	srv := keyedServer(t, e, mcp.HTTPOptions{})
	for _, c := range []struct{ key, tenant, want string }{
		{"key-a", "alpha", "ci-bot"},
		{"key-b", "beta", "test-client"},
	} {
		cs := httpClient(t, srv.URL, c.key, clientOptions{version: versions[0]})
		var job mcp.JobResult
		call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask select"}, &job)
		call(t, cs, mcp.ToolAnswer, map[string]any{"jobId": job.JobID, "answer": "billing"}, nil)
		j, err := e.engine.Get(context.Background(), c.tenant, job.JobID)
		if err != nil || j.AnsweredVia != askonce.ViaMCP || j.AnsweredBy != c.want {
			t.Errorf("%s: %v answeredVia %q answeredBy %q; want mcp, %q", c.key, err, j.AnsweredVia, j.AnsweredBy, c.want)
		}
	}
}

// post sends one JSON-RPC request to /mcp with key, from the proxy's
// client forwarded (when not empty).
func post(t *testing.T, url, key, forwarded string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	if forwarded != "" {
		req.Header.Set("X-Forwarded-For", forwarded)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Wrong keys on /mcp count per client address as on the API: over the
// limit its wrong keys get 429 with Retry-After and a JSON-RPC error,
// while a valid key, even one never used from there, is served; behind a
// trusted proxy the forwarded client is the address.
func TestHTTP_WrongKeysAreThrottledPerAddressAndValidKeysAreServed(t *testing.T) {
	e := newEnv(t)
	srv := keyedServer(t, e, mcp.HTTPOptions{FailedAuth: 3, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}})
	const client, other = "203.0.113.7", "203.0.113.8"
	if r := post(t, srv.URL, "key-a", client); r.StatusCode != http.StatusOK {
		t.Fatalf("valid key: %d", r.StatusCode)
	}
	for i := range 3 {
		if r := post(t, srv.URL, "guess", client); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong key %d: %d, want 401", i+1, r.StatusCode)
		}
	}
	r := post(t, srv.URL, "guess", client)
	body, _ := io.ReadAll(r.Body)
	var rpc struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || json.Unmarshal(body, &rpc) != nil || !strings.Contains(rpc.Error.Message, "too many wrong API keys") {
		t.Fatalf("fourth wrong key: %d Retry-After %q %s; want 429 with Retry-After and a JSON-RPC error", r.StatusCode, r.Header.Get("Retry-After"), body)
	}
	// A valid key never used from the address is served: one client's
	// wrong keys do not lock out the others behind its address.
	if r := post(t, srv.URL, "key-b", client); r.StatusCode != http.StatusOK {
		t.Fatalf("new key from the throttled address: %d, want 200", r.StatusCode)
	}
	// The key used before goes on working, through a whole session.
	tr := &sdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: forwardedTransport{keyTransport{"key-a"}, client}}}
	cs := connectClient(t, tr, clientOptions{version: versions[0]})
	call(t, cs, mcp.ToolListPending, map[string]any{}, nil)
	// Another client behind the same proxy is not throttled.
	if r := post(t, srv.URL, "guess", other); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong key from another client: %d, want 401", r.StatusCode)
	}
}

// forwardedTransport sends through next as the proxy's client addr.
type forwardedTransport struct {
	next http.RoundTripper
	addr string
}

func (f forwardedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.addr)
	return f.next.RoundTrip(r)
}
