package mcp_test

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/mcp"
	"github.com/askonce/askonce/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A requestState is taken only with its own signature: one that names a
// real job of the caller's tenant under a wrong signature, or whose round
// counter was changed, is refused, and the job is left as it was.
func TestBadInput_RequestStateIsRefusedByItsSignatureEvenForARealJob(t *testing.T) {
	e := newEnv(t)
	cs := e.connect(clientOptions{version: versions[1], elicit: &elicitor{}, noMRTR: true})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolPlan, Arguments: map[string]any{"goal": "ask select"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() {
		t.Fatalf("want input_required, got %+v", res)
	}
	payload, sig, ok := strings.Cut(res.RequestState, ".")
	if !ok {
		t.Fatalf("requestState %q has no signature", res.RequestState)
	}
	var st struct {
		Job   string `json:"j"`
		Tries int    `json:"n"`
		Mode  string `json:"m"`
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil || jsonUnmarshal(raw, &st) != nil || st.Job == "" {
		t.Fatalf("requestState payload %q: %v", raw, err)
	}
	if _, err := e.engine.Get(context.Background(), askonce.DefaultTenant, st.Job); err != nil {
		t.Fatalf("the requestState names no job of the tenant: %v", err)
	}
	badSig, _ := base64.RawURLEncoding.DecodeString(sig)
	badSig[0] ^= 1
	st.Tries = 1
	nextRound, _ := jsonMarshal(st)

	answer := sdk.InputResponseMap{"answer": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "billing"}}}
	for name, state := range map[string]string{
		"a real job under a wrong signature": payload + "." + base64.RawURLEncoding.EncodeToString(badSig),
		"a changed round counter":            base64.RawURLEncoding.EncodeToString(nextRound) + "." + sig,
	} {
		_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolPlan, Arguments: map[string]any{"goal": "ask select"}, RequestState: state, InputResponses: answer})
		if err == nil || !strings.Contains(err.Error(), "requestState") {
			t.Fatalf("%s: %v, want the requestState error", name, err)
		}
		if j, err := e.engine.Get(context.Background(), askonce.DefaultTenant, st.Job); err != nil || j.Status != askonce.StatusPending {
			t.Fatalf("%s changed the job: %v %+v", name, err, j)
		}
	}
}

// An accepted answer that the question does not take is asked again at
// most mcp.MaxReElicit times: exactly at the limit the last answer still
// counts; one past it nobody is asked again and the job is left pending.
func TestAskUser_ReElicitLimitBoundary(t *testing.T) {
	colour := map[string]any{"question": "Which colour?", "type": "FREE_TEXT"}
	invalid := accept("   ") // takes the form's schema, not the question
	for _, v := range versions {
		t.Run(v+"/at the limit", func(t *testing.T) {
			e := newEnv(t)
			answers := []func(*sdk.ElicitParams) *sdk.ElicitResult{}
			for range mcp.MaxReElicit {
				answers = append(answers, invalid)
			}
			el := &elicitor{answers: append(answers, accept("teal"))}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var r mcp.AskResult
			call(t, cs, mcp.ToolAskUser, colour, &r)
			if r.Action != "resume" || r.Answer != "teal" {
				t.Fatalf("after %d invalid answers and a valid one: %+v, want resume with teal", mcp.MaxReElicit, r)
			}
			if el.count() != mcp.MaxReElicit+1 {
				t.Fatalf("elicited %d times, want %d", el.count(), mcp.MaxReElicit+1)
			}
		})
		t.Run(v+"/one past the limit", func(t *testing.T) {
			e := newEnv(t)
			answers := []func(*sdk.ElicitParams) *sdk.ElicitResult{}
			for range mcp.MaxReElicit + 2 { // one more than may be asked
				answers = append(answers, invalid)
			}
			el := &elicitor{answers: answers}
			cs := e.connect(clientOptions{version: v, elicit: el})
			var r mcp.AskResult
			call(t, cs, mcp.ToolAskUser, colour, &r)
			if r.Action != "wait" || r.Job.Status != "pending" {
				t.Fatalf("after %d invalid answers: %+v, want wait with the job pending", mcp.MaxReElicit+1, r)
			}
			if el.count() != mcp.MaxReElicit+1 {
				t.Fatalf("elicited %d times, want %d", el.count(), mcp.MaxReElicit+1)
			}
		})
	}
}

// A client that declares "elicitation": {} (no modes, as before
// 2025-11-25) takes forms: plan puts the question to it as a form.
func TestPlan_ClientDeclaringEmptyElicitationGetsAForm(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			e := newEnv(t)
			el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{accept("invoices")}}
			ct, st := sdk.NewInMemoryTransports()
			ss, err := e.server.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			c := sdk.NewClient(&sdk.Implementation{Name: "bare-elicitation", Version: "1"}, &sdk.ClientOptions{
				ElicitationHandler: el.handle,
				Capabilities:       &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{}},
			})
			cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if v < "2026-07-28" {
				got := ss.InitializeParams().Capabilities.Elicitation
				if got == nil || got.Form != nil || got.URL != nil {
					t.Fatalf("the client declared %+v, want elicitation: {}", got)
				}
			}
			// A URL elicitation would wait for the answer page: bounded.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolPlan, Arguments: map[string]any{"goal": "ask select"}})
			if err != nil || res.IsError {
				t.Fatalf("plan: %v %+v (elicitations: %+v)", err, res, el.asked)
			}
			var job mcp.JobResult
			decode(t, res, &job)
			if el.count() != 1 || el.asked[0].Mode == "url" || el.asked[0].RequestedSchema == nil {
				t.Fatalf("elicited %d times, first %+v; want one form", el.count(), el.asked)
			}
			if job.Status != "success" || job.Answer != "invoices" {
				t.Fatalf("job %+v, want answered invoices", job)
			}
		})
	}
}

// Over a running askonce (Config.Client), whose jobs do not show the
// fallback flags, ask_user remembers the jobs it told to proceed: the
// third call proceeds again without reporting, so the job stays planning
// and nobody is asked twice.
func TestAskUser_ProceedIsRememberedOverTheHTTPAPI(t *testing.T) {
	e := newEnv(t)
	api := httptest.NewServer(server.New(server.Config{Engine: e.engine}))
	t.Cleanup(api.Close)
	cl, err := client.New(api.URL)
	if err != nil {
		t.Fatal(err)
	}
	over := &env{t: t, engine: e.engine, reg: e.reg, server: mcp.New(mcp.Config{Client: cl})}
	el := &elicitor{answers: []func(*sdk.ElicitParams) *sdk.ElicitResult{accept("invoices")}}
	cs := over.connect(clientOptions{version: versions[0], elicit: el})
	var actions []string
	var last mcp.AskResult
	for _, q := range []string{"Which module?", "Which currency?", "Really, which module?"} {
		call(t, cs, mcp.ToolAskUser, with(moduleQuestion, "question", q), &last)
		actions = append(actions, last.Action)
	}
	if got := strings.Join(actions, ","); got != "resume,proceed,proceed" || el.count() != 1 {
		t.Fatalf("actions %s, elicitations %d; want resume,proceed,proceed and 1", got, el.count())
	}
	j, err := e.engine.Get(context.Background(), askonce.DefaultTenant, last.JobID)
	if err != nil || j.Status != askonce.StatusPlanning {
		t.Fatalf("the job after three calls: %v %+v, want still planning", err, j)
	}
}

// Over /mcp a 2026-07-28 call that waits for the answer page (URL-mode
// elicitation accepted) ends when its client's request is gone: the
// in-flight gauge goes back to 0 while the job stays pending.
func TestHTTP_WaitingCallEndsWhenItsClientLeaves(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewServer(mcp.Handler(e.server, mcp.HTTPOptions{Metrics: e.reg}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		// A call still waiting would hold srv.Close: end its wait.
		page, _ := e.engine.List(context.Background(), askonce.DefaultTenant, askonce.JobFilter{Limit: 10})
		for _, j := range page.Jobs {
			e.engine.Act(context.Background(), askonce.Act{Do: askonce.ActCancel, ID: j.ID})
		}
	})
	cs := connectClient(t, &sdk.StreamableClientTransport{Endpoint: srv.URL}, clientOptions{version: versions[1], elicit: &elicitor{}, urlOnly: true, noMRTR: true})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: mcp.ToolPlan, Arguments: map[string]any{"goal": "ask select"}})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("want input_required with the answer link: %v %+v", err, res)
	}
	ctx, leave := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolPlan, Arguments: map[string]any{"goal": "ask select"},
			RequestState: res.RequestState, InputResponses: sdk.InputResponseMap{"answer": &sdk.ElicitResult{Action: "accept"}}})
		done <- err
	}()
	waitFor(t, "the call waiting on the answer page", func() bool { return e.metric("askonce_mcp_calls_in_flight 1") })
	leave()
	<-done
	waitFor(t, "askonce_mcp_calls_in_flight back to 0", func() bool { return e.metric("askonce_mcp_calls_in_flight 0") })
	page, err := e.engine.List(context.Background(), askonce.DefaultTenant, askonce.JobFilter{Limit: 10})
	if err != nil || len(page.Jobs) != 1 || page.Jobs[0].Status != askonce.StatusPending {
		t.Fatalf("the job after the client left: %v %+v, want one pending", err, page)
	}
}

// waitFor polls cond until it holds, for at most 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
