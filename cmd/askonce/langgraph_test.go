package main_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// langGraphRun is the report of examples/langgraph/graph.mjs.
type langGraphRun struct {
	Interrupts []struct {
		JobID     string `json:"jobId"`
		AnswerURL string `json:"answerUrl"`
		Question  struct {
			Text    string   `json:"text"`
			Options []string `json:"options"`
		} `json:"question"`
	} `json:"interrupts"`
	Outcomes []struct {
		Action    string `json:"action"`
		Answer    string `json:"answer"`
		Directive string `json:"directive"`
	} `json:"outcomes"`
	Action string   `json:"action"`
	Status string   `json:"status"`
	Title  string   `json:"title"`
	Events []string `json:"events"`
}

// The LangGraph.js example against askonce serve, behind an API key: its
// planner node asks three times; the graph interrupts once (one question
// asked), resumes with the answer, and the later asks get proceed with the
// fallback directive; the plan closes the job.
func integrationsLangGraphNodeAskingThreeTimesInterruptsOnce(t *testing.T) {
	dir := npmDir(t, filepath.Join("..", "..", "examples", "langgraph"), "@langchain/langgraph")
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "serve.db"), "--api-keys-file", keysFile(t, map[string]string{"graph": "graph-key"}))
	out := runNode(t, time.Minute, []string{"ASKONCE_URL=" + in.base, "ASKONCE_API_KEY=graph-key", "ANSWER=hot", "ASKS=3"}, filepath.Join(dir, "graph.mjs"), "hot frozen cheese")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got langGraphRun
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("%v in the example's report:\n%s", err, out)
	}
	if len(got.Interrupts) != 1 || got.Interrupts[0].Question.Text != "Serve the cheese hot or frozen?" || !strings.HasPrefix(got.Interrupts[0].AnswerURL, in.base+"/a/") {
		t.Fatalf("interrupts %+v; want one, with the question and its answer link\n%s", got.Interrupts, out)
	}
	if asked := askedCount(got.Events); asked != 1 {
		t.Errorf("%d questions asked (events %v); want 1", asked, got.Events)
	}
	if len(got.Outcomes) != 3 {
		t.Fatalf("outcomes %+v; want one per ask", got.Outcomes)
	}
	if o := got.Outcomes[0]; o.Action != "resume" || o.Answer != "hot" {
		t.Errorf("first ask: %+v; want resume with the answer hot", o)
	}
	for i, o := range got.Outcomes[1:] {
		if o.Action != "proceed" || o.Directive != askonce.FallbackDirective {
			t.Errorf("ask %d: %+v; want proceed with the fallback directive", i+2, o)
		}
	}
	if got.Action != "done" || got.Status != "success" || got.Title != "Serve hot cheese" {
		t.Errorf("plan report: %s, job %s %q; want done, success, Serve hot cheese", got.Action, got.Status, got.Title)
	}
}

// The LangGraph.js example with its checkpoints in a file: the graph
// pauses at its interrupt and its process exits; askonce restarts; a
// person answers "frozen" on the answer page; a new process of the graph
// first finds no answer, then, once there is one, resumes the graph from
// its checkpoint with it, and the plan closes the job.
func integrationsLangGraphInterruptResumesAfterARestartWithTheAnswerPagesAnswer(t *testing.T) {
	dir := npmDir(t, filepath.Join("..", "..", "examples", "langgraph"), "@langchain/langgraph")
	db := filepath.Join(t.TempDir(), "serve.db")
	keys := keysFile(t, map[string]string{"graph": "graph-key"})
	state := filepath.Join(t.TempDir(), "graph.json")
	in := start(t, nil, "--db", db, "--api-keys-file", keys)
	env := func(in *instance, threadID string) []string {
		e := []string{"ASKONCE_URL=" + in.base, "ASKONCE_API_KEY=graph-key", "STATE_FILE=" + state}
		if threadID != "" {
			e = append(e, "THREAD_ID="+threadID)
		}
		return e
	}
	var paused struct {
		Paused struct {
			JobID, ThreadID string
			Interrupt       struct{ AnswerURL string }
		}
	}
	lastLine(t, runNode(t, time.Minute, env(in, ""), filepath.Join(dir, "graph.mjs"), "hot frozen cheese"), &paused)
	p := paused.Paused
	token, ok := strings.CutPrefix(p.Interrupt.AnswerURL, in.base+"/a/")
	if p.JobID == "" || p.ThreadID == "" || !ok {
		t.Fatalf("first run: %+v; want the graph paused at its interrupt with the answer link", p)
	}

	in.stop(syscall.SIGTERM)
	in = start(t, nil, "--db", db, "--api-keys-file", keys)
	var waiting struct{ Waiting struct{ JobID string } }
	lastLine(t, runNode(t, time.Minute, env(in, p.ThreadID), filepath.Join(dir, "graph.mjs")), &waiting)
	if waiting.Waiting.JobID != p.JobID {
		t.Fatalf("run before the answer: %+v; want waiting for job %s", waiting, p.JobID)
	}
	resp, err := http.PostForm(in.base+"/a/"+token, url.Values{"answer": {"frozen"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("answer page: %d; want the outcome page", resp.StatusCode)
	}

	var got langGraphRun
	lastLine(t, runNode(t, time.Minute, env(in, p.ThreadID), filepath.Join(dir, "graph.mjs")), &got)
	if len(got.Outcomes) != 3 || got.Outcomes[0].Action != "resume" || got.Outcomes[0].Answer != "frozen" {
		t.Fatalf("outcomes %+v; want resume with the page's answer frozen, then two proceeds", got.Outcomes)
	}
	if got.Action != "done" || got.Status != "success" || got.Title != "Serve frozen cheese" {
		t.Errorf("plan report: %s, job %s %q; want done, success, Serve frozen cheese", got.Action, got.Status, got.Title)
	}
	if asked := askedCount(got.Events); asked != 1 {
		t.Errorf("%d questions asked (events %v); want 1", asked, got.Events)
	}
}

// lastLine decodes the last line of a script's output into v.
func lastLine(t *testing.T, out string, v any) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), v); err != nil {
		t.Fatalf("%v in the script's output:\n%s", err, out)
	}
}

// askedCount is how often a job's events say it asked its question.
func askedCount(events []string) int {
	n := 0
	for _, e := range events {
		if e == string(askonce.EventAsked) {
			n++
		}
	}
	return n
}
