package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// TestCommand checks the command builder, one behaviour per subtest.
func TestCommand(t *testing.T) {
	t.Parallel()
	t.Run("RetriedUntilExitZero", testCommandRetriedUntilExitZero)
	t.Run("TimeoutKillsTheProcessGroup", testCommandTimeoutKillsTheProcessGroup)
	t.Run("TimeoutInDispatcherFailsTheJob", testCommandTimeoutInDispatcherFailsTheJob)
	t.Run("Errors", testCommandErrors)
}

func testCommandRetriedUntilExitZero(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Fails (exit 3, with a message on stderr) on its first run, then
	// writes its standard input to <dir>/<job id>.json.
	script := `n=$(cat "$1/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$1/count"
if [ $n -lt 2 ]; then echo "builder is not ready" >&2; exit 3; fi
cat > "$1/$ASKONCE_JOB_ID.json"`
	cfg := testConfig(&Command{Argv: []string{"sh", "-c", script, "sh", dir}, Timeout: 10 * time.Second})
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), cfg)
	j := s.succeed(t)

	got := s.waitDispatch(t, j.ID)
	if got.Dispatch != askonce.DispatchDelivered || got.DeliveryAttempts != 2 {
		t.Fatalf("dispatch %q attempts %d error %q, want delivered after 2", got.Dispatch, got.DeliveryAttempts, got.DeliveryError)
	}
	evs := s.deliveryEvents(t, j.ID)
	if len(evs) != 2 || evs[0].Type != askonce.EventDeliveryFailed || evs[1].Type != askonce.EventDelivered {
		t.Fatalf("events %v", evs)
	}
	var failed struct {
		Builder string `json:"builder"`
		Error   string `json:"error"`
	}
	json.Unmarshal(evs[0].Data, &failed)
	if failed.Builder != "command" || !strings.Contains(failed.Error, "exit status 3") || !strings.Contains(failed.Error, "builder is not ready") {
		t.Errorf("delivery_failed event %s", evs[0].Data)
	}
	raw, err := os.ReadFile(filepath.Join(dir, j.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var sent askonce.Job
	if err := json.Unmarshal(raw, &sent); err != nil {
		t.Fatalf("stdin was not the job JSON: %v\n%s", err, raw)
	}
	if sent.ID != j.ID || sent.Plan == nil || len(sent.Plan.Tasks) == 0 {
		t.Errorf("stdin %s", raw)
	}
}

func testCommandTimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Starts a grandchild, records its pid, and waits for it.
	script := `sleep 30 & echo $! > "$1/pid"; echo "started" >&2; wait`
	c := &Command{Argv: []string{"sh", "-c", script, "sh", dir}, Timeout: 300 * time.Millisecond}
	start := time.Now()
	err := c.Deliver(t.Context(), &askonce.Job{ID: "j1", TenantID: askonce.DefaultTenant})
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "timed out") || !strings.Contains(err.Error(), "started") {
		t.Fatalf("err %v, want a timeout with the stderr", err)
	}
	if took > 5*time.Second {
		t.Errorf("Deliver took %s", took)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d survived the timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie waiting for its reaper does
// not count).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func testCommandTimeoutInDispatcherFailsTheJob(t *testing.T) {
	t.Parallel()
	cfg := testConfig(&Command{Argv: []string{"sleep", "30"}, Timeout: 100 * time.Millisecond})
	cfg.MaxAttempts = 2
	s := openStack(t, filepath.Join(t.TempDir(), "a.db"), cfg)
	j := s.succeed(t)
	got := s.waitDispatch(t, j.ID)
	if got.Dispatch != askonce.DispatchFailed || got.DeliveryAttempts != 2 || !strings.Contains(got.DeliveryError, "timed out") {
		t.Fatalf("dispatch %q attempts %d error %q", got.Dispatch, got.DeliveryAttempts, got.DeliveryError)
	}
}

func testCommandErrors(t *testing.T) {
	t.Parallel()
	job := &askonce.Job{ID: "j1"}
	if err := (&Command{}).Deliver(t.Context(), job); err == nil {
		t.Error("no argv: no error")
	}
	if err := (&Command{Argv: []string{"/nonexistent/builder"}}).Deliver(t.Context(), job); err == nil {
		t.Error("missing program: no error")
	}
	// A program that ignores its input and succeeds is a delivery.
	if err := (&Command{Argv: []string{"true"}}).Deliver(t.Context(), job); err != nil {
		t.Errorf("true: %v", err)
	}
	// Stderr is capped to its end.
	err := (&Command{Argv: []string{"sh", "-c", `i=0; while [ $i -lt 2000 ]; do echo "line $i" >&2; i=$((i+1)); done; exit 1`}}).Deliver(t.Context(), job)
	if err == nil || len(err.Error()) > maxStderr+200 || !strings.Contains(err.Error(), "line 1999") {
		t.Errorf("long stderr: %d bytes: %.200v", len(err.Error()), err)
	}
	// A cancelled caller is not a timeout.
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	err = (&Command{Argv: []string{"sleep", "30"}}).Deliver(ctx, job)
	if err == nil || strings.Contains(err.Error(), "timed out") || ctx.Err() == nil {
		t.Errorf("cancelled: %v", err)
	}
}
