package main_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// benchRun runs the built askonce bench against base and returns its
// output.
func benchRun(t *testing.T, base string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"bench", "--server", base}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("askonce bench: %v\n%s", err, out)
	}
	return string(out)
}

var askedLine = regexp.MustCompile(`jobs that asked: (\d+) of (\d+) whose goal needs a question \(sessions (\S+)-\*\)`)

// Two bench runs against one database both ask every question: each run
// has session ids of its own, so the second does not meet the repeat
// guard's answers of the first (no job answered from history).
func TestE2E_BenchRunsOnOneDatabaseEachAsk(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "bench.db"))
	const trips = 12
	var prefixes []string
	for run := 1; run <= 2; run++ {
		out := benchRun(t, in.base, "--clients", "2", "--requests", strconv.Itoa(trips), "--duration", "30s", "--ask-percent", "100")
		m := askedLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("run %d: no asked line in the output:\n%s", run, out)
		}
		if m[1] != strconv.Itoa(trips) || m[2] != strconv.Itoa(trips) {
			t.Fatalf("run %d: %s of %s jobs asked, want all %d:\n%s", run, m[1], m[2], trips, out)
		}
		prefixes = append(prefixes, m[3])
	}
	if prefixes[0] == prefixes[1] {
		t.Fatalf("both runs used the session prefix %s", prefixes[0])
	}

	// The stored jobs: every one answered by a user, none from history.
	page := in.do("GET", "/jobs?limit=500", nil)
	jobs, _ := page.body["jobs"].([]any)
	if page.status != 200 || len(jobs) != 2*trips {
		t.Fatalf("list: %d, %d jobs, want %d: %s", page.status, len(jobs), 2*trips, page.raw)
	}
	sessions := map[string]bool{}
	for _, j := range jobs {
		job, _ := j.(map[string]any)
		if str(job, "status") != "success" || str(job, "clarificationSource") != "user" {
			t.Errorf("job %s: status %s source %q; want success answered by the user",
				str(job, "jobId"), str(job, "status"), str(job, "clarificationSource"))
		}
		sessions[str(job, "sessionId")] = true
	}
	if len(sessions) != 2*trips {
		t.Errorf("%d distinct sessions for %d jobs", len(sessions), 2*trips)
	}
}
