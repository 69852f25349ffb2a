package mcp_test

import (
	"strings"
	"testing"

	"github.com/askonce/askonce/mcp"
)

// The plan tool's text counts tasks as a person does: a one-task plan is
// "1 task.", never "1 tasks.".
func TestPlan_SummaryCountsOneTaskInTheSingular(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[0]})
	var job mcp.JobResult
	res := call(t, cs, mcp.ToolPlan, map[string]any{"goal": "write the changelog"}, &job)
	if job.Status != "success" || job.Plan == nil || len(job.Plan.Tasks) != 1 {
		t.Fatalf("job %+v, want a one-task plan", job)
	}
	if got := text(res); !strings.Contains(got, ": 1 task.") || strings.Contains(got, "1 tasks") {
		t.Fatalf("summary %q, want it to count 1 task", got)
	}
}
