package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askonce/askonce/internal/openaitest"
)

// evalFixture is a labelled set whose figures under the rules interpreter
// are counted by hand: 8 items, 3 clear (1 asked: false-ask), 5 ask (3
// asked: contradiction, two-files, wrong-type; 2 planned: missed,
// hostile); of the 4 questions, 3 on ask items and 2 the expected one.
// So asks on clear 1 of 3 (33.3%), precision 3 of 4 (75%), recall 3 of 5
// (60%), F1 2·0.75·0.6/1.35 = 66.7%, right question 2 of 4 (50%).
const evalFixture = `# a fixture
{"id":"contradiction","goal":"hot frozen cheese","label":"ask","expect":{"type":"SELECT_ONE","options":["Hot","frozen"]}}
{"id":"two-files","goal":"summarise the file","label":"ask","files":["a.md","b.md"],"expect":{"type":"TARGET_FILE","options":["b.md","a.md"]}}

// plain plans
{"id":"plain","goal":"write the README then add tests","label":"clear"}
{"id":"missed","goal":"write the README then add tests","label":"ask"}
{"id":"hostile","goal":"<img src=x onerror=alert(1)> | write the README then add tests","label":"ask"}
{"id":"false-ask","goal":"hot frozen cheese","label":"clear"}
{"id":"wrong-type","goal":"hot frozen cheese","label":"ask","expect":{"type":"CONFIRM"}}
{"id":"ja","goal":"富士山の高さは何メートルですか？","label":"clear"}
`

// squash collapses the runs of spaces a table aligns its columns with.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

type evalOutput struct {
	Summary    map[string]any            `json:"summary"`
	ByLanguage map[string]map[string]any `json:"byLanguage"`
	ByReason   map[string]map[string]any `json:"byReason"`
	Items      []struct {
		Item  struct{ ID string } `json:"item"`
		Asked bool                `json:"asked"`
		Right bool                `json:"right"`
	} `json:"items"`
}

// TestEval: askonce eval: the figures, thresholds, bad lines, Ctrl-C and the
// openai interpreter.
func TestEval(t *testing.T) {
	t.Parallel()
	t.Run("FixtureFiguresAreTheHandCountedOnes", evalFixtureFiguresAreTheHandCountedOnes)
	t.Run("ThresholdsSetTheExitStatus", evalThresholdsSetTheExitStatus)
	t.Run("BadLineNamesFileAndLineBeforeAnyCall", evalBadLineNamesFileAndLineBeforeAnyCall)
	t.Run("InterruptPrintsWhatWasMeasured", evalInterruptPrintsWhatWasMeasured)
	t.Run("OpenAIInterpreterRetriesAndSumsTheCost", evalOpenAIInterpreterRetriesAndSumsTheCost)
}

func evalFixtureFiguresAreTheHandCountedOnes(t *testing.T) {
	t.Parallel()
	fx := writeFile(t, "fx.jsonl", evalFixture)
	report := filepath.Join(t.TempDir(), "r.md")
	out, errs, code := runCLI(t, "", nil, "eval", "--json", "--report", report, fx)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	var got evalOutput
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	want := map[string]any{"items": 8.0, "errors": 0.0, "clear": 3.0, "asksOnClear": 1.0, "ask": 5.0, "asksOnAsk": 3.0,
		"rightQuestions": 2.0, "asksOnClearRate": 0.3333, "precision": 0.75, "recall": 0.6, "f1": 0.6667, "rightQuestionRate": 0.5}
	for k, w := range want {
		if got.Summary[k] != w {
			t.Errorf("summary %s = %v, want %v", k, got.Summary[k], w)
		}
	}
	if ja := got.ByLanguage["ja"]; ja["items"] != 1.0 || got.ByLanguage["en"]["items"] != 7.0 {
		t.Errorf("by language: %v", got.ByLanguage)
	}
	if tf := got.ByReason["target_file_ambiguous"]; tf["asksOnAsk"] != 1.0 || tf["rightQuestions"] != 1.0 {
		t.Errorf("by reason target_file_ambiguous: %v", tf)
	}
	// The text summary went to stderr, beside the progress lines.
	for _, w := range []string{"precision 3 of 4 questions on ask items 75.0%", "8/8 items", "by language:"} {
		if !strings.Contains(squash(errs), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errs)
		}
	}

	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	r := string(md)
	for _, w := range []string{
		"| precision | 3 of 4 questions on ask items | 75.0% |",
		"## Questions asked on clear items (1)\n",
		"### false-ask (clear, en)\n\n- Goal: hot frozen cheese\n- Asked: SELECT\\_ONE",
		"### wrong-type (ask, en)",
		"- Expected: CONFIRM, options none",
		"- Verdict: not the expected question",
		"- Expected: TARGET\\_FILE, options “b.md” · “a.md”",
		"## Ask items planned without a question (2)",
		`- Goal: \<img src=x onerror=alert(1)\> \| write the README`,
	} {
		if !strings.Contains(r, w) {
			t.Errorf("report lacks %q:\n%s", w, r)
		}
	}
	if strings.Contains(strings.ReplaceAll(r, `\<`, ""), "<") {
		t.Error("report holds the goal's HTML unescaped")
	}
	if strings.Index(r, "## Questions asked on clear items") > strings.Index(r, "## Questions asked on ask items") {
		t.Error("the questions on clear items do not come first")
	}
}

func evalThresholdsSetTheExitStatus(t *testing.T) {
	t.Parallel()
	fx := writeFile(t, "fx.jsonl", evalFixture)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--min-precision", "0.7", "--max-asks-on-clear", "0.34"}, 0, ""},
		{[]string{"--min-precision", "0.75"}, 0, ""}, // exactly at the threshold passes
		{[]string{"--min-precision", "0.9"}, 1, "precision 75.0% is below --min-precision 90.0%"},
		{[]string{"--max-asks-on-clear", "0.01"}, 1, "asks on clear items 33.3% is above --max-asks-on-clear 1.0%"},
		{[]string{"--min-precision", "90"}, 2, "--min-precision is a fraction between 0 and 1"},
		{[]string{"--concurrency", "0"}, 2, "--concurrency must be between 1 and 64"},
		{nil, 2, "no labelled file given"},
	} {
		args := append([]string{"eval"}, c.args...)
		if c.want != "no labelled file given" {
			args = append(args, fx)
		}
		_, errs, code := runCLI(t, "", nil, args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("eval %v: exit %d, stderr %q; want exit %d with %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// writeEvalPlugin writes an exec plug-in that records each call in calls,
// plans every goal at once, and hangs on a goal that says "slow" until
// it is killed.
func writeEvalPlugin(t *testing.T) (env []string, calls string) {
	t.Helper()
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	plugin := writeFile(t, "plugin.py", `import json, sys, time
req = json.load(sys.stdin)
with open(`+fmt.Sprintf("%q", calls)+`, "a") as f:
    f.write(req["goal"] + "\n")
if "slow" in req["goal"]:
    time.sleep(600)
print(json.dumps({"title": "t", "plan": {"title": "t", "spec": {}, "tasks": [{"id": "t1", "title": "do", "instruction": "do it", "dependsOn": []}], "assumptions": []}}))
`)
	return []string{`ASKONCE_EXEC_COMMAND=["python3", "` + plugin + `"]`}, calls
}

// A bad line stops the run before the first interpreter call, naming the
// file and the line, with exit status 2.
func evalBadLineNamesFileAndLineBeforeAnyCall(t *testing.T) {
	t.Parallel()
	env, calls := writeEvalPlugin(t)
	good := `{"goal":"write the README","label":"clear"}` + "\n"
	for _, c := range []struct{ line, want string }{
		{`{"goal":"x","label":"clear"`, "not a labelled item"},
		{`{"goal":"x","label":"clear","colour":"red"}`, `unknown field "colour"`},
		{`{"label":"clear"}`, `"goal" is missing or empty`},
		{`{"goal":"x","label":"maybe"}`, `"label" is "maybe"`},
		{`{"goal":"x","label":"clear","candidates":["` + strings.Repeat("c", 300) + `"]}`, "candidates[0] is 300 bytes; the limit is 256"},
		{`{"goal":"x","label":"clear","expect":{"type":"SELECT_ONE"}}`, `"expect" is only for items labelled "ask"`},
		{`{"goal":"x","label":"clear"} {"goal":"y","label":"clear"}`, "one object a line"},
	} {
		fx := writeFile(t, "set.jsonl", "# header\n"+good+c.line+"\n"+good)
		_, errs, code := runCLI(t, "", env, "eval", "--interpreter", "exec", fx)
		if code != 2 || !strings.Contains(errs, fx+":3: ") || !strings.Contains(errs, c.want) {
			t.Errorf("line %s: exit %d, stderr %q; want exit 2 naming %s:3 and %q", c.line, code, errs, fx, c.want)
		}
	}
	if _, err := os.Stat(calls); !os.IsNotExist(err) {
		t.Errorf("the interpreter was called before the bad line was reported (%v)", err)
	}
}

// Ctrl-C during a run stops it and prints the figures of the items
// measured so far; the exit status is 130.
func evalInterruptPrintsWhatWasMeasured(t *testing.T) {
	t.Parallel()
	env, _ := writeEvalPlugin(t)
	fx := writeFile(t, "set.jsonl", `{"goal":"one","label":"clear"}
{"goal":"two","label":"clear"}
{"goal":"three","label":"ask"}
{"goal":"slow four","label":"clear"}
{"goal":"five","label":"clear"}
`)
	cmd := exec.Command(builtBinary(t), "eval", "--interpreter", "exec", fx)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "3/5 items") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no progress line for 3 items within 30s:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("eval did not stop within 30s of SIGINT:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if out := stdout.String(); !strings.Contains(out, "3 of 5 items measured") || !strings.Contains(squash(out), "recall 0 of 1 ask items asked") {
		t.Errorf("stdout lacks the partial summary:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "interrupted: measured 3 of 5 items") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// --interpreter openai runs against a scripted OpenAI-compatible model:
// the first call meets a 500 and is retried, the candidates reach the
// model, and the tokens and cost are summed in the summary and report.
func evalOpenAIInterpreterRetriesAndSumsTheCost(t *testing.T) {
	t.Parallel()
	question := `{"title": "Cup", "question": {"type": "SELECT_ONE", "text": "Which cup?", "options": ["red cup", "blue cup"], "reason": "target_action_ambiguous"}}`
	plan := `{"title": "t", "plan": {"title": "t", "spec": {}, "tasks": [{"id": "t1", "title": "do", "instruction": "do it", "dependsOn": []}], "assumptions": []}}`
	srv := openaitest.New(t, openaitest.Error(500, "overloaded"), openaitest.Reply(question, 100, 20), openaitest.Reply(plan, 200, 30))
	fx := writeFile(t, "set.jsonl", `{"goal":"pick up the cup","label":"ask","candidates":["red cup","blue cup"],"expect":{"type":"SELECT_ONE","options":["red cup","blue cup"]}}
{"goal":"pick up the red cup","label":"clear","candidates":["red cup","blue cup"]}
`)
	report := filepath.Join(t.TempDir(), "r.md")
	env := []string{"ASKONCE_OPENAI_BASE_URL=" + srv.BaseURL(), "ASKONCE_OPENAI_MODEL=test-model",
		"ASKONCE_OPENAI_PRICES=test-model=1/2", "ASKONCE_OPENAI_RESPONSE_FORMAT=none"}
	out, errs, code := runCLI(t, "", env, "eval", "--interpreter", "openai", "--report", report, fx)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// 300 prompt tokens at $1/M and 50 completion tokens at $2/M.
	for _, w := range []string{"300 prompt + 50 completion tokens $0.0004", "right question 1 of 1 questions", "interpreter errors 0"} {
		if !strings.Contains(squash(out), w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
	md, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| usage | 300 prompt + 50 completion tokens | $0.0004 |") {
		t.Errorf("report lacks the usage:\n%s", md)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (a 500, its retry, the second item)", len(reqs))
	}
	if u := reqs[1].Message("user"); reqs[0].Message("user") != u || !strings.Contains(u, "- red cup\n- blue cup\n") {
		t.Errorf("the retry is not the same request, or it lacks the candidates:\n%s", u)
	}
}
