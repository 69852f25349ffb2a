package main_test

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The limit of the answer page and of API keys: 20 failures a minute.
const failureLimit = 20

// Behind a trusted proxy (the test's loopback connection, named by
// --trusted-proxies), every limiter counts by the client address the
// proxy forwards. Twenty unknown answer tokens from one client make its
// further unknown tokens 429, while a valid link still opens for it and
// another client is not touched; the same for wrong API keys, on the API
// and at the inbox's sign-in, where valid keys still work and the 429
// says when to retry.
func apiKeysFailuresAreLimitedPerForwardedClientWithoutRefusingValidCredentials(t *testing.T) {
	t.Parallel()
	keys := keysFile(t, map[string]string{"acme": "key-acme", "globex": "key-globex"})
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--api-keys-file", keys, "--trusted-proxies", "127.0.0.0/8,::1")
	const guesser, other = "203.0.113.66", "198.51.100.7"
	from := func(addr string, kv ...string) []string {
		return append([]string{"X-Forwarded-For", "6.6.6.6, " + addr}, kv...)
	}

	// The guesser's colleague's key was accepted from the guesser's address.
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"}, from(guesser, "Authorization", "Bearer key-acme")...)
	link := str(r.body, "answerUrl")
	if r.status != 201 || !strings.Contains(link, "/a/") {
		t.Fatalf("create: %d %s; want a pending job with its answerUrl", r.status, r.raw)
	}
	path := link[strings.Index(link, "/a/"):]

	// Answer links.
	unknown := "/a/" + strings.Repeat("Q", 43)
	for i := range failureLimit {
		if g := in.do("GET", unknown, nil, from(guesser)...); g.status != 404 {
			t.Fatalf("unknown token %d: %d, want 404", i+1, g.status)
		}
	}
	g := in.do("GET", unknown, nil, from(guesser)...)
	if g.status != 429 || g.header.Get("Retry-After") == "" {
		t.Fatalf("unknown token past the limit: %d Retry-After %q, want 429 with Retry-After", g.status, g.header.Get("Retry-After"))
	}
	if g := in.do("GET", path, nil, from(guesser)...); g.status != 200 {
		t.Fatalf("a valid link from the guessing client: %d, want 200", g.status)
	}
	if g := in.do("GET", unknown, nil, from(other)...); g.status != 404 {
		t.Fatalf("an unknown token from another client behind the proxy: %d, want 404 (its own count)", g.status)
	}

	// API keys.
	for i := range failureLimit {
		if g := in.do("GET", "/jobs", nil, from(guesser, "Authorization", "Bearer wrong-key")...); g.status != 401 {
			t.Fatalf("wrong key %d: %d, want 401", i+1, g.status)
		}
	}
	g = in.do("GET", "/jobs", nil, from(guesser, "Authorization", "Bearer wrong-key")...)
	if g.status != 429 || str(g.body, "code") != "too_many_requests" || g.header.Get("Retry-After") == "" {
		t.Fatalf("wrong key past the limit: %d %s Retry-After %q; want 429 too_many_requests with Retry-After", g.status, g.raw, g.header.Get("Retry-After"))
	}
	if g := in.do("GET", "/jobs", nil, from(guesser, "Authorization", "Bearer key-globex")...); g.status != 200 {
		t.Fatalf("a key never used from the guessing client, while it is over the limit: %d, want 200", g.status)
	}
	if g := in.do("GET", "/jobs", nil, from(guesser, "Authorization", "Bearer key-acme")...); g.status != 200 {
		t.Fatalf("a key accepted from the guessing client before: %d %s, want 200", g.status, g.raw)
	}
	if g := in.do("GET", "/jobs", nil, from(other, "Authorization", "Bearer wrong-key")...); g.status != 401 {
		t.Fatalf("a wrong key from another client: %d, want 401 (its own count)", g.status)
	}
	if g := in.do("GET", "/jobs", nil, from(other, "Authorization", "Bearer key-globex")...); g.status != 200 {
		t.Fatalf("a valid key from another client: %d, want 200", g.status)
	}

	// The inbox's sign-in.
	for i := range failureLimit {
		if st, _ := uiLogin(t, in.base, "wrong-key", from(guesser)...); st != 401 {
			t.Fatalf("wrong key %d at /ui/login: %d, want 401", i+1, st)
		}
	}
	if st, resp := uiLogin(t, in.base, "wrong-key", from(guesser)...); st != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("wrong key at /ui/login past the limit: %d Retry-After %q, want 429 with Retry-After", st, resp.Header.Get("Retry-After"))
	}
	if st, _ := uiLogin(t, in.base, "key-acme", from(other)...); st != http.StatusSeeOther {
		t.Fatalf("a valid key at /ui/login from another client: %d, want 303", st)
	}
}

// A valid API key is served on every endpoint from an address over its
// limit of wrong keys, even a key never used from there (one script with
// a wrong key behind an office's NAT does not lock the office out); the
// wrong keys from there keep getting 429 with Retry-After.
func apiKeysAValidKeyIsServedOnEveryEndpointFromAnAddressOverTheLimit(t *testing.T) {
	t.Parallel()
	keys := keysFile(t, map[string]string{"acme": "key-acme"})
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--api-keys-file", keys)
	post := func(path, key string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", in.base+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
			t.Fatalf("%s: 429 without Retry-After", path)
		}
		return resp.StatusCode
	}
	endpoints := map[string]func(key string) int{
		"/jobs": func(key string) int { return in.do("GET", "/jobs", nil, "Authorization", "Bearer "+key).status },
		"/mcp":  func(key string) int { return post("/mcp", key) },
		"/a2a":  func(key string) int { return post("/a2a", key) },
		"/ui/login": func(key string) int {
			st, resp := uiLogin(t, in.base, key)
			if st == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
				t.Fatal("/ui/login: 429 without Retry-After")
			}
			return st
		},
	}
	for path, try := range endpoints {
		for range 10 * failureLimit {
			try("wrong-key")
		}
		if st := try("wrong-key"); st != http.StatusTooManyRequests {
			t.Errorf("%s: a wrong key past the limit got %d, want 429", path, st)
		}
		if st := try("key-acme"); st == http.StatusTooManyRequests || st == http.StatusUnauthorized {
			t.Errorf("%s: a valid key never used from the address over the limit got %d, want it served", path, st)
		}
	}
}

// Without --trusted-proxies, forwarding headers are the client's own
// words: a guesser who changes X-Forwarded-For on every request is still
// one address.
func apiKeysForwardingHeadersAreIgnoredWithoutTrustedProxies(t *testing.T) {
	t.Parallel()
	keys := keysFile(t, map[string]string{"acme": "key-acme"})
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--api-keys-file", keys)
	spoof := func(i int) []string {
		return []string{"X-Forwarded-For", "203.0.113." + string(rune('0'+i%10)), "Forwarded", "for=198.51.100." + string(rune('0'+i%10)), "Authorization", "Bearer wrong"}
	}
	for i := range failureLimit {
		if g := in.do("GET", "/jobs", nil, spoof(i)...); g.status != 401 {
			t.Fatalf("wrong key %d: %d, want 401", i+1, g.status)
		}
	}
	if g := in.do("GET", "/jobs", nil, spoof(failureLimit)...); g.status != 429 {
		t.Fatalf("wrong key with yet another X-Forwarded-For past the limit: %d, want 429", g.status)
	}
	if g := in.do("GET", "/a/"+strings.Repeat("Q", 43), nil, spoof(0)...); g.status != 404 {
		t.Fatalf("an unknown answer token: %d, want 404 (the links count apart from the keys)", g.status)
	}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// uiLogin signs in at the inbox with key, as a browser would (the login
// form's cookie and token, same Origin), and returns the status.
func uiLogin(t *testing.T, base, key string, header ...string) (int, *http.Response) {
	t.Helper()
	get, err := http.NewRequest("GET", base+"/ui/login", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultTransport.RoundTrip(get)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		t.Fatalf("GET /ui/login: %d without a csrf field:\n%s", resp.StatusCode, page)
	}
	post, err := http.NewRequest("POST", base+"/ui/login", strings.NewReader(url.Values{"key": {key}, "csrf": {string(m[1])}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	post.Header.Set("Origin", base)
	for _, c := range resp.Cookies() {
		post.AddCookie(c)
	}
	for i := 0; i+1 < len(header); i += 2 {
		post.Header.Set(header[i], header[i+1])
	}
	out, err := http.DefaultTransport.RoundTrip(post)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, out.Body)
	out.Body.Close()
	return out.StatusCode, out
}
