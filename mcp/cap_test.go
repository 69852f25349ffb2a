package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce/mcp"
)

// The session cap (HTTPOptions.MaxSessions) over raw HTTP, as
// cmd/askonce's end-to-end tests check it through the binary, but here
// inside the package, within a deadline of their own.

// capClient is one raw HTTP session of a capped server.
type capClient struct {
	t       *testing.T
	url     string
	session string
}

// post sends one JSON-RPC message and returns the answer, its body
// unread; ctx ends the request.
func (c *capClient) post(ctx context.Context, msg string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", c.url, strings.NewReader(msg))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		c.t.Fatalf("POST %s: %v", msg, err)
	}
	return resp
}

// firstMessage is the first JSON-RPC message of an answer, plain or an
// event stream; it fails the test after 20s without one.
func firstMessage(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	got := make(chan map[string]any, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		var body strings.Builder
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					got <- m
					return
				}
			}
			body.WriteString(sc.Text())
		}
		var m map[string]any
		json.Unmarshal([]byte(body.String()), &m)
		got <- m
	}()
	select {
	case m := <-got:
		return m
	case <-time.After(20 * time.Second):
		t.Fatal("no JSON-RPC message in 20s")
		return nil
	}
}

// open initializes a session with elicitation; its session is "" when
// refused, and the answer is returned.
func open(t *testing.T, url string) (*capClient, map[string]any) {
	t.Helper()
	c := &capClient{t: t, url: url}
	resp := c.post(context.Background(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	defer resp.Body.Close()
	m := firstMessage(t, resp)
	if m["result"] != nil {
		c.session = resp.Header.Get("Mcp-Session-Id")
		r := c.post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return c, m
}

// ping is the HTTP status of a ping on c's session.
func (c *capClient) ping() int {
	c.t.Helper()
	resp := c.post(context.Background(), `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func cappedServer(t *testing.T, maxSessions int) (*env, string) {
	t.Helper()
	e := newEnv(t)
	srv := httptest.NewServer(mcp.Handler(e.server, mcp.HTTPOptions{MaxSessions: maxSessions, Metrics: e.reg}))
	t.Cleanup(srv.Close)
	return e, srv.URL
}

// At the cap, an initialize closes the least recently used idle session
// (its client gets 404) and no other; the gauge stays at the cap.
func TestSessionCapClosesTheLeastRecentlyUsedIdleSession(t *testing.T) {
	e, url := cappedServer(t, 3)
	var cs []*capClient
	for i := range 3 {
		c, m := open(t, url)
		if c.session == "" {
			t.Fatalf("initialize %d within the cap: %v", i+1, m)
		}
		cs = append(cs, c)
	}
	for _, i := range []int{1, 2, 0} {
		if st := cs[i].ping(); st != http.StatusOK {
			t.Fatalf("ping on session %d: %d", i, st)
		}
	}
	if c, m := open(t, url); c.session == "" {
		t.Fatalf("initialize at the cap: %v; want a session in place of the least recently used", m)
	}
	waitFor(t, "404 on the least recently used session", func() bool { return cs[1].ping() == http.StatusNotFound })
	for _, i := range []int{0, 2} {
		if st := cs[i].ping(); st != http.StatusOK {
			t.Errorf("ping on session %d, used more recently: %d; want 200", i, st)
		}
	}
	if !e.metric("askonce_mcp_sessions 3\n") {
		t.Error("askonce_mcp_sessions is not 3 at the cap")
	}
}

// When every session of the cap has a call in flight, one more
// initialize is the JSON-RPC error CodeOverLimit naming the limit, and
// the busy session goes on; once its call's request is gone, an
// initialize closes it to make way.
func TestSessionCapIsAJSONRPCErrorWhenEverySessionIsBusy(t *testing.T) {
	_, url := cappedServer(t, 1)
	busy, m := open(t, url)
	if busy.session == "" {
		t.Fatalf("initialize: %v", m)
	}
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	waiting := busy.post(ctx, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{"goal":"ask select"}}}`)
	defer waiting.Body.Close()
	if m := firstMessage(t, waiting); m["method"] != "elicitation/create" {
		t.Fatalf("first message of the plan call: %v; want elicitation/create", m)
	}
	c, m := open(t, url)
	if code, msg := rpcErr(m); c.session != "" || code != mcp.CodeOverLimit || !strings.Contains(msg, "limit") {
		t.Fatalf("initialize while the only session is busy: %v; want the JSON-RPC error %d naming the limit", m, mcp.CodeOverLimit)
	}
	if st := busy.ping(); st != http.StatusOK {
		t.Fatalf("ping on the busy session: %d; want 200", st)
	}
	leave()
	waitFor(t, "an initialize once the busy call's request is gone", func() bool {
		c, _ := open(t, url)
		return c.session != ""
	})
}

// A session that ends (DELETE) frees its slot: the gauge counts it out,
// and the next initialize closes nobody.
func TestSessionCapFreesTheSlotOfAClosedSession(t *testing.T) {
	e, url := cappedServer(t, 2)
	a, _ := open(t, url)
	b, _ := open(t, url)
	if a.session == "" || b.session == "" {
		t.Fatal("initialize within the cap refused")
	}
	req, _ := http.NewRequest("DELETE", url, nil)
	req.Header.Set("Mcp-Session-Id", a.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitFor(t, "askonce_mcp_sessions 1 after the DELETE", func() bool { return e.metric("askonce_mcp_sessions 1\n") })
	if c, m := open(t, url); c.session == "" {
		t.Fatalf("initialize after a DELETE: %v", m)
	}
	if st := b.ping(); st != http.StatusOK {
		t.Errorf("ping on the session left: %d; want 200 (the freed slot made way, not it)", st)
	}
}

// A key has at most MaxCalls tool calls in flight: one more, from any of
// its sessions, is the JSON-RPC error CodeOverLimit, and once a call has
// ended the next is served.
func TestCallCapRefusesOneCallMoreThanTheLimit(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(mcp.Handler(e.server, mcp.HTTPOptions{MaxCalls: 1, Metrics: e.reg}))
	t.Cleanup(srv.Close)
	busy, _ := open(t, srv.URL)
	other, _ := open(t, srv.URL)
	if busy.session == "" || other.session == "" {
		t.Fatal("initialize refused")
	}
	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	waiting := busy.post(ctx, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{"goal":"ask select"}}}`)
	defer waiting.Body.Close()
	if m := firstMessage(t, waiting); m["method"] != "elicitation/create" {
		t.Fatalf("first message of the plan call: %v; want elicitation/create", m)
	}
	const list = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"plan","arguments":{"goal":"no question here"}}}`
	resp := other.post(context.Background(), list)
	m := firstMessage(t, resp)
	resp.Body.Close()
	if code, msg := rpcErr(m); code != mcp.CodeOverLimit || !strings.Contains(msg, "limit") {
		t.Fatalf("a second call beyond MaxCalls 1: %v; want the JSON-RPC error %d naming the limit", m, mcp.CodeOverLimit)
	}
	leave()
	waitFor(t, "a call served once the first has ended", func() bool {
		resp := other.post(context.Background(), list)
		defer resp.Body.Close()
		return firstMessage(t, resp)["result"] != nil
	})
}
