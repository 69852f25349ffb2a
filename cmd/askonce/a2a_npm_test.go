package main_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce/auth"
)

// npmDir is a test folder with npm packages, from this package's
// directory, after checking that node and the folder's packages (module,
// a path under node_modules) are installed. A missing one skips the test,
// except in CI (CI set), where it fails: .ci/run installs them. Under
// -short it skips the test: npm clients start Node and the binary.
func npmDir(t *testing.T, dir, module string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping a test of an npm client (Node against the built binary; go test without -short runs it; CI does)")
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", module)); err != nil {
		missing = filepath.ToSlash(dir) + "/node_modules (npm ci in " + filepath.ToSlash(dir) + ")"
	}
	if missing != "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("this test needs %s; .ci/run installs it", missing)
		}
		t.Skipf("skipping: %s is not installed (.ci/run installs it; CI never skips)", missing)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// keysFile writes an API keys file of tenant → key and returns its path.
func keysFile(t *testing.T, keys map[string]string) string {
	t.Helper()
	var b strings.Builder
	for tenant, key := range keys {
		b.WriteString(tenant + " " + auth.HashKey(key) + "\n")
	}
	path := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// a2aRun is the report of a scenario of a2a/jstest's scripts, in the
// task-state spelling of its A2A version.
type a2aRun struct {
	Asked struct {
		Kind, State, Type, Default, AnswerURL string
		Options                               []string
	}
	Answered struct {
		SameTask           bool
		State, Temperature string
	}
	// Typed is 1.0's typed data-part step: answers the question does not
	// take, refused, and the task's state after them.
	Typed   *struct{ Refused, Object, StillAsking string }
	History struct {
		NewTask, SameContext bool
		States               []string
		State, Temperature   string
	}
	Cancel    struct{ Before, State, Again string }
	Subscribe []string
	List      *struct {
		Pages                                 [][]string
		IDs                                   []string
		Total, Completed, Asking, OtherTenant int
		Last                                  string
	}
	Tenancy struct {
		Get, Answer, Cancel, NoKey, OwnerStill string
	}
	// Push is 1.0's push-notification step.
	Push *struct {
		Task, ID, OtherTenant string
		Listed                []string
	}
}

// states are the task states of one A2A version, as its JS SDK spells
// them.
type states struct{ inputRequired, completed, canceled string }

var (
	states10 = states{"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_CANCELED"}
	states03 = states{"input-required", "completed", "canceled"}
)

// The official A2A JavaScript SDKs against askonce serve with two API
// keys: @a2a-js/sdk 1.x speaking A2A 1.0 over JSON-RPC and HTTP+JSON, and
// 0.3.x speaking A2A 0.3 over JSON-RPC, on the same endpoint. In each,
// "hot frozen cheese" is input-required with two options, "hot" on the
// same task completes it with a hot plan, a second task of the context is
// answered from history without input-required, cancel ends a task once,
// and one key's tasks do not exist for the other; under 1.0, ListTasks
// pages the context's tasks and SubscribeToTask follows one that asks.
func integrationsA2AJavaScriptSDKClient(t *testing.T) {
	dir := npmDir(t, filepath.Join("..", "..", "a2a", "jstest"), "a2a-sdk-03")
	keys := map[string]string{"tenant-a": "js-key-a", "tenant-b": "js-key-b"}
	recv := newPushReceiver(t)
	// The receiver is on loopback, which the SSRF guard refuses unless
	// told.
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"), "--api-keys-file", keysFile(t, keys), "--a2a-push", "--a2a-push-allow-private")
	env := []string{"ASKONCE_URL=" + in.base, "KEY_A=js-key-a", "KEY_B=js-key-b", "PUSH_URL=" + recv.URL}
	report := func(t *testing.T, script string, v any) {
		t.Helper()
		out := runNode(t, time.Minute, env, filepath.Join(dir, script))
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), v); err != nil {
			t.Fatalf("%v in the script's report:\n%s", err, out)
		}
	}
	t.Run("1.0", func(t *testing.T) {
		var got map[string]a2aRun
		report(t, "client.mjs", &got)
		for _, binding := range []string{"JSONRPC", "HTTP+JSON"} {
			t.Run(binding, func(t *testing.T) {
				run, ok := got[binding]
				if !ok {
					t.Fatalf("no report of %s in %v", binding, got)
				}
				checkA2ARun(t, in.base, run, states10, states10.inputRequired)
				// A data part is checked as the HTTP API checks an answer:
				// true and an object are refused, naming what the question
				// takes, with no Go map in the message; the task still asks.
				if ty := run.Typed; ty == nil || !strings.Contains(ty.Refused, "true or false") || !strings.Contains(ty.Refused, "allowed: hot, frozen") ||
					!strings.Contains(ty.Object, "is an object") || strings.Contains(ty.Object, "map[") || ty.StillAsking != states10.inputRequired {
					t.Errorf("typed data parts: %+v; want both refused naming the allowed answers, the task still input-required", ty)
				}
				if !slices.Equal(run.Subscribe, []string{states10.inputRequired, states10.inputRequired}) {
					t.Errorf("SubscribeToTask of an asking task: %v; want the task, then its input-required status", run.Subscribe)
				}
				l := run.List
				if l == nil || len(l.Pages) != 2 || !slices.Equal(slices.Concat(l.Pages...), l.IDs) || l.Total != 2 || l.Last != "" || l.Completed != 2 || l.Asking != 0 || l.OtherTenant != 0 {
					t.Errorf("ListTasks of the context: %+v; want its two tasks newest first a page each, both completed, none for the other tenant", l)
				}
				p := run.Push
				if p == nil || p.ID != "js-"+binding || !slices.Equal(p.Listed, []string{p.ID}) || !strings.Contains(p.OtherTenant, "not found") {
					t.Fatalf("push configs: %+v; want the config created and listed, not found for the other tenant", p)
				}
				got := recv.wait(t, "/"+binding, p.Task, "TASK_STATE_COMPLETED")
				if tok := got.Get("A2A-Notification-Token"); tok != "js-token" {
					t.Errorf("the completed task's POST has token %q, want js-token", tok)
				}
			})
		}
	})
	t.Run("0.3", func(t *testing.T) {
		var got a2aRun
		report(t, "client-0.3.mjs", &got)
		if got.Asked.Kind != "task" {
			t.Errorf("first message returned a %q; want a task", got.Asked.Kind)
		}
		checkA2ARun(t, in.base, got, states03, states03.completed)
	})
}

// pushReceiver records the A2A push notifications it gets: the task's id
// and state, by path.
type pushReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got map[string][]pushedTask
	new chan struct{}
}

type pushedTask struct {
	id, state string
	header    http.Header
}

func newPushReceiver(t *testing.T) *pushReceiver {
	r := &pushReceiver{got: map[string][]pushedTask{}, new: make(chan struct{}, 100)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body struct {
			Task struct {
				ID     string `json:"id"`
				Status struct{ State string }
			}
		}
		json.NewDecoder(req.Body).Decode(&body)
		r.mu.Lock()
		r.got[req.URL.Path] = append(r.got[req.URL.Path], pushedTask{body.Task.ID, body.Task.Status.State, req.Header.Clone()})
		r.mu.Unlock()
		select {
		case r.new <- struct{}{}:
		default:
		}
	}))
	t.Cleanup(r.Close)
	return r
}

// wait returns the headers of the POST to path of task id in state.
func (r *pushReceiver) wait(t *testing.T, path, id, state string) http.Header {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		got := slices.Clone(r.got[path])
		r.mu.Unlock()
		for _, p := range got {
			if p.id == id && p.state == state {
				return p.header
			}
		}
		select {
		case <-r.new:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("POSTs to %s: %+v; want task %s %s", path, got, id, state)
		}
	}
}

// checkA2ARun checks what both versions' scenarios share.
// owner is the state the scenario's last task of tenant A has after
// tenant B's tries.
func checkA2ARun(t *testing.T, base string, got a2aRun, st states, owner string) {
	t.Helper()
	if a := got.Asked; a.State != st.inputRequired || a.Type != "SELECT_ONE" || !slices.Equal(a.Options, []string{"hot", "frozen"}) || !strings.HasPrefix(a.AnswerURL, base+"/a/") {
		t.Errorf("first message: %+v; want an input-required task with the SELECT_ONE question hot/frozen and its answer link", a)
	}
	if a := got.Answered; !a.SameTask || a.State != st.completed || a.Temperature != "hot" {
		t.Errorf("answer: %+v; want the same task completed with temperature hot", a)
	}
	if h := got.History; !h.NewTask || !h.SameContext || slices.Contains(h.States, st.inputRequired) || h.State != st.completed || h.Temperature != "hot" {
		t.Errorf("second task of the context: %+v; want completed from history, never input-required", h)
	}
	if c := got.Cancel; c.Before != st.inputRequired || c.State != st.canceled || !strings.Contains(c.Again, "TaskNotCancelable") {
		t.Errorf("cancel: %+v; want canceled, then not cancelable", c)
	}
	tn := got.Tenancy
	for name, err := range map[string]string{"get": tn.Get, "answer": tn.Answer, "cancel": tn.Cancel} {
		if !strings.Contains(err, "TaskNotFound") {
			t.Errorf("the other key's %s: %q; want task not found", name, err)
		}
	}
	if !strings.Contains(tn.NoKey, "API key is required") || tn.OwnerStill != owner {
		t.Errorf("no key: %q; owner's task %q; want refused, and the owner's task still %s", tn.NoKey, tn.OwnerStill, owner)
	}
}
