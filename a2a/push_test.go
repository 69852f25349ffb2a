package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/dispatch"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/webhook"
)

// Push notifications, end to end: the SDK's client stores configs, the
// store queues a River job per config as the task changes, the
// dispatcher POSTs the task to a real receiver.

const pushSecret = "whsec_c2VjcmV0LW9mLXRoZS1wdXNoLXRlc3Q="

func TestMain(m *testing.M) { pgtest.Main(m) }

// startDispatcher runs a dispatcher with pusher on st (whose database
// queue sets), joined by hook.
func startDispatcher(t *testing.T, queue func(*dispatch.Config), st askonce.Store, hook *dispatch.Hook, pusher *a2a.Pusher) {
	t.Helper()
	ctx := context.Background()
	cfg := dispatch.Config{
		Store: st, Channels: []askonce.Channel{pusher},
		MaxAttempts: 5, Backoff: func(int) time.Duration { return 10 * time.Millisecond },
		PollInterval: 20 * time.Millisecond, JobTimeout: 20 * time.Second, Logger: slog.New(slog.DiscardHandler),
	}
	queue(&cfg)
	d, err := dispatch.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hook.Set(d)
	if err := d.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := d.Stop(sctx); err != nil {
			t.Errorf("stop the dispatcher: %v", err)
		}
	})
}

// pushed is one POST the receiver got.
type pushed struct {
	path   string
	header http.Header
	body   []byte
	task   *sdk.Task
}

// receiver records the POSTs it gets.
type receiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []pushed
	new chan struct{}
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{new: make(chan struct{}, 100)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		defer func() {
			// The first POST to /flaky fails.
			if req.URL.Path == "/flaky" && len(r.wait(t, "/flaky", 0)) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		}()
		p := pushed{path: req.URL.Path, header: req.Header.Clone(), body: body}
		var sr sdk.StreamResponse
		if err := json.Unmarshal(body, &sr); err == nil {
			p.task, _ = sr.Event.(*sdk.Task)
		}
		r.mu.Lock()
		r.got = append(r.got, p)
		r.mu.Unlock()
		r.new <- struct{}{}
	}))
	t.Cleanup(r.Close)
	return r
}

// wait returns the POSTs to path once there are n of them.
func (r *receiver) wait(t *testing.T, path string, n int) []pushed {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		r.mu.Lock()
		var out []pushed
		for _, p := range r.got {
			if p.path == path {
				out = append(out, p)
			}
		}
		r.mu.Unlock()
		if len(out) >= n {
			return out
		}
		select {
		case <-r.new:
		case <-deadline:
			t.Fatalf("%d POSTs to %s, want %d", len(out), path, n)
		}
	}
}

// waitState returns the first POST to path of a task in state.
func (r *receiver) waitState(t *testing.T, path string, state sdk.TaskState) pushed {
	t.Helper()
	for n := 1; ; n++ {
		got := r.wait(t, path, n)
		if p := got[n-1]; p.task != nil && p.task.Status.State == state {
			return p
		}
	}
}

// checkPush checks that p is the task id in state, with the config's
// token, signed as builder webhooks are.
func checkPush(t *testing.T, p pushed, id sdk.TaskID, state sdk.TaskState, token string) {
	t.Helper()
	if p.task == nil || p.task.ID != id || p.task.Status.State != state {
		t.Fatalf("POST %s: %s; want task %s %s", p.path, p.body, id, state)
	}
	if got := p.header.Get(a2a.TokenHeader); got != token {
		t.Errorf("%s = %q, want %q", a2a.TokenHeader, got, token)
	}
	if err := webhook.Verify(pushSecret, p.header, p.body, 0); err != nil {
		t.Errorf("signature of the %s POST: %v", state, err)
	}
}

// waitEvent returns the job's first event of type typ whose data has
// every one of parts.
func waitEvent(t *testing.T, e *env, tenant, id string, typ askonce.EventType, parts ...string) askonce.Event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs, err := e.st.Events(context.Background(), askonce.EventQuery{TenantID: tenant, JobID: id})
		if err != nil {
			t.Fatal(err)
		}
	next:
		for _, ev := range evs {
			if ev.Type != typ {
				continue
			}
			for _, p := range parts {
				if !strings.Contains(string(ev.Data), p) {
					continue next
				}
			}
			return ev
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event with %q among %+v", typ, parts, evs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitRiverJob waits until the River job of kind about the job id is in
// state.
func waitRiverJob(t *testing.T, e *env, kind, id, state string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		err := e.sqlite.WriteDB().QueryRow(`SELECT count(*) FROM river_job WHERE kind = ? AND state = ? AND args ->> '$.jobId' = ?`,
			kind, state, id).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			rows, _ := e.sqlite.WriteDB().Query(`SELECT kind, state, json(args) FROM river_job`)
			for rows != nil && rows.Next() {
				var k, st, a string
				rows.Scan(&k, &st, &a)
				t.Logf("river job %s %s %s", k, st, a)
			}
			t.Fatalf("no %s River job of %s in state %s", kind, id, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// askWithPush starts a push env, its receiver and a task that asks,
// whose message stores the config id (URL the receiver's /id) with
// token.
func askWithPush(t *testing.T, o envOptions, id, token string) (*env, *receiver, *a2aclient.Client, *sdk.Task) {
	t.Helper()
	o.push = &a2a.PusherConfig{Secret: pushSecret, AllowPrivate: true}
	e := newEnvOf(t, o)
	recv := newReceiver(t)
	c := e.client(keyA)
	req := userText("", "", "hot frozen cheese")
	req.Config = &sdk.SendMessageConfig{PushConfig: &sdk.PushConfig{ID: id, URL: recv.URL + "/" + id, Token: token}}
	return e, recv, c, send(t, c, req)
}

func TestPushNotifications(t *testing.T) {
	t.Parallel()
	t.Run("InputRequiredThenCompletedSignedWithTheToken", func(t *testing.T) {
		t.Parallel()
		e, recv, c, task := askWithPush(t, envOptions{}, "a", "token-a")
		if task.Status.State != sdk.TaskStateInputRequired {
			t.Fatalf("task %s, want input-required", task.Status.State)
		}
		checkPush(t, recv.wait(t, "/a", 1)[0], task.ID, sdk.TaskStateInputRequired, "token-a")

		// A second config, then deleted: no POST is queued for it.
		if _, err := c.CreateTaskPushConfig(context.Background(), &sdk.PushConfig{TaskID: task.ID, ID: "b", URL: recv.URL + "/b"}); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteTaskPushConfig(context.Background(), &sdk.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "b"}); err != nil {
			t.Fatal(err)
		}
		done := send(t, c, userText(task.ContextID, task.ID, "hot"))
		if done.Status.State != sdk.TaskStateCompleted {
			t.Fatalf("answered task %s, want completed", done.Status.State)
		}
		got := recv.wait(t, "/a", 2)
		checkPush(t, got[1], task.ID, sdk.TaskStateCompleted, "token-a")
		if len(got[1].task.Artifacts) != 1 || got[1].task.Artifacts[0].ID != a2a.PlanArtifactID {
			t.Errorf("completed task's artifacts %v; want the plan", got[1].task.Artifacts)
		}
		if got[0].header.Get(webhook.HeaderID) == got[1].header.Get(webhook.HeaderID) {
			t.Errorf("both POSTs have webhook-id %q", got[0].header.Get(webhook.HeaderID))
		}
		// The end's POSTs are one River job: once it completed, "b"
		// would have had its POST.
		waitRiverJob(t, e, "askonce_a2a-push_settled", string(task.ID), "completed")
		if got := recv.wait(t, "/b", 0); len(got) != 0 {
			t.Errorf("the deleted config got %d POSTs", len(got))
		}
		evs, err := e.st.Events(context.Background(), askonce.EventQuery{TenantID: "tenant-a", JobID: string(task.ID)})
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if strings.Contains(string(ev.Data), `"to":"b"`) {
				t.Errorf("event %s %s of the deleted config", ev.Type, ev.Data)
			}
		}
	})
	t.Run("OnPostgreSQLToo", func(t *testing.T) {
		t.Parallel()
		_, recv, c, task := askWithPush(t, envOptions{postgres: true}, "pg", "token-pg")
		checkPush(t, recv.wait(t, "/pg", 1)[0], task.ID, sdk.TaskStateInputRequired, "token-pg")
		send(t, c, userText(task.ContextID, task.ID, "hot"))
		checkPush(t, recv.wait(t, "/pg", 2)[1], task.ID, sdk.TaskStateCompleted, "token-pg")
	})
	t.Run("AFailedPOSTIsRetriedAndTheOthersAreNotSentTwice", func(t *testing.T) {
		t.Parallel()
		e, recv, c, task := askWithPush(t, envOptions{}, "flaky", "f")
		if _, err := c.CreateTaskPushConfig(context.Background(), &sdk.PushConfig{TaskID: task.ID, ID: "ok", URL: recv.URL + "/ok", Token: "o"}); err != nil {
			t.Fatal(err)
		}
		recv.wait(t, "/flaky", 2) // input-required: failed, then again
		send(t, c, userText(task.ContextID, task.ID, "hot"))
		flaky := recv.wait(t, "/flaky", 3) // and the end
		waitRiverJob(t, e, "askonce_a2a-push_settled", string(task.ID), "completed")
		checkPush(t, flaky[1], task.ID, sdk.TaskStateInputRequired, "f")
		if flaky[0].header.Get(webhook.HeaderID) != flaky[1].header.Get(webhook.HeaderID) || string(flaky[0].body) != string(flaky[1].body) {
			t.Errorf("the retry's webhook-id or body differ from the first try's")
		}
		checkPush(t, flaky[2], task.ID, sdk.TaskStateCompleted, "f")
		// "ok", stored after the ask, had the input-required task from
		// one of its tries, and each POST once.
		ok := recv.wait(t, "/ok", 2)
		if len(ok) != 2 {
			t.Fatalf("%d POSTs to the config that never failed; want input-required and the end, once each", len(ok))
		}
		checkPush(t, ok[0], task.ID, sdk.TaskStateInputRequired, "o")
		checkPush(t, ok[1], task.ID, sdk.TaskStateCompleted, "o")
		waitEvent(t, e, "tenant-a", string(task.ID), askonce.EventNotifyFailed, `"to":"flaky"`, `"kind":"input-required"`, "503")
	})
	t.Run("ConfigsAreTheTenantsOwn", func(t *testing.T) {
		t.Parallel()
		e := newEnvOf(t, envOptions{push: &a2a.PusherConfig{AllowPrivate: true}})
		a, b := e.client(keyA), e.client(keyB)
		ctx := context.Background()
		if card, err := cardResolver.Resolve(ctx, e.base); err != nil || !card.Capabilities.PushNotifications {
			t.Fatalf("card with a pusher: pushNotifications false (%v); want true", err)
		}
		task := send(t, a, userText("", "", "hot frozen cheese"))
		created, err := a.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, URL: "http://127.0.0.1:9/hook", Token: "t"})
		if err != nil || created.ID == "" || created.URL != "http://127.0.0.1:9/hook" {
			t.Fatalf("create = %+v, %v; want the config with an id", created, err)
		}
		got, err := a.GetTaskPushConfig(ctx, &sdk.GetTaskPushConfigRequest{TaskID: task.ID, ID: created.ID})
		if err != nil || got.ID != created.ID || got.Token != "t" {
			t.Fatalf("get = %+v, %v; want %+v", got, err, created)
		}
		list, err := a.ListTaskPushConfigs(ctx, &sdk.ListTaskPushConfigRequest{TaskID: task.ID})
		if err != nil || len(list) != 1 || list[0].ID != created.ID {
			t.Fatalf("list = %+v, %v; want the one config", list, err)
		}
		if _, err := b.GetTaskPushConfig(ctx, &sdk.GetTaskPushConfigRequest{TaskID: task.ID, ID: created.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
			t.Errorf("another tenant's get: %v; want task not found", err)
		}
		if _, err := b.ListTaskPushConfigs(ctx, &sdk.ListTaskPushConfigRequest{TaskID: task.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
			t.Errorf("another tenant's list: %v; want task not found", err)
		}
		if err := b.DeleteTaskPushConfig(ctx, &sdk.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: created.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
			t.Errorf("another tenant's delete: %v; want not found", err)
		}
		if _, err := b.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, URL: "http://127.0.0.1:9/x"}); !errors.Is(err, sdk.ErrTaskNotFound) {
			t.Errorf("another tenant's create: %v; want task not found", err)
		}
		if err := a.DeleteTaskPushConfig(ctx, &sdk.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "no-such-config"}); !errors.Is(err, sdk.ErrTaskNotFound) {
			t.Errorf("delete of an unknown config: %v; want not found", err)
		}
		if _, err := a.GetTaskPushConfig(ctx, &sdk.GetTaskPushConfigRequest{TaskID: task.ID, ID: created.ID}); err != nil {
			t.Errorf("the owner's config after the other tenant's delete: %v", err)
		}
		for i := 1; i < a2a.MaxPushConfigs; i++ {
			if _, err := a.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, ID: fmt.Sprint(i), URL: "http://127.0.0.1:9/hook"}); err != nil {
				t.Fatalf("config %d of %d: %v", i+1, a2a.MaxPushConfigs, err)
			}
		}
		if _, err := a.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, URL: "http://127.0.0.1:9/hook"}); !errors.Is(err, sdk.ErrInvalidParams) {
			t.Errorf("one config more than %d: %v; want invalid params", a2a.MaxPushConfigs, err)
		}
		if _, err := a.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, ID: "1", URL: "http://127.0.0.1:9/other"}); err != nil {
			t.Errorf("replacing a config of a task at the limit: %v", err)
		}
	})
	t.Run("GuardRefusesPrivateAddressesAndOtherSchemes", func(t *testing.T) {
		t.Parallel()
		e := newEnvOf(t, envOptions{push: &a2a.PusherConfig{}})
		recv := newReceiver(t)
		c := e.client(keyA)
		ctx := context.Background()
		task := send(t, c, userText("", "", "hot frozen cheese"))
		port := recv.URL[strings.LastIndex(recv.URL, ":"):]
		for _, u := range []string{recv.URL + "/a", "http://[::1]:9/", "http://169.254.169.254/latest", "ftp://example.com/x", "file:///etc/passwd", "example.com/x",
			// Every form of an IP literal is the address it means, and a
			// name under localhost is loopback: refused here, with no
			// DNS lookup.
			"http://127.1" + port + "/a", "http://0x7f000001" + port + "/a", "http://2130706433" + port + "/a", "http://0177.0.0.1" + port + "/a",
			"http://127.0.0.1." + port + "/a", "http://localhost." + port + "/a", "http://sub.localhost" + port + "/a", "http://LOCALHOST/a",
			"http://[::ffff:0.0.0.0]/", "http://[::ffff:127.0.0.1]/", "http://0/", "http://0x0a.1/", "http://[fe80::1%25eth0]/"} {
			if _, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, URL: u}); !errors.Is(err, sdk.ErrInvalidParams) {
				t.Errorf("create with url %q: %v; want invalid params", u, err)
			}
		}
		// A public address in a shorthand is stored, and sent to, as
		// the address it means.
		if got, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, ID: "short", URL: "http://0x5db8d822:8080/hook?x=1"}); err != nil || got.URL != "http://93.184.216.34:8080/hook?x=1" {
			t.Errorf("create with a public shorthand: %+v, %v; want the URL of 93.184.216.34", got, err)
		}
		// A name that resolves to loopback (here a config stored
		// before names under localhost were refused) is refused by the
		// dialer.
		local := strings.Replace(recv.URL, "127.0.0.1", "localhost", 1) + "/a"
		asked := send(t, c, userText("", "", "hot frozen cheese"))
		if err := e.eng.PutPushConfig(ctx, askonce.PushConfig{TenantID: "tenant-a", JobID: string(asked.ID), ID: "local", URL: local}); err != nil {
			t.Fatal(err)
		}
		send(t, c, userText(asked.ContextID, asked.ID, "hot"))
		ev := waitEvent(t, e, "tenant-a", string(asked.ID), askonce.EventNotifyFailed, `"to":"local"`)
		if !strings.Contains(string(ev.Data), "not allowed") {
			t.Errorf("notify_failed %s; want the guard's refusal", ev.Data)
		}
		// A refused address is not tried again: the send completes.
		waitRiverJob(t, e, "askonce_a2a-push_settled", string(asked.ID), "completed")
		evs, err := e.st.Events(ctx, askonce.EventQuery{TenantID: "tenant-a", JobID: string(asked.ID)})
		if err != nil {
			t.Fatal(err)
		}
		refused := 0
		for _, ev := range evs {
			// (Its input-required POST may have been refused too, if it
			// went out after the config was stored.)
			if ev.Type == askonce.EventNotifyFailed && strings.Contains(string(ev.Data), `"to":"local"`) && strings.Contains(string(ev.Data), `"kind":"settled"`) {
				refused++
			}
		}
		if refused != 1 {
			t.Errorf("%d notify_failed events of the refused config's settled POST; want 1 (not retried)", refused)
		}
		var attempts int
		if err := e.sqlite.WriteDB().QueryRow(`SELECT attempt FROM river_job WHERE kind = 'askonce_a2a-push_settled' AND args ->> '$.jobId' = ?`, string(asked.ID)).Scan(&attempts); err != nil || attempts != 1 {
			t.Errorf("the settled push took %d tries (%v); want 1: a refused address fails nothing to retry", attempts, err)
		}
		recv.mu.Lock()
		n := len(recv.got)
		recv.mu.Unlock()
		if n != 0 {
			t.Errorf("the receiver got %d POSTs through the guard", n)
		}
	})
	t.Run("A2A03ClientsKeepConfigsToo", func(t *testing.T) {
		t.Parallel()
		e := newEnvOf(t, envOptions{push: &a2a.PusherConfig{Secret: pushSecret, AllowPrivate: true}})
		recv := newReceiver(t)
		ctx := context.Background()
		for _, binding := range []sdk.TransportProtocol{sdk.TransportProtocolJSONRPC, sdk.TransportProtocolHTTPJSON} {
			c := e.clientOver(keyA, a2av0.Version, binding)
			task := send(t, c, userText("", "", "hot frozen cheese"))
			path := "/" + string(binding)
			if _, err := c.CreateTaskPushConfig(ctx, &sdk.PushConfig{TaskID: task.ID, ID: "old", URL: recv.URL + path, Token: "t03"}); err != nil {
				t.Fatalf("0.3 %s create: %v", binding, err)
			}
			got, err := c.GetTaskPushConfig(ctx, &sdk.GetTaskPushConfigRequest{TaskID: task.ID, ID: "old"})
			if err != nil || got.URL != recv.URL+path {
				t.Fatalf("0.3 %s get = %+v, %v", binding, got, err)
			}
			if done := send(t, c, userText(task.ContextID, task.ID, "hot")); done.Status.State != sdk.TaskStateCompleted {
				t.Fatalf("0.3 %s answered task %s", binding, done.Status.State)
			}
			// The config, stored after the ask, may have the
			// input-required task first, if its POST went out after.
			checkPush(t, recv.waitState(t, path, sdk.TaskStateCompleted), task.ID, sdk.TaskStateCompleted, "t03")
			if err := c.DeleteTaskPushConfig(ctx, &sdk.DeleteTaskPushConfigRequest{TaskID: task.ID, ID: "old"}); err != nil {
				t.Fatalf("0.3 %s delete: %v", binding, err)
			}
		}
	})
	t.Run("OtherSchemesAreRefusedEvenWhenPrivateAddressesAreAllowed", func(t *testing.T) {
		t.Parallel()
		e := newEnvOf(t, envOptions{push: &a2a.PusherConfig{AllowPrivate: true}})
		c := e.client(keyA)
		task := send(t, c, userText("", "", "hot frozen cheese"))
		for _, u := range []string{"ftp://127.0.0.1/x", "javascript:alert(1)", "http://user:pw@127.0.0.1/"} {
			if _, err := c.CreateTaskPushConfig(context.Background(), &sdk.PushConfig{TaskID: task.ID, URL: u}); !errors.Is(err, sdk.ErrInvalidParams) {
				t.Errorf("create with url %q: %v; want invalid params", u, err)
			}
		}
	})
	t.Run("WithoutAPusherTheCardAndMethodsSaySo", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		card, err := cardResolver.Resolve(context.Background(), e.base)
		if err != nil || card.Capabilities.PushNotifications {
			t.Fatalf("card pushNotifications %v (%v); want false", card.Capabilities.PushNotifications, err)
		}
		c := e.client(keyA)
		task := send(t, c, userText("", "", "hot frozen cheese"))
		if _, err := c.CreateTaskPushConfig(context.Background(), &sdk.PushConfig{TaskID: task.ID, URL: "https://example.com/"}); !errors.Is(err, sdk.ErrPushNotificationNotSupported) {
			t.Errorf("create without a pusher: %v; want push notifications not supported", err)
		}
	})
}
