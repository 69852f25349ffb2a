package a2a_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/askonce/askonce"
	"github.com/askonce/askonce/a2a"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/dispatch"
	"github.com/askonce/askonce/postgres"
	"github.com/askonce/askonce/postgres/pgtest"
	"github.com/askonce/askonce/rules"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

// The official Go SDK's client against askonce's HTTP server (real
// listener, real SQLite, the rules interpreter), with the endpoint mounted
// as askonce serve mounts it, behind two API keys.

const (
	keyA = "key-of-tenant-a"
	keyB = "key-of-tenant-b"
	// askTwice is a goal the test interpreter asks about every time it
	// may: only the hard cap stops it.
	askTwice = "ask twice about the colour"
)

// interpreter is the rules interpreter, except for askTwice; a goal in
// gates is planned only once its channel is closed.
type interpreter struct {
	rules askonce.Interpreter
	gates map[string]chan struct{}
}

func (in interpreter) Interpret(ctx context.Context, req *askonce.Request) (*askonce.Response, error) {
	if gate, ok := in.gates[req.Goal]; ok {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if req.Goal == askFields {
		return fieldsReply(req), nil
	}
	if req.Goal == askTyped {
		return typedReply(req), nil
	}
	if req.Goal != askTwice {
		return in.rules.Interpret(ctx, req)
	}
	if req.Directive != "" {
		return &askonce.Response{Raw: []byte(`{"title":"Colour","plan":{"tasks":[{"id":"t1","title":"Paint it","instruction":"use the default colour","dependsOn":[]}],"assumptions":["colour: the default"]}}`)}, nil
	}
	return &askonce.Response{Raw: []byte(`{"question":{"type":"SELECT_ONE","text":"Which colour?","options":["red","blue"]}}`)}, nil
}

type env struct {
	t      *testing.T
	base   string
	st     askonce.Store
	sqlite *sqlite.Store // st, when it is SQLite
	eng    *askonce.Engine
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, nil, 10*time.Millisecond)
}

// newEnvWith is newEnv with gated goals (see gated) and the streams'
// poll interval.
func newEnvWith(t *testing.T, gates map[string]chan struct{}, poll time.Duration) *env {
	t.Helper()
	return newEnvOf(t, envOptions{gates: gates, poll: poll})
}

// envOptions is what an env is made of beyond its defaults.
type envOptions struct {
	gates map[string]chan struct{}
	poll  time.Duration
	// push, when set, runs a dispatcher with a Pusher made of it.
	push *a2a.PusherConfig
	// postgres stores in a new PostgreSQL schema instead of SQLite.
	postgres bool
}

// linkedStore is a store that keeps the answer links' secret.
type linkedStore interface {
	askonce.Store
	LinkSecret() []byte
}

// openStore opens o's store, its question changes queued through hook
// when o has a Pusher; queue sets a dispatcher's database to it.
func openStore(t *testing.T, o envOptions, hook *dispatch.Hook) (linkedStore, func(*dispatch.Config)) {
	t.Helper()
	ctx := context.Background()
	if o.postgres {
		var opts postgres.Options
		if o.push != nil {
			opts.OnNotify = hook.NotifyPgx
		}
		pg, err := opts.Open(ctx, pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pg.Close() })
		return pg, func(c *dispatch.Config) { c.Pool = pg.Pool() }
	}
	var opts sqlite.Options
	if o.push != nil {
		opts.OnNotify = hook.Notify
	}
	st, err := opts.Open(ctx, filepath.Join(t.TempDir(), "a2a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, func(c *dispatch.Config) { c.DB = st.WriteDB() }
}

func newEnvOf(t *testing.T, o envOptions) *env {
	t.Helper()
	var hook dispatch.Hook
	st, queue := openStore(t, o, &hook)
	rl, err := rules.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := &askonce.Engine{Store: st, Interpreter: interpreter{rl, o.gates}, LinkSecret: st.LinkSecret()}
	t.Cleanup(func() { eng.Drain(context.Background()) })
	keys, err := auth.LoadKeys(strings.NewReader("tenant-a " + auth.HashKey(keyA) + "\ntenant-b " + auth.HashKey(keyB) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, st: st, eng: eng}
	e.sqlite, _ = st.(*sqlite.Store)
	srv := httptest.NewUnstartedServer(nil)
	e.base = "http://" + srv.Listener.Addr().String()
	ac := a2a.Config{Engine: eng, PublicURL: e.base, Tenant: keys.Tenant, PollInterval: o.poll}
	if o.push != nil {
		pc := *o.push
		pc.Engine, pc.PublicURL = eng, e.base
		ac.Pusher = a2a.NewPusher(pc)
		startDispatcher(t, queue, st, &hook, ac.Pusher)
	}
	srv.Config.Handler = server.New(server.Config{
		Engine: eng, Keys: keys, PublicURL: e.base,
		Mount: func(mux *http.ServeMux) { a2a.New(ac).Mount(mux) },
	})
	srv.Start()
	t.Cleanup(srv.Close)
	return e
}

// keyed sends an API key with every call.
type keyed struct {
	a2aclient.PassthroughInterceptor
	key string
}

func (k keyed) Before(ctx context.Context, req *a2aclient.Request) (context.Context, any, error) {
	req.ServiceParams.Append("Authorization", "Bearer "+k.key)
	return ctx, nil, nil
}

// cardResolver reads the card, which carries 0.3's fields (its security
// schemes among them) beside 1.0's, as a client of both versions must.
var cardResolver = &agentcard.Resolver{CardParser: a2av0.NewAgentCardParser()}

// client resolves the card and connects with key ("" for none), over
// A2A 1.0's JSON-RPC binding.
func (e *env) client(key string) *a2aclient.Client {
	e.t.Helper()
	return e.clientOver(key, sdk.Version, sdk.TransportProtocolJSONRPC)
}

// clientOver resolves the card and connects with key over one of its
// interfaces: A2A version and binding.
func (e *env) clientOver(key string, version sdk.ProtocolVersion, binding sdk.TransportProtocol) *a2aclient.Client {
	e.t.Helper()
	ctx := context.Background()
	card, err := cardResolver.Resolve(ctx, e.base)
	if err != nil {
		e.t.Fatal(err)
	}
	opts := []a2aclient.FactoryOption{a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []sdk.TransportProtocol{binding}})}
	if version == a2av0.Version {
		// Only the 0.3 transports, so the client cannot pick 1.0.
		opts = append(opts, a2aclient.WithDefaultsDisabled(),
			a2aclient.WithCompatTransport(a2av0.Version, sdk.TransportProtocolJSONRPC, a2av0.NewJSONRPCTransportFactory(a2av0.JSONRPCTransportConfig{})),
			a2aclient.WithCompatTransport(a2av0.Version, sdk.TransportProtocolHTTPJSON, a2av0.NewRESTTransportFactory(a2av0.RESTTransportConfig{})))
	}
	if key != "" {
		opts = append(opts, a2aclient.WithCallInterceptors(keyed{key: key}))
	}
	c, err := a2aclient.NewFromCard(ctx, card, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func userText(contextID string, task sdk.TaskID, text string) *sdk.SendMessageRequest {
	m := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart(text))
	m.ContextID, m.TaskID = contextID, task
	return &sdk.SendMessageRequest{Message: m}
}

func send(t *testing.T, c *a2aclient.Client, p *sdk.SendMessageRequest) *sdk.Task {
	t.Helper()
	res, err := c.SendMessage(context.Background(), p)
	if err != nil {
		t.Fatalf("message/send: %v", err)
	}
	task, ok := res.(*sdk.Task)
	if !ok {
		t.Fatalf("message/send returned %T, want a task", res)
	}
	return task
}

// dataPart is the first data part of parts.
func dataPart(t *testing.T, parts sdk.ContentParts) map[string]any {
	t.Helper()
	for _, p := range parts {
		if d, ok := p.Data().(map[string]any); ok {
			return d
		}
	}
	t.Fatalf("no data part in %v", parts)
	return nil
}

func textPart(parts sdk.ContentParts) string {
	for _, p := range parts {
		if t, ok := p.Content.(sdk.Text); ok {
			return string(t)
		}
	}
	return ""
}

// temperature is the plan artifact's spec.attributes.temperature.
func temperature(t *testing.T, task *sdk.Task) string {
	t.Helper()
	if len(task.Artifacts) != 1 || task.Artifacts[0].ID != a2a.PlanArtifactID {
		t.Fatalf("artifacts %v; want the plan", task.Artifacts)
	}
	plan := dataPart(t, task.Artifacts[0].Parts)
	spec, _ := plan["spec"].(map[string]any)
	attrs, _ := spec["attributes"].(map[string]any)
	s, _ := attrs["temperature"].(string)
	return s
}

func strs(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestAgentCardDescribesTheSkillsAndTheKeyedEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	card, err := cardResolver.Resolve(context.Background(), e.base)
	if err != nil {
		t.Fatal(err)
	}
	var ifaces []string
	for _, i := range card.SupportedInterfaces {
		ifaces = append(ifaces, string(i.ProtocolVersion)+" "+string(i.ProtocolBinding)+" "+i.URL)
	}
	want := []string{"1.0 JSONRPC " + e.base + a2a.Path, "1.0 HTTP+JSON " + e.base + a2a.RESTPath, "0.3 JSONRPC " + e.base + a2a.Path, "0.3 HTTP+JSON " + e.base + a2a.RESTPath}
	if !slices.Equal(ifaces, want) || !card.Capabilities.Streaming {
		t.Errorf("card interfaces %q, streaming %v; want %q", ifaces, card.Capabilities.Streaming, want)
	}
	var ids []string
	for _, s := range card.Skills {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, []string{a2a.SkillPlan, a2a.SkillAsk}) {
		t.Errorf("skills %v", ids)
	}
	if _, ok := card.SecuritySchemes["apiKey"]; !ok || len(card.SecurityRequirements) == 0 {
		t.Errorf("card does not say the endpoint needs an API key: %v %v", card.SecuritySchemes, card.SecurityRequirements)
	}
}

func TestQuestionMakesTheTaskInputRequiredAndAnAnswerOnTheSameTaskCompletesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", "hot frozen cheese"))
	if task.Status.State != sdk.TaskStateInputRequired || task.ContextID == "" {
		t.Fatalf("state %s, context %q; want input-required in a new context", task.Status.State, task.ContextID)
	}
	q := dataPart(t, task.Status.Message.Parts)
	if q["type"] != "SELECT_ONE" || !slices.Equal(strs(q["options"]), []string{"hot", "frozen"}) || q["default"] != nil {
		t.Errorf("question %v; want SELECT_ONE hot/frozen, no default", q)
	}
	if url, _ := q["answerUrl"].(string); !strings.HasPrefix(url, e.base+"/a/") {
		t.Errorf("answerUrl %q", q["answerUrl"])
	}
	if _, ok := q["schema"].(map[string]any); !ok || q["allowOther"] != true {
		t.Errorf("no answer schema or allowOther in %v", q)
	}

	done := send(t, c, userText(task.ContextID, task.ID, "hot"))
	if done.ID != task.ID || done.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("task %s %s; want %s completed", done.ID, done.Status.State, task.ID)
	}
	if got := temperature(t, done); got != "hot" {
		t.Errorf("plan temperature %q; want hot", got)
	}
	if txt := textPart(done.Artifacts[0].Parts); !strings.Contains(txt, "Planned") {
		t.Errorf("plan artifact text %q", txt)
	}
	got, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != sdk.TaskStateCompleted || len(got.History) != 3 {
		t.Errorf("tasks/get: %v, %+v; want completed with goal, question, answer", err, got)
	}
}

// tasks/get's historyLength keeps that many of the most recent messages:
// 0 none, 1 the answer, more than there are all three, unset all three.
func TestTasksGetHistoryLengthKeepsTheMostRecentMessages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", "hot frozen cheese"))
	send(t, c, userText(task.ContextID, task.ID, "hot"))
	for _, tc := range []struct {
		length      *int
		n           int
		first, last string // the texts of the first and last messages kept
	}{
		{nil, 3, "hot frozen cheese", "hot"},
		{ptr(0), 0, "", ""},
		{ptr(1), 1, "hot", "hot"},
		{ptr(5), 3, "hot frozen cheese", "hot"},
	} {
		got, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: task.ID, HistoryLength: tc.length})
		if err != nil {
			t.Fatalf("tasks/get historyLength %v: %v", deref(tc.length), err)
		}
		var first, last string
		if h := got.History; len(h) > 0 {
			first, last = textPart(h[0].Parts), textPart(h[len(h)-1].Parts)
		}
		if len(got.History) != tc.n || first != tc.first || last != tc.last {
			t.Errorf("tasks/get historyLength %v: %d messages, %q to %q; want %d, %q to %q", deref(tc.length), len(got.History), first, last, tc.n, tc.first, tc.last)
		}
	}
}

func ptr(n int) *int { return &n }

func deref(n *int) any {
	if n == nil {
		return "unset"
	}
	return *n
}

func TestAnswerTheQuestionDoesNotTakeIsAnErrorAndTheTaskStaysInputRequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", "hot frozen cheese"))
	_, err := c.SendMessage(context.Background(), userText("", task.ID, strings.Repeat("x", askonce.MaxFreeText+1)))
	if !errors.Is(err, sdk.ErrInvalidParams) {
		t.Fatalf("bad answer: %v; want invalid params", err)
	}
	got, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != sdk.TaskStateInputRequired {
		t.Fatalf("after a refused answer: %v, %s; want input-required", err, got.Status.State)
	}
}

func TestSecondTaskOfAContextWithTheSameQuestionCompletesWithoutInputRequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	first := send(t, c, userText("", "", "hot frozen cheese"))
	send(t, c, userText(first.ContextID, first.ID, "hot"))

	var states []sdk.TaskState
	var last *sdk.TaskStatusUpdateEvent
	for ev, err := range c.SendStreamingMessage(context.Background(), userText(first.ContextID, "", "hot frozen cheese")) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case *sdk.Task:
			states = append(states, ev.Status.State)
		case *sdk.TaskStatusUpdateEvent:
			states = append(states, ev.Status.State)
			last = ev
		}
	}
	if slices.Contains(states, sdk.TaskStateInputRequired) || last == nil || last.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("states %v; want completed without input-required", states)
	}
	second, err := c.GetTask(context.Background(), &sdk.GetTaskRequest{ID: last.TaskID})
	if err != nil {
		t.Fatal(err)
	}
	if second.ID == first.ID || second.ContextID != first.ContextID || temperature(t, second) != "hot" {
		t.Errorf("second task %s in %s; want a new task of %s planned hot from history", second.ID, second.ContextID, first.ContextID)
	}
}

func TestStreamSendsAStatusUpdatePerJobEventUntilInputRequiredThenUntilCompleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	collect := func(p *sdk.SendMessageRequest) (first *sdk.Task, events []string, artifact bool, final *sdk.TaskStatusUpdateEvent) {
		for ev, err := range c.SendStreamingMessage(context.Background(), p) {
			if err != nil {
				t.Fatal(err)
			}
			switch ev := ev.(type) {
			case *sdk.Task:
				first = ev
			case *sdk.TaskArtifactUpdateEvent:
				artifact = ev.Artifact.ID == a2a.PlanArtifactID
			case *sdk.TaskStatusUpdateEvent:
				if final != nil {
					t.Fatalf("an update after the settled status %s: %v", final.Status.State, ev.Status.State)
				}
				if settledState(ev.Status.State) {
					final = ev
					continue
				}
				meta, _ := ev.Metadata["askonce"].(map[string]any)
				name, _ := meta["event"].(string)
				events = append(events, string(ev.Status.State)+":"+name)
			}
		}
		return
	}
	task, events, artifact, final := collect(userText("", "", "hot frozen cheese"))
	if task == nil || final == nil || final.Status.State != sdk.TaskStateInputRequired || artifact {
		t.Fatalf("first stream: task %v, final %v, artifact %v; want input-required", task, final, artifact)
	}
	if !slices.Equal(events, []string{"TASK_STATE_WORKING:created", "TASK_STATE_WORKING:attempt"}) {
		t.Errorf("first stream's updates %v", events)
	}
	if q := dataPart(t, final.Status.Message.Parts); q["type"] != "SELECT_ONE" {
		t.Errorf("final status carries %v; want the question", q)
	}
	_, events, artifact, final = collect(userText("", task.ID, "hot"))
	if final == nil || final.Status.State != sdk.TaskStateCompleted || !artifact {
		t.Fatalf("answer stream: final %v, artifact %v; want the plan, then completed", final, artifact)
	}
	if !slices.Equal(events, []string{"TASK_STATE_WORKING:answered", "TASK_STATE_WORKING:attempt"}) {
		t.Errorf("answer stream's updates %v; want only this answer's events", events)
	}
}

func TestHardCapDecidesASecondQuestionAsOnHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	cases := []struct {
		hardCap string
		want    sdk.TaskState
	}{
		{"fallback", sdk.TaskStateCompleted},
		{"fail", sdk.TaskStateFailed},
	}
	for _, tc := range cases {
		t.Run(tc.hardCap, func(t *testing.T) {
			m := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewDataPart(map[string]any{"goal": askTwice, "hardCap": tc.hardCap}))
			task := send(t, c, &sdk.SendMessageRequest{Message: m})
			if task.Status.State != sdk.TaskStateInputRequired {
				t.Fatalf("state %s; want input-required", task.Status.State)
			}
			done := send(t, c, userText("", task.ID, "red"))
			if done.Status.State != tc.want {
				t.Fatalf("after the answer the planner asked again: state %s; want %s (never a second input-required)", done.Status.State, tc.want)
			}
		})
	}
}

func TestCancelEndsAnInputRequiredTaskOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	ctx := context.Background()
	task := send(t, c, userText("", "", "hot frozen cheese"))
	got, err := c.CancelTask(ctx, &sdk.CancelTaskRequest{ID: task.ID})
	if err != nil || got.Status.State != sdk.TaskStateCanceled {
		t.Fatalf("tasks/cancel: %v, %+v; want canceled", err, got)
	}
	if _, err := c.CancelTask(ctx, &sdk.CancelTaskRequest{ID: task.ID}); !errors.Is(err, sdk.ErrTaskNotCancelable) {
		t.Errorf("second cancel: %v; want task not cancelable", err)
	}
	if _, err := c.SendMessage(ctx, userText("", task.ID, "hot")); !errors.Is(err, sdk.ErrInvalidRequest) {
		t.Errorf("answer after cancel: %v; want invalid request", err)
	}
	if got, err := c.GetTask(ctx, &sdk.GetTaskRequest{ID: task.ID}); err != nil || got.Status.State != sdk.TaskStateCanceled {
		t.Errorf("tasks/get after cancel: %v, %+v", err, got)
	}
}

func TestTasksOfOneKeyDoNotExistForAnotherAndNoKeyIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.client(keyA), e.client(keyB)
	ctx := context.Background()
	task := send(t, a, userText("", "", "hot frozen cheese"))
	if _, err := b.GetTask(ctx, &sdk.GetTaskRequest{ID: task.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Errorf("other tenant's tasks/get: %v; want task not found", err)
	}
	if _, err := b.SendMessage(ctx, userText("", task.ID, "hot")); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Errorf("other tenant's answer: %v; want task not found", err)
	}
	if _, err := b.CancelTask(ctx, &sdk.CancelTaskRequest{ID: task.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Errorf("other tenant's cancel: %v; want task not found", err)
	}
	if _, err := e.client("").GetTask(ctx, &sdk.GetTaskRequest{ID: task.ID}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("no key: %v; want 401", err)
	}
	if got, err := a.GetTask(ctx, &sdk.GetTaskRequest{ID: task.ID}); err != nil || got.Status.State != sdk.TaskStateInputRequired {
		t.Errorf("owner's task after the other tenant's tries: %v, %+v; want still input-required", err, got)
	}
}

func TestDeclineOnTheTaskPlansWithTheQuestionsDefault(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	// The destructive step's "no" is the rules interpreter's one default
	// (rule 17).
	task := send(t, c, userText("", "", "delete notes.md and update the readme"))
	m := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewDataPart(map[string]any{"decline": true}))
	m.TaskID = task.ID
	done := send(t, c, &sdk.SendMessageRequest{Message: m})
	j, err := e.eng.Get(context.Background(), "tenant-a", string(task.ID))
	if done.Status.State != sdk.TaskStateCompleted || err != nil || j.Answer.String() != "no" || j.AnswerSource != askonce.SourceDefault {
		t.Fatalf("declined: %s, job %+v (%v); want completed with the default, no", done.Status.State, j, err)
	}
}

func TestAnswerFromAnotherContextIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", "hot frozen cheese"))
	if _, err := c.SendMessage(context.Background(), userText("another-context", task.ID, "hot")); !errors.Is(err, sdk.ErrInvalidParams) {
		t.Fatalf("answer naming another context: %v; want invalid params", err)
	}
}

func TestStreamIsWokenByTheJobsChangeNotByItsPoll(t *testing.T) {
	t.Parallel()
	const goal = "a cheese block"
	gate := make(chan struct{})
	// With an hour between polls, only the store's wake-up can carry the
	// stream from working to completed.
	e := newEnvWith(t, map[string]chan struct{}{goal: gate}, time.Hour)
	c := e.client(keyA)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var final *sdk.TaskStatusUpdateEvent
	for ev, err := range c.SendStreamingMessage(ctx, userText("", "", goal)) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case *sdk.Task:
			close(gate) // the job is stored and planning: let it plan
		case *sdk.TaskStatusUpdateEvent:
			if settledState(ev.Status.State) {
				final = ev
			}
		}
	}
	if final == nil || final.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("stream ended with %v; want completed, woken by the plan's commit", final)
	}
}

// settledState reports whether a stream's status update is its last: the
// task asks, or has ended.
func settledState(s sdk.TaskState) bool { return s == sdk.TaskStateInputRequired || s.Terminal() }

func TestSubscribeToTaskSendsTheTaskThenItsUpdatesUntilItSettles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.client(keyA)
	task := send(t, c, userText("", "", "hot frozen cheese"))
	var kinds []string
	for ev, err := range c.SubscribeToTask(context.Background(), &sdk.SubscribeToTaskRequest{ID: task.ID}) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev := ev.(type) {
		case *sdk.Task:
			kinds = append(kinds, "task:"+string(ev.Status.State))
		case *sdk.TaskStatusUpdateEvent:
			kinds = append(kinds, "status:"+string(ev.Status.State))
		}
	}
	if !slices.Equal(kinds, []string{"task:TASK_STATE_INPUT_REQUIRED", "status:TASK_STATE_INPUT_REQUIRED"}) {
		t.Fatalf("SubscribeToTask of an input-required task sent %v", kinds)
	}
}

func TestCardWithoutKeysAsksForNone(t *testing.T) {
	t.Parallel()
	card := a2a.New(a2a.Config{PublicURL: "http://askonce.test/"}).Card()
	if card.SupportedInterfaces[0].URL != "http://askonce.test/a2a" || card.SecuritySchemes != nil || card.SecurityRequirements != nil {
		t.Fatalf("card url %s, schemes %v, security %v; want /a2a under the public URL and no key", card.SupportedInterfaces[0].URL, card.SecuritySchemes, card.SecurityRequirements)
	}
}
