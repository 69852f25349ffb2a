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
// except in CI (CI set), where it fails: .ci/run installs them.
func npmDir(t *testing.T, dir, module string) string {
	t.Helper()
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

// a2aRun is the report of a2a/jstest/client.mjs.
type a2aRun struct {
	Asked struct {
		Kind, State, Type, AnswerURL string
		Options                      []string
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
	Cancel  struct{ Before, State, Again string }
	Tenancy struct {
		Get, Answer, Cancel, NoKey, OwnerStill string
	}
}

// The official A2A JavaScript SDK against askonce serve's /a2a with two
// API keys: "hot frozen cheese" is input-required with two options, "hot"
// on the same task completes it with a hot plan, a second task of the
// context is answered from history without input-required, cancel ends a
// task once, and one key's tasks do not exist for the other.
func integrationsA2AJavaScriptSDKClient(t *testing.T) {
	dir := npmDir(t, filepath.Join("..", "..", "a2a", "jstest"), "@a2a-js/sdk")
	keys := map[string]string{"tenant-a": "js-key-a", "tenant-b": "js-key-b"}
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"), "--api-keys-file", keysFile(t, keys))
	out := runNode(t, time.Minute, []string{"ASKONCE_URL=" + in.base, "KEY_A=js-key-a", "KEY_B=js-key-b"}, filepath.Join(dir, "client.mjs"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got a2aRun
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("%v in the script's report:\n%s", err, out)
	}
	if a := got.Asked; a.Kind != "task" || a.State != "input-required" || a.Type != "SELECT_ONE" || !slices.Equal(a.Options, []string{"hot", "frozen"}) || !strings.HasPrefix(a.AnswerURL, in.base+"/a/") {
		t.Errorf("first message: %+v; want an input-required task with the SELECT_ONE question hot/frozen and its answer link", a)
	}
	if a := got.Answered; !a.SameTask || a.State != "completed" || a.Temperature != "hot" {
		t.Errorf("answer: %+v; want the same task completed with temperature hot", a)
	}
	if h := got.History; !h.NewTask || !h.SameContext || slices.Contains(h.States, "input-required") || h.State != "completed" || h.Temperature != "hot" {
		t.Errorf("second task of the context: %+v; want completed from history, never input-required", h)
	}
	if c := got.Cancel; c.Before != "input-required" || c.State != "canceled" || !strings.HasPrefix(c.Again, "TaskNotCancelable") {
		t.Errorf("cancel: %+v; want canceled, then not cancelable", c)
	}
	tn := got.Tenancy
	for name, err := range map[string]string{"get": tn.Get, "answer": tn.Answer, "cancel": tn.Cancel} {
		if !strings.HasPrefix(err, "TaskNotFound") {
			t.Errorf("the other key's %s: %q; want task not found", name, err)
		}
	}
	if !strings.Contains(tn.NoKey, "API key is required") || tn.OwnerStill != "completed" {
		t.Errorf("no key: %q; owner's task %q; want refused, and completed", tn.NoKey, tn.OwnerStill)
	}
}
