package mcp_test

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
	"github.com/askonce/askonce/mcp"
)

// The result of a form elicitation reads its job once: the state's job
// is read, and the answer is applied to it as read. The call reaches
// another MCP server than the one that asked (another process on the
// same store, as a stateless deployment has it), so its engine holds no
// copy of the job. The plan tool's elicitation is its second call, with
// its requestState; ask_user's (a gate job's question) also reports the
// question again, to hand the answer over, on the job the answer left.
func TestJobReadOnce_MCPElicitationResult(t *testing.T) {
	for _, c := range []struct {
		tool     string
		args     map[string]any
		answered func(t *testing.T, res *sdk.CallToolResult)
	}{
		{mcp.ToolPlan, map[string]any{"goal": "ask select"}, func(t *testing.T, res *sdk.CallToolResult) {
			var job mcp.JobResult
			decode(t, res, &job)
			if job.Status != "success" || job.Answer != "billing" {
				t.Fatalf("job %+v, want answered billing", job)
			}
		}},
		{mcp.ToolAskUser, map[string]any{"question": "Which module?", "type": "SELECT_ONE", "options": []string{"billing", "invoices"}, "sessionId": "s1"}, func(t *testing.T, res *sdk.CallToolResult) {
			var out mcp.AskResult
			decode(t, res, &out)
			if out.Action != "resume" || out.Answer != "billing" {
				t.Fatalf("ask_user %+v, want resume with billing", out)
			}
		}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			st := answertest.Counting(t)
			asker, answerer := twoServers(t, st)
			res, err := asker.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil || !res.NeedsInput() || res.RequestState == "" {
				t.Fatalf("want input_required with a requestState, got %+v %v", res, err)
			}
			st.Reset()
			resp := sdk.InputResponseMap{"answer": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "billing"}}}
			res, err = answerer.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args, RequestState: res.RequestState, InputResponses: resp})
			if err != nil || res.IsError {
				t.Fatalf("elicitation result: %v %s", err, text(res))
			}
			c.answered(t, res)
			if n := st.Jobs(); n != 1 {
				t.Errorf("the elicitation result read the job %d times; want 1", n)
			}
		})
	}
}

// twoServers are two MCP servers, each with an engine of its own, on one
// store (two processes of a stateless deployment), and a client of each
// that handles input_required results by hand.
func twoServers(t *testing.T, st *answertest.CountingStore) (*sdk.ClientSession, *sdk.ClientSession) {
	secret := []byte("test state secret, 32 bytes long")
	server := func() *sdk.ClientSession {
		eng := &askonce.Engine{Store: st, Interpreter: askonce.InterpreterFunc(interpret)}
		t.Cleanup(func() { eng.Drain(context.Background()) })
		srv := mcp.New(mcp.Config{Engine: eng, StateSecret: secret, PollInterval: 10 * time.Millisecond})
		ct, stt := sdk.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), stt, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return connectClient(t, ct, clientOptions{version: versions[1], elicit: &elicitor{}, noMRTR: true})
	}
	return server(), server()
}
