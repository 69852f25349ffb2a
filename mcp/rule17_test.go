package mcp_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/mcp"
)

// Rule 17 over MCP: once nobody answered in time, get_job says so in
// expiryNote and in its text, whether the destructive step's "no"
// answered or the job expired without a default.
func TestRule17_GetJobSaysNobodyAnsweredAndWhatBecameOfIt(t *testing.T) {
	e := newEnv(t)
	var offset atomic.Int64
	e.engine.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	cs := e.connect(clientOptions{version: versions[1]})
	var confirm, sel mcp.JobResult
	call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask confirm", "sessionId": "s1"}, &confirm)
	call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask select", "sessionId": "s2"}, &sel)
	if confirm.Status != "pending" || sel.Status != "pending" {
		t.Fatalf("confirm %s, select %s; want both pending", confirm.Status, sel.Status)
	}
	offset.Add(int64(askonce.DefaultQuestionTTL))
	if n, err := e.engine.ExpireDue(context.Background()); n != 2 || err != nil {
		t.Fatalf("expired %d, %v; want 2", n, err)
	}
	for _, c := range []struct {
		id, status, note string
	}{
		{confirm.JobID, "success", "Nobody answered within 24h; the default “no” was used."},
		{sel.JobID, "expired", "Nobody answered within 24h, and the question had no default; the job expired."},
	} {
		var got mcp.JobResult
		res := call(t, cs, mcp.ToolGetJob, map[string]any{"jobId": c.id}, &got)
		if got.Status != c.status || got.ExpiryNote != c.note || !strings.Contains(text(res), c.note) {
			t.Errorf("get_job: status %s, expiryNote %q, text %q; want %s saying %q", got.Status, got.ExpiryNote, text(res), c.status, c.note)
		}
	}
}
