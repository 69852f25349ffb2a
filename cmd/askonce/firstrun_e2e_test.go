package main_test

import (
	"bufio"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A new user opens the server's root in a browser: it sends them to the
// inbox, which answers.
func serveRootRedirectsToTheInbox(t *testing.T) {
	t.Parallel()
	in := start(t, nil)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(in.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui" {
		t.Fatalf("GET /: %s, Location %q; want 303 to /ui", resp.Status, resp.Header.Get("Location"))
	}
	resp, err = http.Get(in.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/ui" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("following GET /: %s at %s (%s); want the inbox's HTML page", resp.Status, resp.Request.URL, resp.Header.Get("Content-Type"))
	}
	// Only the root: another unknown path is still the API's JSON 404.
	if r := in.do("GET", "/nope", nil); r.status != http.StatusNotFound {
		t.Fatalf("GET /nope: %d, want 404", r.status)
	}
}

// serve's start-up log names the URLs of the API, the inbox, MCP, A2A and
// the metrics, at the port it actually listens on (here one the kernel
// picked for --addr 127.0.0.1:0), and each of them answers there.
func serveStartupLogNamesTheURLsItListensOn(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(builtBinary(t), "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "a.db"))
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	// The reader sends the URLs of the first "open" line, then drains.
	found := make(chan map[string]string, 1)
	go func() {
		defer close(found)
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if sent || !strings.Contains(sc.Text(), "msg=open ") {
				continue
			}
			urls := map[string]string{}
			for _, f := range strings.Fields(sc.Text()) {
				if k, v, ok := strings.Cut(f, "="); ok && strings.HasPrefix(v, "http://") {
					urls[k] = v
				}
			}
			found <- urls
			sent = true
		}
	}()
	var urls map[string]string
	select {
	case urls = <-found:
		if urls == nil {
			t.Fatal("serve exited before logging its URLs")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no start-up line with the URLs within 30s")
	}
	want := map[string]string{"api": "/", "ui": "/ui", "mcp": "/mcp", "a2a": "/a2a", "metrics": "/metrics"}
	var host string
	for k, p := range want {
		u, err := url.Parse(urls[k])
		if err != nil || u.Path != p {
			t.Fatalf("%s URL %q, want path %s (all: %v)", k, urls[k], p, urls)
		}
		if host == "" {
			host = u.Host
		}
		if u.Host != host || strings.HasSuffix(u.Host, ":0") {
			t.Fatalf("%s URL %q: want the one listening address, not :0 (all: %v)", k, urls[k], urls)
		}
	}
	for _, u := range []string{urls["api"] + "healthz", urls["ui"], urls["metrics"], "http://" + host + "/.well-known/agent-card.json"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", u, resp.Status)
		}
	}
	// /mcp and /a2a take JSON-RPC POSTs: answered by them, not the 404.
	for _, u := range []string{urls["mcp"], urls["a2a"]} {
		resp, err := http.Post(u, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			t.Errorf("GET %s: %s; want the endpoint", u, resp.Status)
		}
	}
}

// askonce health is the container's health check: 0 and the version for a
// healthy server, 1 with the reason for one that does not answer.
func cliHealthChecksTheServer(t *testing.T) {
	t.Parallel()
	in := start(t, nil)
	out, err := exec.Command(builtBinary(t), "health", "--server", in.base).CombinedOutput()
	if err != nil || !strings.Contains(string(out), stampedVersion) {
		t.Fatalf("health of a running server: %v\n%s", err, out)
	}
	// Without --server it asks the port serve's ASKONCE_ADDR names (the
	// container's one variable), on 127.0.0.1.
	port := strings.TrimPrefix(in.base, "http://127.0.0.1:")
	byAddr := exec.Command(builtBinary(t), "health")
	byAddr.Env = append(os.Environ(), "ASKONCE_SERVER=", "ASKONCE_ADDR=0.0.0.0:"+port)
	if out, err := byAddr.CombinedOutput(); err != nil || !strings.Contains(string(out), in.base+"/healthz") {
		t.Fatalf("health with ASKONCE_ADDR=0.0.0.0:%s: %v, want it to ask %s\n%s", port, err, in.base, out)
	}
	in.stop(syscall.SIGKILL) // returns once the process is gone
	cmd := exec.Command(builtBinary(t), "health", "--server", in.base, "--timeout", "2s")
	out, err = cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "health:") {
		t.Fatalf("health of a stopped server: exit %v, want 1 with the reason\n%s", err, out)
	}
}
