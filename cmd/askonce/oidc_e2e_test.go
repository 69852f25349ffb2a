package main_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/askonce/askonce/auth"
)

// askonce serve --oidc-issuer signs people in through the provider, with
// the client's id and secret from the environment and the callback under
// the public URL, while API keys keep working.
func TestServeSignsInWithAnOpenIDProvider(t *testing.T) {
	t.Parallel()
	op, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { op.Shutdown() })
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.WriteFile(keys, []byte("acme "+auth.HashKey("key-a")+"\nacme signin domain=acme.test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := start(t, []string{"ASKONCE_OIDC_CLIENT_ID=" + op.ClientID, "ASKONCE_OIDC_CLIENT_SECRET=" + op.ClientSecret},
		"--db", filepath.Join(dir, "a.db"), "--api-keys-file", keys, "--oidc-issuer", op.Issuer())
	id := str(in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"}, "Authorization", "Bearer key-a").body, "jobId")
	if id == "" {
		t.Fatal("the API key did not create a job")
	}
	op.QueueUser(&mockoidc.MockUser{Subject: "s-1", Email: "ann@acme.test", EmailVerified: true})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(in.base + "/ui")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.String() != in.base+"/ui" || !strings.Contains(string(body), id) || !strings.Contains(string(body), "ann@acme.test") {
		t.Fatalf("signed in: %d at %s:\n%s", resp.StatusCode, resp.Request.URL, body)
	}
}

func TestServeRefusesAnIssuerWithoutWhatSignInNeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.WriteFile(keys, []byte("acme "+auth.HashKey("key-a")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"no client", nil, []string{"--api-keys-file", keys}, "ASKONCE_OIDC_CLIENT_ID"},
		{"no keys file", []string{"ASKONCE_OIDC_CLIENT_ID=a", "ASKONCE_OIDC_CLIENT_SECRET=b"}, nil, "signin"},
		{"no signin lines", []string{"ASKONCE_OIDC_CLIENT_ID=a", "ASKONCE_OIDC_CLIENT_SECRET=b"}, []string{"--api-keys-file", keys}, "no '<tenant> signin"},
		{"not a URL", []string{"ASKONCE_OIDC_CLIENT_ID=a", "ASKONCE_OIDC_CLIENT_SECRET=b"}, []string{"--api-keys-file", keys, "--oidc-issuer", "accounts.example.com"}, "issuer URL"},
	} {
		args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, c.name+".db")}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--oidc-issuer") {
			args = append(args, "--oidc-issuer", "https://accounts.example.com")
		}
		_, stderr, code := runCLI(t, "", c.env, args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant it to say %q", c.name, code, stderr, c.want)
		}
	}
}

// With the provider down at start, serve starts, says so in its log, and
// API keys work; the inbox's sign-in says it is unavailable.
func TestServeWithTheProviderDownServesAPIKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys")
	if err := os.WriteFile(keys, []byte("acme "+auth.HashKey("key-a")+"\nacme signin domain=acme.test\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := start(t, []string{"ASKONCE_OIDC_CLIENT_ID=a", "ASKONCE_OIDC_CLIENT_SECRET=b"},
		"--db", filepath.Join(dir, "a.db"), "--api-keys-file", keys, "--oidc-issuer", "http://"+closedPort(t)+"/oidc")
	if r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"}, "Authorization", "Bearer key-a"); r.status != 201 {
		t.Fatalf("POST /jobs with a key while the provider is down: %d %s", r.status, r.raw)
	}
	within(t, 20*time.Second, "the log line saying the provider did not answer", func() bool {
		return strings.Contains(in.logs.String(), "the OpenID provider did not answer its discovery")
	})
	resp, err := http.Get(in.base + "/ui/login")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "Sign-in is unavailable") {
		t.Errorf("/ui/login with the provider down: %d\n%s", resp.StatusCode, body)
	}
}
