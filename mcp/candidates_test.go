package mcp_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/mcp"
)

// The plan tool's candidates reach the job, in both protocol eras; a bad
// one is a tool error naming it, and the input schema documents the
// argument with its limits.
func TestPlan_CandidatesReachTheJob(t *testing.T) {
	names := []string{"black pepper", "bell pepper", "黒胡椒"}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			cs := e.connect(clientOptions{version: v})
			var job mcp.JobResult
			call(t, cs, mcp.ToolPlan, map[string]any{"goal": "season the soup", "candidates": names}, &job)
			j, err := e.engine.Get(context.Background(), "", job.JobID)
			if err != nil || !slices.Equal(j.Candidates, names) {
				t.Fatalf("the job's candidates %q, %v; want %q", j.Candidates, err, names)
			}
			msg := toolError(t, cs, mcp.ToolPlan, map[string]any{"goal": "season the soup", "candidates": []string{"salt", ""}})
			if !strings.Contains(msg, "candidates[1] is empty") {
				t.Fatalf("empty candidate: %q, want it named", msg)
			}
		})
	}
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[0]})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != mcp.ToolPlan {
			continue
		}
		schema, _ := tl.InputSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		p, _ := props["candidates"].(map[string]any)
		limits := fmt.Sprintf("at most %d, each at most %d bytes", askonce.MaxCandidates, askonce.MaxCandidateBytes)
		// The SDK types a slice as an array or null.
		if !strings.Contains(fmt.Sprint(p["type"]), "array") || !strings.Contains(fmt.Sprint(p["description"]), limits) {
			t.Fatalf("plan's candidates argument is documented as %v; want an array, %q", p, limits)
		}
		return
	}
	t.Fatal("no plan tool")
}
