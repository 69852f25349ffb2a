package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce/server"
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
		b.WriteString(tenant + " " + server.HashKey(key) + "\n")
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
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"), "--api-keys-file", keysFile(t, keys))
	env := []string{"ASKONCE_URL=" + in.base, "KEY_A=js-key-a", "KEY_B=js-key-b"}
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
				if !slices.Equal(run.Subscribe, []string{states10.inputRequired, states10.inputRequired}) {
					t.Errorf("SubscribeToTask of an asking task: %v; want the task, then its input-required status", run.Subscribe)
				}
				l := run.List
				if l == nil || len(l.Pages) != 2 || !slices.Equal(slices.Concat(l.Pages...), l.IDs) || l.Total != 2 || l.Last != "" || l.Completed != 2 || l.Asking != 0 || l.OtherTenant != 0 {
					t.Errorf("ListTasks of the context: %+v; want its two tasks newest first a page each, both completed, none for the other tenant", l)
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
