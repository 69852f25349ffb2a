package main_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// firstOption answers a form elicitation with its first offered option
// and counts the elicitations.
func firstOption(n *atomic.Int32) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		n.Add(1)
		props := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)
		one := props["answer"].(map[string]any)["oneOf"].([]any)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": one[0].(map[string]any)["const"]}}, nil
	}
}

func mcpSession(t *testing.T, tr sdk.Transport, version string, n *atomic.Int32) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: firstOption(n)})
	cs, err := c.Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	return cs
}

func planOnce(t *testing.T, cs *sdk.ClientSession, n *atomic.Int32) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "plan", Arguments: map[string]any{"goal": "hot frozen cheese"}})
	if err != nil {
		t.Fatal(err)
	}
	job, _ := res.StructuredContent.(map[string]any)
	if res.IsError || job["status"] != "success" || job["plan"] == nil {
		t.Fatalf("plan: %+v", res)
	}
	if n.Load() != 1 {
		t.Fatalf("elicited %d times, want 1", n.Load())
	}
}

// TestMCP: MCP over stdio and streamable HTTP: elicitation, the hard cap,
// the limits per API key, the npm clients and the conformance suite.
func TestMCP(t *testing.T) {
	t.Run("StdioPlansWithOneElicitation", mcpStdioPlansWithOneElicitation)
	t.Run("OverHTTPPlansWithOneElicitation", mcpOverHTTPPlansWithOneElicitation)
	t.Run("ServerModeAskUserHardCap", mcpServerModeAskUserHardCap)
	t.Run("CallOutlivesTheWriteTimeout", mcpCallOutlivesTheWriteTimeout)
	t.Run("ServerModePlanSendsCandidates", mcpServerModePlanSendsCandidates)
	t.Run("IdleSessionsAreReclaimed", mcpIdleSessionsAreReclaimed)
	t.Run("SessionCapClosesTheLeastRecentlyUsedIdleSession", mcpSessionCapClosesTheLeastRecentlyUsedIdleSession)
	t.Run("SessionCapIsAJSONRPCErrorWhenEverySessionIsBusy", mcpSessionCapIsAJSONRPCErrorWhenEverySessionIsBusy)
	t.Run("SessionCapIsPerAPIKey", mcpSessionCapIsPerAPIKey)
	t.Run("CallCapIsPerAPIKey", mcpCallCapIsPerAPIKey)
	t.Run("WaitingCallEndsWhenItsClientLeaves", mcpWaitingCallEndsWhenItsClientLeaves)
	t.Run("StdioAnswersMalformedLinesAndKeepsServing", mcpStdioAnswersMalformedLinesAndKeepsServing)
	t.Run("StdioAnswersRequestsPipedBeforeEndOfInput", mcpStdioAnswersRequestsPipedBeforeEndOfInput)
	t.Run("NpmClientsPlanWithOneElicitation", mcpNpmClientsPlanWithOneElicitation)
	t.Run("ConformanceSuite", mcpConformanceSuite)
	t.Run("NpmClientProjectMemory", mcpNpmClientProjectMemory)
	t.Run("NpmClientTypedAnswers", mcpNpmClientTypedAnswers)
}

// askonce mcp serves the tools over stdio on the embedded engine, to
// clients of both protocol eras.
func mcpStdioPlansWithOneElicitation(t *testing.T) {
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			var n atomic.Int32
			cmd := exec.Command(builtBinary(t), "mcp", "--db", filepath.Join(t.TempDir(), "a.db"))
			planOnce(t, mcpSession(t, &sdk.CommandTransport{Command: cmd}, v, &n), &n)
		})
	}
}

// askonce serve serves the same tools at /mcp over streamable HTTP.
func mcpOverHTTPPlansWithOneElicitation(t *testing.T) {
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			var n atomic.Int32
			planOnce(t, mcpSession(t, &sdk.StreamableClientTransport{Endpoint: in.base + "/mcp"}, v, &n), &n)
		})
	}
}

// askonce mcp --server acts on a running askonce; ask_user's hard cap holds
// over three calls there too.
func mcpServerModeAskUserHardCap(t *testing.T) {
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	var n atomic.Int32
	cmd := exec.Command(builtBinary(t), "mcp", "--server", in.base)
	cs := mcpSession(t, &sdk.CommandTransport{Command: cmd}, "2025-11-25", &n)
	q := map[string]any{"question": "Which module?", "type": "SELECT_ONE", "options": []string{"billing", "invoices"}}
	var actions []string
	for range 3 {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: q})
		if err != nil || res.IsError {
			t.Fatalf("ask_user: %v %+v", err, res)
		}
		out := res.StructuredContent.(map[string]any)
		actions = append(actions, out["action"].(string))
		if job := out["job"].(map[string]any); job["status"] != "planning" {
			t.Fatalf("job %v", job)
		}
	}
	if got := strings.Join(actions, ","); got != "resume,proceed,proceed" || n.Load() != 1 {
		t.Fatalf("actions %s, elicitations %d; want resume,proceed,proceed and 1", got, n.Load())
	}
}

// A person may take longer to answer an elicitation than the API's write
// timeout: a 2025-11-25 client's plan call over /mcp outlives
// --write-timeout and still gets its plan.
func mcpCallOutlivesTheWriteTimeout(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--write-timeout", "1s", "--sync-wait", "500ms")
	var n atomic.Int32
	answer := firstOption(&n)
	slow := func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		time.Sleep(2500 * time.Millisecond) // the person reads and thinks
		return answer(ctx, req)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "slow-person", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: slow})
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: in.base + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	planOnce(t, cs, &n)
}

// askonce mcp --server passes the plan tool's candidates on to the running
// askonce: its job shows them.
func mcpServerModePlanSendsCandidates(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	var n atomic.Int32
	cmd := exec.Command(builtBinary(t), "mcp", "--server", in.base)
	cs := mcpSession(t, &sdk.CommandTransport{Command: cmd}, "2025-11-25", &n)
	names := []string{"staging", "production"}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "plan", Arguments: map[string]any{
		"goal": "write the README then add tests", "candidates": names}})
	if err != nil || res.IsError {
		t.Fatalf("plan: %v %+v", err, res)
	}
	id, _ := res.StructuredContent.(map[string]any)["jobId"].(string)
	g := in.do("GET", "/jobs/"+id, nil)
	got, _ := g.body["candidates"].([]any)
	if g.status != 200 || len(got) != 2 || got[0] != "staging" || got[1] != "production" {
		t.Fatalf("GET /jobs/%s: %d %s; want candidates %q", id, g.status, g.raw, names)
	}
}
