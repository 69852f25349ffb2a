package mcp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A second agent (another MCP session) planning with the same project is
// answered from the first one's answer without an elicitation, and the
// result says so; another project is asked.
func TestPlan_ProjectArgumentSharesAnswersAcrossAgents(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			first := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{accept("invoices")}}
			var job mcp.JobResult
			call(t, e.connect(clientOptions{version: v, elicit: first}), mcp.ToolPlan, map[string]any{"goal": "ask select", "project": "shop", "sessionId": "agent-a"}, &job)
			if job.Status != "success" || first.count() != 1 {
				t.Fatalf("first agent: %+v after %d elicitations", job, first.count())
			}
			second := &elicitor{}
			var again mcp.JobResult
			res := call(t, e.connect(clientOptions{version: v, elicit: second}), mcp.ToolPlan, map[string]any{"goal": "ask select", "project": "shop", "sessionId": "agent-b"}, &again)
			if second.count() != 0 || again.AnswerSource != "history" || again.Memory == nil || again.Memory.JobID != job.JobID {
				t.Fatalf("second agent: %+v after %d elicitations; want answered from job %s's memory", again, second.count(), job.JobID)
			}
			if want := `answered from project "shop" memory, just now, job ` + job.JobID; !strings.Contains(text(res), want) || again.AnsweredFrom != want {
				t.Errorf("result %q / answeredFrom %q, want %q", text(res), again.AnsweredFrom, want)
			}
			third := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{accept("billing")}}
			call(t, e.connect(clientOptions{version: v, elicit: third}), mcp.ToolPlan, map[string]any{"goal": "ask select", "project": "warehouse", "sessionId": "agent-c"}, &job)
			if third.count() != 1 {
				t.Errorf("another project was elicited %d times, want once", third.count())
			}
			if msg := toolError(t, e.connect(clientOptions{version: v}), mcp.ToolPlan, map[string]any{"goal": "ask select", "project": "a\x1bb"}); !strings.Contains(msg, "memory.project") {
				t.Errorf("a project with control characters: %q, want an error naming memory.project", msg)
			}
		})
	}
}

// With roots, the first root folder's name is the job's project.
func TestPlan_FirstRootFolderIsTheDefaultProject(t *testing.T) {
	e := newEnv(t)
	e.engine.MemoryScope = askonce.MemoryProject
	ct, st := sdk.NewInMemoryTransports()
	ss, err := e.server.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: "rooted", Version: "1"}, nil)
	//lint:ignore SA1019 the test plays a client that still declares roots, as clients do during the deprecation window
	c.AddRoots(&sdk.Root{URI: "file:///home/dev/shop", Name: "shop"}, &sdk.Root{URI: "file:///home/dev/zoo"})
	cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: versions[0]})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	var job mcp.JobResult
	call(t, cs, mcp.ToolPlan, map[string]any{"goal": "plan it"}, &job)
	j, err := e.engine.Get(context.Background(), "", job.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if j.Memory == nil || j.Memory.Project != "shop" || j.Memory.Scope != askonce.MemoryProject {
		t.Fatalf("job memory %+v, want project shop from the first root", j.Memory)
	}
}
