package main_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A keyed create whose server is SIGKILLed while a slow interpreter plans
// it: after the restart, once the dead process's lease has lapsed, the
// retry with the same key gets that job (201 once planned, or 202 with
// Location while the restart's recovery still plans it), never 409, and no
// second job exists. The restart's recovery finishes the job.
func TestRule2_IdempotencyKeyRetryAfterACrashGetsTheJobNever409(t *testing.T) {
	t.Parallel()
	plugin, err := filepath.Abs("../../examples/exec-plugin/plugin.py")
	if err != nil {
		t.Fatal(err)
	}
	// A plug-in that takes seconds, like an LLM.
	env := []string{`ASKONCE_EXEC_COMMAND=["sh", "-c", "sleep 2; exec python3 '` + plugin + `'"]`}
	const lease = time.Second
	// The restart is the same replica (--replica-id), which takes its
	// planning job back at once.
	args := []string{"--db", filepath.Join(t.TempDir(), "a.db"), "--interpreter", "exec", "--idempotency-lease", lease.String(), "--replica-id", "replica-a"}
	in := start(t, env, args...)

	body := map[string]any{"goal": "Write the README then add tests", "sessionId": "s"}
	go func() {
		// Cut off by the kill: its error is expected.
		req, _ := http.NewRequest("POST", in.base+"/jobs", bytes.NewReader(mustJSON(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "create-1")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	var id string
	eventually(t, "the keyed create to be planning", func() bool {
		jobs, _ := in.do("GET", "/jobs", nil).body["jobs"].([]any)
		if len(jobs) == 1 {
			id = str(jobs[0].(map[string]any), "jobId")
		}
		return id != ""
	})
	if s := str(in.do("GET", "/jobs/"+id, nil).body, "status"); s != "planning" {
		t.Fatalf("job %s is %s before the kill; the interpreter was meant to be still running", id, s)
	}
	in.stop(syscall.SIGKILL)
	killed := time.Now()

	again := start(t, env, args...)
	time.Sleep(time.Until(killed.Add(lease + 200*time.Millisecond)))
	retry := again.do("POST", "/jobs", body, "Idempotency-Key", "create-1")
	if (retry.status != 201 && retry.status != 202) || str(retry.body, "jobId") != id {
		t.Fatalf("retry after the crash: %d %s; want 201 or 202 with job %s", retry.status, retry.raw, id)
	}
	if retry.status == 202 && retry.header.Get("Location") != "/jobs/"+id {
		t.Fatalf("202 retry without Location /jobs/%s: %v", id, retry.header)
	}
	if replay := again.do("POST", "/jobs", body, "Idempotency-Key", "create-1"); !bytes.Equal(replay.raw, retry.raw) {
		t.Fatalf("second retry: %d %s; want the first retry's response", replay.status, replay.raw)
	}
	if jobs, _ := again.do("GET", "/jobs", nil).body["jobs"].([]any); len(jobs) != 1 {
		t.Fatalf("%d jobs after the retries, want 1", len(jobs))
	}
	eventually(t, "the recovered job to leave planning", func() bool {
		return str(again.do("GET", "/jobs/"+id, nil).body, "status") == "success"
	})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
