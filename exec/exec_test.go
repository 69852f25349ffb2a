//go:build unix

package exec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/exec"
	"github.com/askonce/askonce/sqlite"
)

var ctx = context.Background()

// plugin is the example plug-in shipped in examples/exec-plugin.
var plugin = filepath.Join("..", "examples", "exec-plugin", "plugin.py")

func python(t testing.TB) string {
	t.Helper()
	p, err := osexec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	return p
}

func newInterpreter(t testing.TB, args ...string) *exec.Interpreter {
	t.Helper()
	in, err := exec.New(exec.Config{Command: append([]string{python(t)}, args...)})
	if err != nil {
		t.Fatalf("exec.New: %v", err)
	}
	return in
}

func misbehave(t testing.TB, args ...string) *exec.Interpreter {
	return newInterpreter(t, append([]string{filepath.Join("testdata", "misbehave.py")}, args...)...)
}

func newEngine(t testing.TB, in askonce.Interpreter) *askonce.Engine {
	t.Helper()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return &askonce.Engine{Store: st, Interpreter: in}
}

func attempts(t testing.TB, e *askonce.Engine, j *askonce.Job) []askonce.Attempt {
	t.Helper()
	as, err := e.Attempts(ctx, j.TenantID, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	return as
}

// The example plug-in asks one question about the goal's alternatives,
// and the answer (in the resolved prompt) settles the plan.
func TestExamplePluginAskAnswerPlan(t *testing.T) {
	t.Parallel()
	e := newEngine(t, newInterpreter(t, plugin))

	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "Write the report in markdown or html. Then publish it."})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusPending || j.Question == nil || j.Question.Type != askonce.QuestionSelectOne ||
		strings.Join(j.Question.Options, ",") != "markdown,html" || j.Question.Default != "" {
		t.Fatalf("create: status %s error %q question %+v", j.Status, j.Error, j.Question)
	}
	j, _, err = e.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer("html")})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess || j.Plan == nil || len(j.Plan.Tasks) != 2 || j.Plan.Tasks[1].DependsOn[0] != "t1" {
		t.Fatalf("answer: status %s error %q plan %+v", j.Status, j.Error, j.Plan)
	}
	var spec struct{ Choice, Answer string }
	if err := json.Unmarshal(j.Plan.Spec, &spec); err != nil || spec.Choice != "html" || spec.Answer != "html" {
		t.Errorf("spec %s: %v", j.Plan.Spec, err)
	}
	// The plug-in's usage object is the attempts' usage, and adds up.
	as := attempts(t, e, j)
	if len(as) != 2 || as[0].Usage.PromptTokens == 0 || as[1].Usage.CompletionTokens == 0 {
		t.Fatalf("attempts %+v", as)
	}
	if got := as[0].Usage.Add(as[1].Usage); j.Usage.PromptTokens != got.PromptTokens || j.Usage.CompletionTokens != got.CompletionTokens {
		t.Errorf("job usage %+v, attempts sum to %+v", j.Usage, got)
	}
}

// A goal without alternatives is planned at once; a directive forbids the
// question and the choice becomes an assumption.
func TestExamplePluginPlans(t *testing.T) {
	t.Parallel()
	in := newInterpreter(t, plugin)
	e := newEngine(t, in)
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "Add a health check; then document it"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusSuccess || j.ClarificationStatus != askonce.ClarificationSkipped || len(j.Plan.Tasks) != 2 {
		t.Fatalf("status %s clarification %s plan %+v", j.Status, j.ClarificationStatus, j.Plan)
	}

	resp, err := in.Interpret(ctx, &askonce.Request{Goal: "use tabs or spaces", Prompt: "use tabs or spaces", Attempt: 1,
		Reason: askonce.ReasonFallback, Directive: askonce.FallbackDirective})
	if err != nil {
		t.Fatal(err)
	}
	out, err := askonce.ParseOutcome(resp.Raw)
	if err != nil || out.Plan == nil || len(out.Plan.Assumptions) != 1 || !strings.Contains(out.Plan.Assumptions[0], "Chose tabs") {
		t.Fatalf("directive: %v %+v (raw %s)", err, out, resp.Raw)
	}
}

// The request on stdin follows the documented schema.
func TestStdinSchema(t *testing.T) {
	t.Parallel()
	in := misbehave(t, "echo")
	req := &askonce.Request{JobID: "job-1", Goal: "g", Prompt: askonce.ResolvedPrompt("g", "yes"), Profile: "general",
		Files: []string{"a.go"}, Candidates: []string{"red cup", "blue cup"}, Attempt: 2, Reason: askonce.ReasonRetryValidation, Feedback: []string{"dependency cycle: a -> b -> a"},
		Directive: askonce.FallbackDirective, SpecSchema: []byte(`{"type":"object"}`)}
	resp, err := in.Interpret(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	out, err := askonce.ParseOutcome(resp.Raw)
	if err != nil || out.Plan == nil {
		t.Fatalf("outcome with a usage field: %v (raw %s)", err, resp.Raw)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Plan.Spec, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"version": 1.0, "jobId": "job-1", "goal": "g", "prompt": "g\n\nClarification Answer: yes", "profile": "general",
		"files": []any{"a.go"}, "candidates": []any{"red cup", "blue cup"}, "attempt": 2.0, "reason": "retry_validation", "feedback": []any{"dependency cycle: a -> b -> a"},
		"directive": askonce.FallbackDirective, "specSchema": map[string]any{"type": "object"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stdin\n got %v\nwant %v", got, want)
	}
	if resp.Usage != (askonce.Usage{PromptTokens: 11, CompletionTokens: 7, CostUSD: 0.25}) {
		t.Errorf("usage %+v", resp.Usage)
	}

	// Empty lists are [] rather than null.
	resp, err = in.Interpret(ctx, &askonce.Request{Goal: "g", Prompt: "g", Attempt: 1, Reason: askonce.ReasonInitial})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp.Raw), `"files": []`) || !strings.Contains(string(resp.Raw), `"feedback": []`) ||
		!strings.Contains(string(resp.Raw), `"candidates": []`) {
		t.Errorf("raw %s", resp.Raw)
	}
}

// Cancelling the context kills the whole process group: the plug-in and
// the child it started.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	in := misbehave(t, "hang", pidfile)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		resp *askonce.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := in.Interpret(cctx, &askonce.Request{Goal: "g", Prompt: "g", Attempt: 1})
		done <- result{resp, err}
	}()
	var pid int
	for deadline := time.Now().Add(20 * time.Second); pid == 0; {
		if b, err := os.ReadFile(pidfile); err == nil {
			pid, _ = strconv.Atoi(string(b))
		} else if time.Now().After(deadline) {
			t.Fatal("the plug-in never started its child")
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if !alive(pid) {
		t.Fatalf("child %d is not running before the cancel", pid)
	}
	cancel()
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Interpret did not return after the cancel")
	}
	if !errors.Is(r.err, context.Canceled) || !strings.Contains(r.err.Error(), "process group killed") {
		t.Fatalf("err %v", r.err)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(pid); {
		if time.Now().After(deadline) {
			t.Fatalf("child %d survived its plug-in's timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// Through the engine, a plug-in that outlives InterpretTimeout fails the
// job with the timeout recorded on the attempt.
func TestEngineTimeout(t *testing.T) {
	t.Parallel()
	e := newEngine(t, misbehave(t, "hang", filepath.Join(t.TempDir(), "child.pid")))
	e.InterpretTimeout = 300 * time.Millisecond
	start := time.Now()
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	as := attempts(t, e, j)
	if j.Status != askonce.StatusFailed || len(as) != 1 || !strings.Contains(as[0].Error, "timed out after 300ms") {
		t.Fatalf("status %s error %q attempts %+v", j.Status, j.Error, as)
	}
}

// A non-zero exit fails the job, and the attempt's error keeps the tail of
// stderr, capped.
func TestNonZeroExitKeepsStderr(t *testing.T) {
	t.Parallel()
	e := newEngine(t, misbehave(t, "fail"))
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	as := attempts(t, e, j)
	if j.Status != askonce.StatusFailed || len(as) != 1 || as[0].Outcome != askonce.AttemptError {
		t.Fatalf("status %s attempts %+v", j.Status, as)
	}
	msg := as[0].Error
	if !strings.Contains(msg, "exited with status 3") || !strings.HasSuffix(msg, "fatal: boom") || !strings.Contains(msg, "stderr: …") {
		t.Errorf("attempt error %.200q…%q", msg, msg[max(0, len(msg)-100):])
	}
	if len(msg) > exec.DefaultMaxStderr+200 {
		t.Errorf("attempt error is %d bytes; stderr is not capped", len(msg))
	}
	if !strings.Contains(j.Error, "fatal: boom") {
		t.Errorf("job error %q", j.Error)
	}
}

// A plug-in that floods stdout is killed once the cap is reached, and the
// engine records the oversize output, capped, on every attempt.
func TestOversizeStdoutCapped(t *testing.T) {
	t.Parallel()
	e := newEngine(t, misbehave(t, "flood"))
	e.InterpretTimeout = time.Minute
	start := time.Now()
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %s: the flood was not cut at the cap", took)
	}
	if j.Status != askonce.StatusValidationError || len(j.Result) == 0 || len(j.Result) > askonce.DefaultMaxRaw {
		t.Fatalf("status %s result %d bytes", j.Status, len(j.Result))
	}
	as := attempts(t, e, j)
	want := fmt.Sprintf("output is %d bytes; the limit is %d", askonce.DefaultMaxOutput+1, askonce.DefaultMaxOutput)
	for _, a := range as {
		if a.Error != want || len(a.Raw) > askonce.DefaultMaxRaw {
			t.Errorf("attempt %d: error %q raw %d bytes", a.N, a.Error, len(a.Raw))
		}
	}
	if len(as) != 3 {
		t.Errorf("%d attempts, want 3", len(as))
	}
}

// Output that is not JSON is retried with the parse error and ends in
// validation_error with the raw text kept.
func TestGarbageValidationError(t *testing.T) {
	t.Parallel()
	e := newEngine(t, misbehave(t, "garbage"))
	j, err := e.Create(ctx, askonce.CreateRequest{Goal: "make hot cheese"})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusValidationError || strings.TrimSpace(j.Result) != "this is not JSON" {
		t.Fatalf("status %s result %q", j.Status, j.Result)
	}
	as := attempts(t, e, j)
	if len(as) != 3 || as[1].Reason != askonce.ReasonRetryParseError || !strings.Contains(as[0].Error, "not a JSON object") {
		t.Errorf("attempts %+v", as)
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg  exec.Config
		want string
	}{
		{exec.Config{}, "command is required"},
		{exec.Config{Command: []string{""}}, "command is required"},
		{exec.Config{Command: []string{"askonce-no-such-program"}}, "askonce-no-such-program"},
		{exec.Config{Command: []string{"./testdata/nope.py"}}, "no such file"},
		{exec.Config{Command: []string{"./testdata"}}, "not an executable file"},
		{exec.Config{Command: []string{"sh"}, Env: []string{"NOEQUALS"}}, "KEY=value"},
		{exec.Config{Command: []string{"sh"}, Dir: "/no/such/dir"}, "not a directory"},
		{exec.Config{Command: []string{"sh"}, MaxOutput: -1}, "negative"},
	} {
		if _, err := exec.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v, want %q", tc.cfg, err, tc.want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plug"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.New(exec.Config{Command: []string{"./plug"}, Dir: dir}); err != nil {
		t.Errorf("a path relative to Dir: %v", err)
	}
	if _, err := exec.New(exec.Config{Command: []string{"./plug"}}); err == nil {
		t.Error("a relative path is resolved against askonce's directory, not Dir's")
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	for v, want := range map[string][]string{
		`["python3", "my plugin.py", "--fast"]`: {"python3", "my plugin.py", "--fast"},
		"  python3   plugin.py ":                {"python3", "plugin.py"},
	} {
		cfg, err := exec.ConfigFromEnv(func(k string) string {
			return map[string]string{"ASKONCE_EXEC_COMMAND": v, "ASKONCE_EXEC_DIR": "/srv", "ASKONCE_EXEC_MAX_OUTPUT": "2048"}[k]
		})
		if err != nil || strings.Join(cfg.Command, "|") != strings.Join(want, "|") || cfg.Dir != "/srv" || cfg.MaxOutput != 2048 {
			t.Errorf("%q: %+v %v", v, cfg, err)
		}
	}
	for k, v := range map[string]string{"ASKONCE_EXEC_COMMAND": `["python3", 1]`, "ASKONCE_EXEC_MAX_OUTPUT": "big"} {
		if _, err := exec.ConfigFromEnv(func(key string) string { return map[string]string{k: v}[key] }); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%q: %v", k, v, err)
		}
	}
}
