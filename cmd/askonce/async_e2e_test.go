package main_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowPlugin is the example exec plug-in behind a delay, like an LLM
// call that takes longer than a connection should be held.
func slowPlugin(t *testing.T, delay string) []string {
	t.Helper()
	plugin, err := filepath.Abs("../../examples/exec-plugin/plugin.py")
	if err != nil {
		t.Fatal(err)
	}
	return []string{`ASKONCE_EXEC_COMMAND=["sh", "-c", "sleep ` + delay + `; exec python3 ` + plugin + `"]`}
}

func (in *instance) status(id string) string {
	in.t.Helper()
	return str(in.do("GET", "/jobs/"+id, nil).body, "status")
}

func (in *instance) waitStatus(id, want string) {
	in.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := in.status(id)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("job %s is %s after 30s, want %s", id, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAsyncPlanning: planning in the background: --sync-wait, Prefer:
// respond-async, and waiting for it from the terminal.
func TestAsyncPlanning(t *testing.T) {
	t.Parallel()
	t.Run("ServeRefusesWriteTimeoutNotAboveSyncWait", asyncPlanningServeRefusesWriteTimeoutNotAboveSyncWait)
	t.Run("RespondAsyncAndSyncWaitWithASlowInterpreter", asyncPlanningRespondAsyncAndSyncWaitWithASlowInterpreter)
	t.Run("JobsShowWaitWaitsForPlanningToEnd", asyncPlanningJobsShowWaitWaitsForPlanningToEnd)
}

func asyncPlanningServeRefusesWriteTimeoutNotAboveSyncWait(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--write-timeout", "10s", "--sync-wait", "10s"},
		{"--write-timeout", "5s"}, // the 30s default sync wait
	} {
		_, errs, code := runCLI(t, "", nil, append([]string{"serve", "--db", filepath.Join(t.TempDir(), "a.db")}, args...)...)
		if code != 2 || !strings.Contains(errs, "--write-timeout") || !strings.Contains(errs, "--sync-wait") {
			t.Errorf("serve %v: exit %d %q; want 2 naming both flags", args, code, errs)
		}
	}
}

func asyncPlanningRespondAsyncAndSyncWaitWithASlowInterpreter(t *testing.T) {
	t.Parallel()
	in := start(t, slowPlugin(t, "1"), "--db", filepath.Join(t.TempDir(), "a.db"), "--interpreter", "exec", "--sync-wait", "300ms")
	goal := map[string]any{"goal": "Write the report in markdown or html"}

	r := in.do("POST", "/jobs", goal, "Prefer", "respond-async")
	if r.status != http.StatusAccepted || str(r.body, "status") != "planning" || r.header.Get("Location") != "/jobs/"+str(r.body, "jobId") {
		t.Fatalf("Prefer: respond-async: %d %v %s; want 202 planning with Location", r.status, r.header, r.raw)
	}
	id := str(r.body, "jobId")
	in.waitStatus(id, "pending")

	began := time.Now()
	r = in.do("POST", "/jobs", goal)
	if r.status != http.StatusAccepted || time.Since(began) < 300*time.Millisecond {
		t.Fatalf("without Prefer, past --sync-wait: %d after %s; want 202 after 300ms", r.status, time.Since(began))
	}

	a := in.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "html"}, "Prefer", "respond-async")
	if a.status != http.StatusAccepted || str(a.body, "status") != "planning" || str(a.body, "clarificationAnswer") != "html" {
		t.Fatalf("answer with respond-async: %d %s", a.status, a.raw)
	}
	in.waitStatus(id, "success")
}

// A job planning in the background when its process is killed is resumed
// by the next start (docs/protocol.md rule 13): its life never depended on the
// request that started it. The restart is the same replica (--replica-id),
// so it takes its job back at once, without waiting for the lease.
func TestRule13_BackgroundPlanningCutByAKillIsRecoveredOnRestart(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "a.db")
	in := start(t, slowPlugin(t, "30"), "--db", db, "--interpreter", "exec", "--replica-id", "replica-a")
	r := in.do("POST", "/jobs", map[string]any{"goal": "Write the report in markdown or html"}, "Prefer", "respond-async")
	if r.status != http.StatusAccepted {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := str(r.body, "jobId")
	in.stop(syscall.SIGKILL)

	again := start(t, slowPlugin(t, "0"), "--db", db, "--interpreter", "exec", "--replica-id", "replica-a")
	again.waitStatus(id, "pending")
	evs := again.do("GET", "/jobs/"+id+"/events", nil)
	if !strings.Contains(string(evs.raw), `"recovered"`) {
		t.Errorf("no recovered event: %s", evs.raw)
	}
}

// askonce run shows a spinner with the live stage while a slow
// interpreter plans, then the picker.
func terminalRunShowsTheStageWhilePlanning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := append(slowPlugin(t, "2"), "ASKONCE_INTERPRETER=exec")
	p := newPaneEnv(t, dir, env, "run", "--db", filepath.Join(dir, "a.db"), "--interpreter", "exec", "Write the report in markdown or html")
	p.waitFor("waiting for interpreter · attempt 1")
	p.waitFor("markdown", "html", "Pick one")
}

// jobs show --wait waits for the job to leave planning.
func asyncPlanningJobsShowWaitWaitsForPlanningToEnd(t *testing.T) {
	t.Parallel()
	in := start(t, slowPlugin(t, "1"), "--db", filepath.Join(t.TempDir(), "a.db"), "--interpreter", "exec")
	r := in.do("POST", "/jobs", map[string]any{"goal": "Write the report in markdown or html"}, "Prefer", "respond-async")
	id := str(r.body, "jobId")
	out, errs, code := runCLI(t, "", nil, "jobs", "show", "--server", in.base, "--wait", "--json", id)
	if code != 0 || !strings.Contains(out, `"status": "pending"`) {
		t.Fatalf("jobs show --wait: exit %d\n%s%s", code, out, errs)
	}
}
