package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/mcp"
	"github.com/askonce/askonce/metrics"
	"github.com/askonce/askonce/sqlite"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Both protocol eras: server-initiated elicitation, and Multi Round-Trip
// Requests.
var versions = []string{"2025-11-25", "2026-07-28"}

// questions the test interpreter asks, by goal.
var questions = map[string]string{
	"ask select":  `{"question":{"type":"SELECT_ONE","text":"Which module?","options":["billing","invoices"]}}`,
	"ask other":   `{"question":{"type":"SELECT_ONE","text":"Which module?","options":["billing","invoices"],"allowOther":true}}`,
	"ask confirm": `{"question":{"type":"CONFIRM","text":"Delete notes.md?","reason":"target_file_exists","default":"no"}}`,
	"ask file":    `{"question":{"type":"TARGET_FILE","text":"Which file?","options":["a.md","docs/b.md"]}}`,
	"ask text":    `{"question":{"type":"FREE_TEXT","text":"Which colour?"}}`,
	"ask default": `{"question":{"type":"CONFIRM","text":"Delete the billing module?","reason":"target_file_exists","default":"no"}}`,
	"ask fields": `{"question":{"text":"Before the deploy:","fields":[
		{"name":"environment","type":"SELECT_ONE","text":"Which environment?","options":["staging","production"],"allowOther":true,"required":true},
		{"name":"replicas","type":"FREE_TEXT","text":"How many replicas?","default":"2"},
		{"name":"migrate","type":"CONFIRM","text":"Run the migrations?","required":true}]}}`,
	"ask typed": `{"question":{"text":"Before the deploy:","fields":[
		{"name":"replicas","type":"NUMBER","text":"How many replicas?","integer":true,"minimum":1,"maximum":10,"required":true},
		{"name":"db","type":"SELECT_ONE","text":"Which database?","options":["Postgres","postgres"],"optionTitles":["Postgres (managed)","postgres (ours)"]},
		{"name":"zones","type":"SELECT_MANY","text":"Which zones?","options":["eu","us","ap"],"maxItems":2},
		{"name":"start","type":"FREE_TEXT","text":"From when?","format":"date"},
		{"name":"migrate","type":"CONFIRM","text":"Run the migrations?"}]}}`,
}

// interpret is the test interpreter: it asks the goal's question, and
// plans one task named after the answer once it has one (or a
// directive).
func interpret(_ context.Context, req *askonce.Request) (*askonce.Response, error) {
	q, asks := questions[req.Goal]
	if !asks || strings.Contains(req.Prompt, askonce.AnswerMarker) || req.Directive != "" {
		answer := "nothing"
		if i := strings.LastIndex(req.Prompt, askonce.AnswerMarker); i >= 0 {
			answer = req.Prompt[i+len(askonce.AnswerMarker):]
		}
		plan := map[string]any{"title": "Plan for " + req.Goal, "plan": map[string]any{"tasks": []any{
			map[string]any{"id": "t1", "title": "Use " + answer, "instruction": "do it", "dependsOn": []string{}},
		}}}
		b, _ := json.Marshal(plan)
		return &askonce.Response{Raw: b}, nil
	}
	return &askonce.Response{Raw: []byte(q)}, nil
}

// env is an engine on a real SQLite file with answer links, and the MCP
// server over it.
type env struct {
	t      *testing.T
	engine *askonce.Engine
	reg    *metrics.Registry
	server *sdk.Server
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	eng := &askonce.Engine{Store: st, Interpreter: askonce.InterpreterFunc(interpret), LinkSecret: []byte("test link secret, 32 bytes long!")}
	t.Cleanup(func() { eng.Drain(context.Background()) })
	reg := metrics.NewRegistry()
	srv := mcp.New(mcp.Config{Engine: eng, PublicURL: "http://askonce.test", Metrics: reg, PollInterval: 10 * time.Millisecond})
	return &env{t: t, engine: eng, reg: reg, server: srv}
}

// elicitor is a client's elicitation handler that answers from a list and
// records what it was asked.
type elicitor struct {
	mu      sync.Mutex
	asked   []*sdk.ElicitParams
	answers []func(*sdk.ElicitParams) *sdk.ElicitResult
}

func (e *elicitor) handle(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, req.Params)
	if len(e.asked) > len(e.answers) {
		return nil, fmt.Errorf("elicited %d times; the test has %d answers", len(e.asked), len(e.answers))
	}
	return e.answers[len(e.asked)-1](req.Params), nil
}

func (e *elicitor) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.asked)
}

func accept(answer string) func(*sdk.ElicitParams) *sdk.ElicitResult {
	return func(*sdk.ElicitParams) *sdk.ElicitResult {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}
	}
}

func action(a string) func(*sdk.ElicitParams) *sdk.ElicitResult {
	return func(*sdk.ElicitParams) *sdk.ElicitResult { return &sdk.ElicitResult{Action: a} }
}

type clientOptions struct {
	version string
	elicit  *elicitor // nil: the client has no elicitation capability
	urlOnly bool
	noMRTR  bool // handle input_required results by hand
}

// connect connects an SDK client to the env's server over an in-memory
// transport.
func (e *env) connect(o clientOptions) *sdk.ClientSession {
	e.t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := e.server.Connect(ctx, st, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { ss.Close() })
	return connectClient(e.t, ct, o)
}

func connectClient(t *testing.T, tr sdk.Transport, o clientOptions) *sdk.ClientSession {
	t.Helper()
	opts := &sdk.ClientOptions{}
	if o.elicit != nil {
		opts.ElicitationHandler = o.elicit.handle
	}
	if o.urlOnly {
		opts.Capabilities = &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{URL: &sdk.URLElicitationCapabilities{}}}
	}
	if o.noMRTR {
		opts.MultiRoundTrip = &sdk.MultiRoundTripOptions{Disabled: true}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: o.version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != o.version {
		t.Fatalf("negotiated %s, want %s", got, o.version)
	}
	return cs
}

// call calls a tool and decodes its structured content into out. A tool
// error fails the test.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, text(res))
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res
}

// toolError calls a tool that must fail as a tool error and returns its
// message.
func toolError(t *testing.T, cs *sdk.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v, want a tool error", name, err)
	}
	if !res.IsError {
		t.Fatalf("%s: succeeded (%s), want a tool error", name, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func (e *env) eventCount(tenant, id string, typ askonce.EventType) int {
	e.t.Helper()
	evs, err := e.engine.Events(context.Background(), tenant, id, 0, 1000)
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

func (e *env) metric(line string) bool {
	var b strings.Builder
	e.reg.WriteText(&b)
	return strings.Contains(b.String(), line)
}

var (
	jsonMarshal   = json.Marshal
	jsonUnmarshal = json.Unmarshal
)
