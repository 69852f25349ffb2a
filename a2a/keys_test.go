package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

// keyedEnv is the endpoint as askonce serve mounts it, with the keys
// file's names and recipients (keys.Caller): key A is "ci-bot", which may
// send to acme.test addresses only; key B is unnamed and unrestricted.
// Wrong keys are limited to 3 per minute per address, and loopback is a
// trusted proxy.
func keyedEnv(t *testing.T, store func(askonce.Store) askonce.Store) (*env, *askonce.Engine) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a2a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rl, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var s askonce.Store = st
	if store != nil {
		s = store(st)
	}
	eng := &askonce.Engine{Store: s, Interpreter: rl, LinkSecret: st.LinkSecret()}
	t.Cleanup(func() { eng.Drain(context.Background()) })
	keys, err := auth.LoadKeys(strings.NewReader("tenant-a " + auth.HashKey(keyA) + " name=ci-bot notify=email:*@acme.test\ntenant-b " + auth.HashKey(keyB) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t}
	srv := httptest.NewUnstartedServer(nil)
	e.base = "http://" + srv.Listener.Addr().String()
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	srv.Config.Handler = server.New(server.Config{
		Engine: eng, Keys: keys, PublicURL: e.base,
		Mount: func(mux *http.ServeMux) {
			a2a.New(a2a.Config{Engine: eng, PublicURL: e.base, Caller: keys.Caller, FailedAuth: 3, TrustedProxies: loopback}).Mount(mux)
		},
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return e, eng
}

func withNotify(p *sdk.SendMessageRequest, notify any) *sdk.SendMessageRequest {
	p.Message.Metadata = map[string]any{a2a.NotifyMetadata: notify}
	return p
}

// A message that starts a task may name its recipients in its metadata,
// as POST /jobs does: they are stored with the job, validated, and
// bounded by the key's notify= (a restricted key cannot reach others over
// A2A); a refused message starts no task.
func TestNotifyMetadataIsStoredAndBoundedByTheKeysRecipients(t *testing.T) {
	t.Parallel()
	e, eng := keyedEnv(t, nil)
	a, b := e.client(keyA), e.client(keyB)
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		notify any
		msg    string
	}{
		{"OutsideTheKeysPatterns", map[string]any{"email": []string{"boss@evil.test"}}, `notify.email[0] "boss@evil.test" is not among the recipients this API key may use`},
		{"Malformed", map[string]any{"slack": map[string]any{"channel": "general"}}, `notify.slack.channel "general" is not a Slack channel id`},
		{"NotRecipients", map[string]any{"sms": "+1555"}, `metadata.notify is not`},
	} {
		_, err := a.SendMessage(ctx, withNotify(userText("", "", "hot frozen cheese"), c.notify))
		if !errors.Is(err, sdk.ErrInvalidParams) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v; want invalid params with %q", c.name, err, c.msg)
		}
	}
	if page, err := eng.List(ctx, "tenant-a", askonce.JobFilter{Limit: 10}); err != nil || len(page.Jobs) != 0 {
		t.Fatalf("refused messages started %v tasks (%v)", page, err)
	}
	task := send(t, a, withNotify(userText("", "", "hot frozen cheese"), map[string]any{"email": []string{"dev@acme.test"}}))
	if j, err := eng.Get(ctx, "tenant-a", string(task.ID)); err != nil || j.Notify == nil || len(j.Notify.Email) != 1 || j.Notify.Email[0] != "dev@acme.test" {
		t.Fatalf("tenant-a's job recipients: %v %+v", err, j)
	}
	task = send(t, b, withNotify(userText("", "", "hot frozen cheese"), map[string]any{"slack": map[string]any{"user": "U0ANYONE12"}}))
	if j, err := eng.Get(ctx, "tenant-b", string(task.ID)); err != nil || j.Notify == nil || j.Notify.Slack.User != "U0ANYONE12" {
		t.Fatalf("tenant-b's job recipients: %v %+v", err, j)
	}
}

// An answer over A2A with a named key records the key's name as
// answeredBy.
func TestNamedKeysAnswerIsRecordedAsAnsweredBy(t *testing.T) {
	t.Parallel()
	e, eng := keyedEnv(t, nil)
	for _, c := range []struct{ key, tenant, want string }{{keyA, "tenant-a", "ci-bot"}, {keyB, "tenant-b", ""}} {
		cl := e.client(c.key)
		task := send(t, cl, userText("", "", "hot frozen cheese"))
		send(t, cl, userText(task.ContextID, task.ID, "hot"))
		j, err := eng.Get(context.Background(), c.tenant, string(task.ID))
		if err != nil || j.AnsweredVia != askonce.ViaA2A || j.AnsweredBy != c.want {
			t.Errorf("%s: %v answeredVia %q answeredBy %q; want a2a, %q", c.tenant, err, j.AnsweredVia, j.AnsweredBy, c.want)
		}
	}
}

// rpc posts one JSON-RPC request to /a2a with key, as the proxy's client
// forwarded.
func rpc(t *testing.T, base, key, forwarded, body string) (*http.Response, map[string]any) {
	t.Helper()
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	if forwarded != "" {
		h.Set("X-Forwarded-For", forwarded)
	}
	return postJSON(t, base+a2a.Path, h, body)
}

const getTask = `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"no-such-task"}}`

// Wrong keys on /a2a count per client address as on the API: over the
// limit its wrong keys get 429 with Retry-After and a JSON-RPC error,
// while a valid key, even one never used from there, is served; behind a
// trusted proxy the forwarded client is the address.
func TestWrongKeysAreThrottledPerAddressAndValidKeysAreServed(t *testing.T) {
	t.Parallel()
	e, _ := keyedEnv(t, nil)
	const client, other = "203.0.113.7", "203.0.113.8"
	if r, body := rpc(t, e.base, keyA, client, getTask); r.StatusCode != http.StatusOK || body["error"] == nil {
		t.Fatalf("valid key: %d %v; want 200 with task not found", r.StatusCode, body)
	}
	for i := range 3 {
		if r, _ := rpc(t, e.base, "guess", client, getTask); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong key %d: %d, want 401", i+1, r.StatusCode)
		}
	}
	r, body := rpc(t, e.base, "guess", client, getTask)
	msg, _ := body["error"].(map[string]any)["message"].(string)
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(msg, "too many wrong API keys") {
		t.Fatalf("fourth wrong key: %d Retry-After %q %v; want 429 with Retry-After and a JSON-RPC error", r.StatusCode, r.Header.Get("Retry-After"), body)
	}
	if r, _ := rpc(t, e.base, keyB, client, getTask); r.StatusCode != http.StatusOK {
		t.Fatalf("a key never used from the throttled address: %d, want 200", r.StatusCode)
	}
	if r, _ := rpc(t, e.base, keyA, client, getTask); r.StatusCode != http.StatusOK {
		t.Fatalf("the key accepted before: %d, want 200", r.StatusCode)
	}
	if r, _ := rpc(t, e.base, "guess", other, getTask); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong key from another client behind the proxy: %d, want 401", r.StatusCode)
	}
}

// outage is a store that cannot be reached while down is set.
type outage struct {
	askonce.Store
	down *atomic.Bool
}

var errOutage = askonce.Unavailable(errors.New("connection refused"))

func (s outage) CreateJob(ctx context.Context, c *askonce.Change) error {
	if s.down.Load() {
		return errOutage
	}
	return s.Store.CreateJob(ctx, c)
}

func (s outage) GetJob(ctx context.Context, tenant, id string) (*askonce.Job, error) {
	if s.down.Load() {
		return nil, errOutage
	}
	return s.Store.GetJob(ctx, tenant, id)
}

// While the store cannot be reached, message/send and tasks/get answer a
// JSON-RPC server error (-32000) that says unavailable and retry, not an
// internal error (-32603).
func TestStoreUnavailableIsARetryableServerErrorNotAnInternalOne(t *testing.T) {
	t.Parallel()
	down := new(atomic.Bool)
	e, _ := keyedEnv(t, func(s askonce.Store) askonce.Store { return outage{s, down} })
	task := send(t, e.client(keyA), userText("", "", "hot frozen cheese"))
	down.Store(true)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"` + string(task.ID) + `"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hot frozen cheese"}]}}}`,
	} {
		_, out := rpc(t, e.base, keyA, "", body)
		rpcErr, _ := out["error"].(map[string]any)
		code, _ := rpcErr["code"].(float64)
		b, _ := json.Marshal(rpcErr)
		if code != -32000 || !strings.Contains(string(b), "unavailable: the database cannot be reached") {
			t.Errorf("%s while the store is down: %s; want -32000 saying unavailable, retry", body[:60], b)
		}
	}
	down.Store(false)
	if _, out := rpc(t, e.base, keyA, "", `{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"id":"`+string(task.ID)+`"}}`); out["result"] == nil {
		t.Fatalf("tasks/get once the store is back: %v", out)
	}
}
