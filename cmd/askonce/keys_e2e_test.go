package main_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askonce/askonce/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport sets a header on every request.
type headerTransport struct{ name, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// TestAPIKeys: API keys: tenancy, the keys file's names and recipients, and
// the failure limit behind proxies.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	t.Run("Tenancy", apiKeysTenancy)
	t.Run("FileNameAndRecipientsReachMCPAndA2A", apiKeysFileNameAndRecipientsReachMCPAndA2A)
	t.Run("FailuresAreLimitedPerForwardedClientWithoutRefusingValidCredentials", apiKeysFailuresAreLimitedPerForwardedClientWithoutRefusingValidCredentials)
	t.Run("AValidKeyIsServedOnEveryEndpointFromAnAddressOverTheLimit", apiKeysAValidKeyIsServedOnEveryEndpointFromAnAddressOverTheLimit)
	t.Run("ForwardingHeadersAreIgnoredWithoutTrustedProxies", apiKeysForwardingHeadersAreIgnoredWithoutTrustedProxies)
}

// A keys file line's name= and notify= reach every channel of askonce
// serve: the named key's HTTP and MCP answers record its name, its
// notify= bounds the recipients of /jobs, /mcp and /a2a alike, and wrong
// keys on /mcp and /a2a are throttled per address as on /jobs.
func apiKeysFileNameAndRecipientsReachMCPAndA2A(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.WriteFile(keys, []byte("acme "+auth.HashKey("key-a")+" name=ci-bot notify=email:*@acme.test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := start(t, nil, "--db", filepath.Join(dir, "a.db"), "--api-keys-file", keys)
	auth := []string{"Authorization", "Bearer key-a"}

	// HTTP: the answer records the key's name.
	id := str(in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"}, auth...).body, "jobId")
	if r := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}, auth...); r.status != 200 || str(r.body, "answeredBy") != "ci-bot" {
		t.Fatalf("HTTP answer: %d answeredBy %q; want ci-bot", r.status, str(r.body, "answeredBy"))
	}

	// MCP: a recipient outside the key's notify= is refused; the answer
	// records the key's name.
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: in.base + "/mcp", HTTPClient: &http.Client{Transport: headerTransport{"X-API-Key", "key-a"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "plan", Arguments: map[string]any{"goal": "hot frozen cheese", "notify": map[string]any{"email": []string{"boss@evil.test"}}}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "not among the recipients this API key may use") {
		t.Fatalf("MCP plan to a recipient the key may not use: %v %+v", err, res)
	}
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "plan", Arguments: map[string]any{"goal": "hot frozen cheese", "notify": map[string]any{"email": []string{"dev@acme.test"}}}})
	if err != nil || res.IsError {
		t.Fatalf("MCP plan: %v %+v", err, res)
	}
	job, _ := res.StructuredContent.(map[string]any)
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "answer", Arguments: map[string]any{"jobId": job["jobId"], "answer": "hot"}})
	if err != nil || res.IsError {
		t.Fatalf("MCP answer: %v %+v", err, res)
	}
	if r := in.do("GET", "/jobs/"+job["jobId"].(string), nil, auth...); str(r.body, "answeredVia") != "mcp" || str(r.body, "answeredBy") != "ci-bot" || !strings.Contains(string(r.raw), "dev@acme.test") {
		t.Fatalf("the MCP job: %s; want notify dev@acme.test, answered via mcp by ci-bot", r.raw)
	}

	// A2A: the same restriction on a message's notify metadata.
	a2a := func(key, body string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", in.base+"/a2a", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}
	send := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hot frozen cheese"}],"metadata":{"notify":{"email":["boss@evil.test"]}}}}}`
	if _, body := a2a("key-a", send); !strings.Contains(body, "not among the recipients this API key may use") {
		t.Fatalf("A2A message to a recipient the key may not use: %s", body)
	}

	// Wrong keys: 20 per minute per address (the default), then 429 on
	// /mcp and /a2a, while a valid key works.
	for _, path := range []string{"/mcp", "/a2a"} {
		status := 0
		for range 21 {
			req, _ := http.NewRequest("POST", in.base+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer guess")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			status = resp.StatusCode
			if status == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
				t.Fatalf("%s: 429 without Retry-After", path)
			}
		}
		if status != http.StatusTooManyRequests {
			t.Fatalf("%s: the 21st wrong key got %d, want 429", path, status)
		}
	}
	if resp, body := a2a("key-a", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"`+id+`"}}`); resp.StatusCode != 200 || !strings.Contains(body, `"result"`) {
		t.Fatalf("the accepted key after the guesses: %d %s", resp.StatusCode, body)
	}
}

func toolText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
