package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var moduleQuestion = map[string]any{"question": "Which module?", "type": "SELECT_ONE", "options": []string{"billing", "invoices"}}

func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// The hard cap over three calls: the first asks and resumes with the
// answer, the second and third proceed under the fallback directive and
// ask nobody, all without a job id (the session's open job).
func TestAskUser_HardCapOverThreeCalls(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{accept("invoices")}}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var r1, r2, r3 mcp.AskResult
			res := call(t, cs, mcp.ToolAskUser, moduleQuestion, &r1)
			if r1.Action != "resume" || r1.Answer != "invoices" || !strings.HasSuffix(r1.ResolvedPrompt, askonce.AnswerMarker+"invoices") {
				t.Fatalf("first call: %+v", r1)
			}
			if !strings.Contains(text(res), "invoices") {
				t.Fatalf("first call text %q", text(res))
			}
			call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "question", "Which currency?"), &r2)
			res = call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "question", "Really which module?"), &r3)
			for i, r := range []mcp.AskResult{r2, r3} {
				if r.Action != "proceed" || r.Directive != askonce.FallbackDirective || r.JobID != r1.JobID {
					t.Fatalf("call %d: %+v, want proceed on job %s", i+2, r, r1.JobID)
				}
			}
			if !strings.Contains(text(res), "Do not request further clarification") {
				t.Fatalf("third call text %q", text(res))
			}
			if el.count() != 1 {
				t.Fatalf("elicited %d times over three calls, want 1", el.count())
			}
			if r3.Job.Status != "planning" {
				t.Fatalf("the cap failed the job: %+v", r3.Job)
			}
			var done mcp.AskResult
			call(t, cs, mcp.ToolReportPlan, map[string]any{"jobId": r1.JobID, "plan": map[string]any{"title": "Refactor", "tasks": []any{map[string]any{"id": "t1", "title": "Refactor invoices"}}}}, &done)
			if done.Action != "done" || done.Job.Status != "success" || done.Job.Plan.Tasks[0].Title != "Refactor invoices" {
				t.Fatalf("report_plan: %+v", done)
			}
		})
	}
}

// Without elicitation: ask returns the question, a second call waits, the
// answer tool answers, the next call resumes with it.
func TestAskUser_WaitWhilePendingThenResume(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[1]})
	var r mcp.AskResult
	call(t, cs, mcp.ToolAskUser, moduleQuestion, &r)
	if r.Action != "ask" || r.Question.Text != "Which module?" || r.AnswerURL == "" {
		t.Fatalf("first: %+v", r)
	}
	id := r.JobID
	call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "question", "Another?"), &r)
	if r.Action != "wait" || r.JobID != id || r.Question.Text != "Which module?" {
		t.Fatalf("second: %+v", r)
	}
	call(t, cs, mcp.ToolAnswer, map[string]any{"jobId": id, "answer": "billing"}, nil)
	call(t, cs, mcp.ToolAskUser, moduleQuestion, &r)
	if r.Action != "resume" || r.Answer != "billing" || r.JobID != id {
		t.Fatalf("third: %+v", r)
	}
}

// The repeat guard: the same question in a second job of the session is
// answered from history, without eliciting.
func TestAskUser_RepeatGuardAcrossTwoJobsOfOneSession(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{accept("billing")}}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var r1, r2 mcp.AskResult
			call(t, cs, mcp.ToolAskUser, moduleQuestion, &r1)
			call(t, cs, mcp.ToolReportPlan, map[string]any{"jobId": r1.JobID, "plan": map[string]any{"tasks": []any{map[string]any{"id": "t1", "title": "A"}}}}, nil)
			call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "question", "which module"), &r2)
			if r2.JobID == r1.JobID || r2.Action != "resume" || r2.Answer != "billing" || r2.Job.AnswerSource != "history" {
				t.Fatalf("second job: %+v", r2)
			}
			if r2.Job.SessionID != r1.Job.SessionID {
				t.Fatalf("sessions %s and %s", r1.Job.SessionID, r2.Job.SessionID)
			}
			if el.count() != 1 {
				t.Fatalf("elicited %d times, want 1", el.count())
			}
		})
	}
}

// A new task key starts a new job; the old key still finds its own.
func TestAskUser_NewTaskKeyStartsANewJob(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[0]})
	var a, b, a2 mcp.AskResult
	call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "task", "A"), &a)
	call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "task", "B", "question", "Which colour?", "type", "FREE_TEXT", "options", nil), &b)
	call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "task", "A"), &a2)
	if a.JobID == b.JobID || b.Action != "ask" || a2.JobID != a.JobID || a2.Action != "wait" {
		t.Fatalf("A %+v\nB %+v\nA again %+v", a, b, a2)
	}
}

// Declining a gate question without a default resumes under the
// directive; cancel closes the job, and the next call opens a new one.
func TestAskUser_DeclineAndCancel(t *testing.T) {
	e := newEnv(t)
	el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{action("decline"), action("cancel")}}
	cs := e.connect(clientOptions{version: versions[1], elicit: el})
	var r mcp.AskResult
	call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "task", "one"), &r)
	if r.Action != "resume" || r.Directive != askonce.FallbackDirective {
		t.Fatalf("declined: %+v", r)
	}
	call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "task", "two"), &r)
	if r.Action != "fail" || r.Job.Status != "cancelled" {
		t.Fatalf("cancelled: %+v", r)
	}
}

func TestTools_GetJobListPendingAndJobResource(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[1]})
	var job mcp.JobResult
	call(t, cs, mcp.ToolPlan, map[string]any{"goal": "ask select", "sessionId": "s1"}, &job)
	var got mcp.JobResult
	call(t, cs, mcp.ToolGetJob, map[string]any{"jobId": job.JobID}, &got)
	if got.JobID != job.JobID || got.Status != "pending" {
		t.Fatalf("get_job: %+v", got)
	}
	var list mcp.ListResult
	call(t, cs, mcp.ToolListPending, map[string]any{"sessionId": "s1"}, &list)
	if len(list.Jobs) != 1 || list.Jobs[0].JobID != job.JobID {
		t.Fatalf("list_pending: %+v", list)
	}
	call(t, cs, mcp.ToolListPending, map[string]any{"sessionId": "other"}, &list)
	if len(list.Jobs) != 0 {
		t.Fatalf("another session's list: %+v", list)
	}
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "askonce://jobs/" + job.JobID})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Contents[0]; c.MIMEType != "application/json" || !strings.Contains(c.Text, `"jobId": "`+job.JobID+`"`) {
		t.Fatalf("resource: %+v", c)
	}
	if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "askonce://jobs/nope"}); err == nil {
		t.Fatal("an unknown job's resource was read")
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Annotations == nil || tl.OutputSchema == nil || tl.InputSchema == nil {
			t.Fatalf("tool %s lacks annotations or schemas", tl.Name)
		}
		if tl.Name == mcp.ToolAskUser && !strings.Contains(tl.Description, "ONE clarifying question") {
			t.Fatalf("ask_user description: %q", tl.Description)
		}
	}
	if len(tools.Tools) != 6 {
		t.Fatalf("%d tools", len(tools.Tools))
	}
}

func TestBadInput_UnknownArgumentsAndOversizedArgumentsAreToolErrors(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[0]})
	msg := toolError(t, cs, mcp.ToolPlan, map[string]any{"goal": "x", "colour": "red"})
	if !strings.Contains(msg, "colour") {
		t.Fatalf("unknown argument: %q", msg)
	}
	msg = toolError(t, cs, mcp.ToolPlan, map[string]any{"goal": strings.Repeat("x", mcp.DefaultMaxArguments+1)})
	if !strings.Contains(msg, "limit") {
		t.Fatalf("oversized: %q", msg)
	}
	msg = toolError(t, cs, mcp.ToolPlan, map[string]any{"goal": "  "})
	if !strings.Contains(msg, "goal is empty") {
		t.Fatalf("empty goal: %q", msg)
	}
	msg = toolError(t, cs, mcp.ToolAskUser, map[string]any{"question": "Which?", "type": "SELECT_ONE"})
	if !strings.Contains(msg, "at least two options") {
		t.Fatalf("bad question: %q", msg)
	}
}

// A requestState is signed for its tenant: another tenant's, or a forged
// one, is an error.
func TestBadInput_RequestStateOfAnotherTenantIsAnError(t *testing.T) {
	e := newEnv(t)
	keys, err := auth.LoadKeys(strings.NewReader("alpha " + auth.HashKey("key-a") + "\nbeta " + auth.HashKey("key-b") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mcp.Handler(e.server, mcp.HTTPOptions{Tenant: keys.Tenant}))
	t.Cleanup(srv.Close)
	a := httpClient(t, srv.URL, "key-a", clientOptions{version: versions[1], elicit: &elicitor{}, noMRTR: true})
	b := httpClient(t, srv.URL, "key-b", clientOptions{version: versions[1], elicit: &elicitor{}, noMRTR: true})
	res, err := a.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolPlan, Arguments: map[string]any{"goal": "ask select"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.RequestState == "" || res.InputRequests["answer"] == nil {
		t.Fatalf("want input_required with a form, got %+v", res)
	}
	resp := sdk.InputResponseMap{"answer": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "billing"}}}
	for name, state := range map[string]string{"another tenant's": res.RequestState, "forged": "eyJqIjoieCJ9.AAAA"} {
		_, err = b.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolPlan, Arguments: map[string]any{"goal": "ask select"}, RequestState: state, InputResponses: resp})
		if err == nil || !strings.Contains(err.Error(), "requestState") {
			t.Fatalf("%s requestState: %v, want an error", name, err)
		}
	}
	var job mcp.JobResult
	res, err = a.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolPlan, Arguments: map[string]any{"goal": "ask select"}, RequestState: res.RequestState, InputResponses: resp})
	if err != nil || res.IsError {
		t.Fatalf("own requestState: %v %s", err, text(res))
	}
	decode(t, res, &job)
	if job.Status != "success" || job.Answer != "billing" {
		t.Fatalf("job %+v", job)
	}
}

// Over /mcp with two keys each tenant sees only its own jobs; no key is
// 401.
func TestHTTP_TenancyWithTwoKeys(t *testing.T) {
	e := newEnv(t)
	keys, err := auth.LoadKeys(strings.NewReader("alpha " + auth.HashKey("key-a") + "\nbeta " + auth.HashKey("key-b") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mcp.Handler(e.server, mcp.HTTPOptions{Tenant: keys.Tenant}))
	t.Cleanup(srv.Close)
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			a := httpClient(t, srv.URL, "key-a", clientOptions{version: v})
			b := httpClient(t, srv.URL, "key-b", clientOptions{version: v})
			var job mcp.JobResult
			call(t, a, mcp.ToolPlan, map[string]any{"goal": "ask select", "sessionId": "shared-" + v}, &job)
			stored, err := e.engine.Get(context.Background(), "alpha", job.JobID)
			if err != nil || stored.TenantID != "alpha" {
				t.Fatalf("the job is not alpha's: %v", err)
			}
			if msg := toolError(t, b, mcp.ToolGetJob, map[string]any{"jobId": job.JobID}); !strings.Contains(msg, "not found") && !strings.Contains(msg, "no job") {
				t.Fatalf("beta read alpha's job: %q", msg)
			}
			var list mcp.ListResult
			call(t, b, mcp.ToolListPending, map[string]any{"sessionId": "shared-" + v}, &list)
			if len(list.Jobs) != 0 {
				t.Fatalf("beta lists alpha's jobs: %+v", list)
			}
			call(t, a, mcp.ToolListPending, map[string]any{"sessionId": "shared-" + v}, &list)
			if len(list.Jobs) != 1 {
				t.Fatalf("alpha lists %+v", list)
			}
		})
	}
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no key: %d, want 401", resp.StatusCode)
	}
}

// keyTransport adds an API key to every request.
type keyTransport struct{ key string }

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-API-Key", k.key)
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(t *testing.T, url, key string, o clientOptions) *sdk.ClientSession {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: keyTransport{key}}}
	return connectClient(t, tr, o)
}

func decode(t *testing.T, res *sdk.CallToolResult, out any) {
	t.Helper()
	b, err := jsonMarshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonUnmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
