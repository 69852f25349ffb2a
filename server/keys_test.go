package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/server"
)

func TestHashKey_IsSHA256Hex(t *testing.T) {
	t.Parallel()
	if got := server.HashKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf("HashKey(abc) = %s", got)
	}
}

func TestLoadKeys(t *testing.T) {
	t.Parallel()
	k, err := server.LoadKeys(strings.NewReader("# tenant sha256\n\nacme " + server.HashKey("key-a") + "\n  globex\t" + strings.ToUpper(server.HashKey("key-b")) + "  \nacme " + server.HashKey("key-a2") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"key-a": "acme", "key-a2": "acme", "key-b": "globex"} {
		if got, ok := k.Tenant(key); !ok || got != want {
			t.Errorf("Tenant(%s) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := k.Tenant("key-c"); ok || k.Len() != 3 {
		t.Errorf("unknown key accepted, or Len %d", k.Len())
	}
	for _, c := range []struct{ name, file, msg string }{
		{"Empty", "# nothing\n", "no keys"},
		{"OneField", "acme\n", "line 1: want '<tenant> <sha256-hex> [name=...] [notify=...]'"},
		{"FieldNeitherNameNorNotify", "acme " + server.HashKey("x") + " extra\n", `field "extra": want name=<key name> or notify=`},
		{"UnknownFourthField", "acme " + server.HashKey("x") + " notify=none extra\n", `field "extra"`},
		{"FiveFields", "acme " + server.HashKey("x") + " name=a notify=none extra\n", "5 fields"},
		{"NameTwice", "acme " + server.HashKey("x") + " name=a name=b\n", "name= is given twice"},
		{"NotifyTwice", "acme " + server.HashKey("x") + " notify=none notify=email:*\n", "notify= is given twice"},
		{"BadName", "acme " + server.HashKey("x") + " name=ci/bot\n", `key name "ci/bot"`},
		{"EmptyName", "acme " + server.HashKey("x") + " name=\n", `key name ""`},
		{"UnknownNotifyKind", "acme " + server.HashKey("x") + " notify=sms:*\n", `notify pattern "sms:*"`},
		{"NotHex", "acme xyz\n", "not a SHA-256"},
		{"ShortHash", "acme abcd\n", "not a SHA-256"},
		{"BadTenant", "ac/me " + server.HashKey("x") + "\n", `tenant "ac/me"`},
		{"DuplicateKey", "a " + server.HashKey("x") + "\nb " + server.HashKey("x") + "\n", "line 2: the same key is already on line 1"},
	} {
		if _, err := server.LoadKeys(strings.NewReader(c.file)); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v; want one containing %q", c.name, err, c.msg)
		}
	}
}

// A keys file line may name its key, before or after notify=; old lines
// (tenant and hash, with or without notify=) stay valid and unnamed.
func TestLoadKeys_NameFieldNamesTheKeyAndOldLinesStayValid(t *testing.T) {
	t.Parallel()
	k, err := server.LoadKeys(strings.NewReader("acme " + server.HashKey("k1") + " name=ci-bot\n" +
		"acme " + server.HashKey("k2") + " notify=email:*@acme.test name=alice.laptop\n" +
		"acme " + server.HashKey("k3") + " name=ops notify=none\n" +
		"acme " + server.HashKey("k4") + " notify=none\n" +
		"globex " + server.HashKey("k5") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"k1": "ci-bot", "k2": "alice.laptop", "k3": "ops", "k4": "", "k5": ""} {
		c, ok := k.Caller(key)
		if !ok || c.Name != want {
			t.Errorf("Caller(%s) = %+v, %v; want name %q", key, c, ok, want)
		}
	}
	// The recipients restriction comes along with the name.
	c, _ := k.Caller("k2")
	if err := c.AllowRecipients(&askonce.Recipients{Email: []string{"x@evil.test"}}); err == nil {
		t.Error("k2 may name x@evil.test, but its notify= allows *@acme.test only")
	}
	if err := c.AllowRecipients(&askonce.Recipients{Email: []string{"x@acme.test"}}); err != nil {
		t.Errorf("k2 may not name x@acme.test: %v", err)
	}
	if c, _ := k.Caller("k5"); c.AllowRecipients(&askonce.Recipients{Email: []string{"x@evil.test"}}) != nil {
		t.Error("a key without notify= is restricted")
	}
}

// With API keys every request is scoped to its tenant: another tenant's
// job is 404, and no key is 401.
func TestAPIKeys_TenantIsolation(t *testing.T) {
	t.Parallel()
	keys, err := server.LoadKeys(strings.NewReader("acme " + server.HashKey("key-a") + "\nglobex " + server.HashKey("key-b") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{keys: keys})
	A := []string{"Authorization", "Bearer key-a"}
	B := []string{"Authorization", "Bearer key-b"}

	for _, c := range []struct {
		name   string
		header []string
		msg    string
	}{
		{"NoKey", nil, "an API key is required"},
		{"WrongKey", []string{"Authorization", "Bearer nope"}, "not valid"},
		{"BasicAuth", []string{"Authorization", "Basic a2V5LWE6"}, "Bearer"},
		{"WrongXAPIKey", []string{"X-API-Key", "nope"}, "not valid"},
	} {
		r := e.do("POST", "/jobs", map[string]any{"goal": hotFrozen}, c.header...)
		wantError(t, r, http.StatusUnauthorized, "unauthorized", c.msg)
		if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q", c.name, r.header.Get("WWW-Authenticate"))
		}
	}

	id := str(e.create(map[string]any{"goal": hotFrozen, "sessionId": "shared"}, A...), "jobId")
	for _, c := range []struct{ method, path string }{
		{"GET", "/jobs/" + id},
		{"POST", "/jobs/" + id + "/clarification"},
		{"POST", "/jobs/" + id + "/cancel"},
		{"POST", "/jobs/" + id + "/decline"},
		{"GET", "/jobs/" + id + "/events"},
	} {
		var body any
		if c.method == "POST" {
			body = map[string]any{"answer": "hot"}
			if !strings.HasSuffix(c.path, "clarification") {
				body = `{}`
			}
		}
		wantError(t, e.do(c.method, c.path, body, B...), http.StatusNotFound, "not_found", "")
	}
	if js, _ := e.do("GET", "/jobs", nil, B...).body["jobs"].([]any); len(js) != 0 {
		t.Fatalf("tenant B lists %d of A's jobs", len(js))
	}
	// X-API-Key works as well as Bearer; A still sees its pending job.
	if r := e.do("GET", "/jobs/"+id, nil, "X-API-Key", "key-a"); r.status != http.StatusOK || str(r.body, "status") != "pending" {
		t.Fatalf("tenant A reads its job: %d %s", r.status, r.raw)
	}
	// Sessions are per tenant too.
	if r := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"}, A...); r.status != http.StatusOK {
		t.Fatalf("A answers: %d %s", r.status, r.raw)
	}
	if es, _ := e.do("GET", "/sessions/shared/history", nil, A...).body["entries"].([]any); len(es) != 1 {
		t.Fatalf("A's history has %d entries", len(es))
	}
	if es, _ := e.do("GET", "/sessions/shared/history", nil, B...).body["entries"].([]any); len(es) != 0 {
		t.Fatalf("B sees %d of A's history entries", len(es))
	}
	// Idempotency keys are per tenant: the same key in B runs B's request.
	a := e.do("POST", "/jobs", map[string]any{"goal": readme}, append(A, "Idempotency-Key", "same")...)
	b := e.do("POST", "/jobs", map[string]any{"goal": readme}, append(B, "Idempotency-Key", "same")...)
	if a.status != 201 || b.status != 201 || b.header.Get("Idempotent-Replayed") != "" || str(a.body, "jobId") == str(b.body, "jobId") {
		t.Fatalf("idempotency across tenants: %d %s / %d %s", a.status, a.raw, b.status, b.raw)
	}
	// Operations routes are public.
	for _, p := range []string{"/healthz", "/openapi.json", "/metrics"} {
		if r := e.do("GET", p, nil); r.status != http.StatusOK {
			t.Errorf("%s without a key: %d", p, r.status)
		}
	}
}

// An answer (or decline) given over HTTP with a named key records the
// key's name as answeredBy; an unnamed key's answer records none.
func TestAPIKeys_NamedKeysAnswerIsRecordedAsAnsweredBy(t *testing.T) {
	t.Parallel()
	keys, err := server.LoadKeys(strings.NewReader("acme " + server.HashKey("key-named") + " name=ci-bot\nacme " + server.HashKey("key-plain") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{keys: keys})
	for _, c := range []struct{ key, path, want string }{
		{"key-named", "clarification", "ci-bot"},
		{"key-named", "decline", "ci-bot"},
		{"key-plain", "clarification", ""},
	} {
		auth := []string{"Authorization", "Bearer " + c.key}
		id := str(e.create(map[string]any{"goal": hotFrozen}, auth...), "jobId")
		var body any = map[string]any{"answer": "hot"}
		if c.path == "decline" {
			body = `{}`
		}
		r := e.do("POST", "/jobs/"+id+"/"+c.path, body, auth...)
		if r.status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", c.key, c.path, r.status, r.raw)
		}
		got := e.do("GET", "/jobs/"+id, nil, auth...)
		if str(got.body, "answeredVia") != "http" || str(got.body, "answeredBy") != c.want {
			t.Errorf("%s %s: answeredVia %q answeredBy %q; want http, %q", c.key, c.path, str(got.body, "answeredVia"), str(got.body, "answeredBy"), c.want)
		}
	}
}

// KeyBits bounds what a key can carry by its alphabet: MinKeyBits takes 32
// hex digits or 22 characters of base64, and NewKey carries 256.
func TestKeyBitsIsLengthTimesTheBitsOfItsAlphabet(t *testing.T) {
	for _, c := range []struct {
		key   string
		short bool
	}{
		{strings.Repeat("a", 31), true}, // hex: 124 bits
		{strings.Repeat("a", 32), false},
		{strings.Repeat("7", 38), true}, // digits: 126 bits
		{"Zm9vYmFyYmF6cXV4cXV1e", true}, // 21 letters and digits: 125 bits
		{"Zm9v-mFyYmF6cXV4cXV1eA", false},
		{"s3cret pass", true}, // printable ASCII: 72 bits
		{server.NewKey(), false},
	} {
		if got := server.KeyBits(c.key) < server.MinKeyBits; got != c.short {
			t.Errorf("KeyBits(%q) = %.1f: short %v, want %v", c.key, server.KeyBits(c.key), got, c.short)
		}
	}
	if a, b := server.NewKey(), server.NewKey(); a == b || len(a) != 43 {
		t.Errorf("NewKey: %q and %q; want two different 43-character keys", a, b)
	}
}
