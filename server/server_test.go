package server_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// Over HTTP: one question, the answer settles it,
// a second answer is a conflict, and the row holds the answer.
func TestOneQuestionAndTheAnswerSettlesItOverHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})

	// 1. The prompt that used to loop (given under the older name "prompt"): one
	// question, and needsClarification only here.
	j := e.create(map[string]any{"prompt": hotFrozen, "sessionId": "alice"})
	id := str(j, "jobId")
	if j["needsClarification"] != true || str(j, "status") != "pending" || str(j, "clarificationStatus") != "asked" ||
		str(j, "clarificationQuestion") == "" || str(j, "clarificationType") != "SELECT_ONE" ||
		!slices.Equal(strs(j["clarificationOptions"]), []string{"hot", "frozen"}) ||
		j["clarificationUsed"] != true || j["clarificationResolved"] != false || j["success"] != true {
		t.Fatalf("create: %v", j)
	}
	if n := count(e.eventTypes(id), "asked"); n != 1 {
		t.Fatalf("%d questions asked, want 1", n)
	}

	// The answer: success, and never needsClarification.
	a := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"})
	if a.status != http.StatusOK || a.body["success"] != true || str(a.body, "status") != "success" ||
		str(a.body, "clarificationStatus") != "answered" || a.body["clarificationResolved"] != true || a.body["plan"] == nil {
		t.Fatalf("answer: %d %s", a.status, a.raw)
	}
	if _, ok := a.body["needsClarification"]; ok {
		t.Fatalf("the answer response carries needsClarification: %s", a.raw)
	}

	// A second answer is 409 with the job's current state.
	again := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "frozen"})
	wantError(t, again, http.StatusConflict, "conflict", "status is success")
	if job := obj(again.body, "job"); str(job, "status") != "success" || str(job, "clarificationAnswer") != "hot" {
		t.Fatalf("409 body has no current job state: %s", again.raw)
	}

	// 3. The stored row: answer, its time, the resolved prompt, attempts.
	g := e.do("GET", "/jobs/"+id, nil)
	if g.status != http.StatusOK || str(g.body, "clarificationAnswer") != "hot" || str(g.body, "clarificationSource") != "user" ||
		str(g.body, "resolvedPrompt") != "hot frozen cheese\n\nClarification Answer: hot" {
		t.Fatalf("stored job: %s", g.raw)
	}
	if _, err := time.Parse(time.RFC3339Nano, str(g.body, "clarificationAnsweredAt")); err != nil {
		t.Fatalf("clarificationAnsweredAt: %v", err)
	}
	if _, ok := g.body["needsClarification"]; ok {
		t.Fatalf("GET carries needsClarification: %s", g.raw)
	}
	attempts, _ := g.body["attempts"].([]any)
	if len(attempts) != 2 || g.body["attemptCount"] != float64(2) || obj(g.body, "usage") == nil {
		t.Fatalf("attempts %d, attemptCount %v, usage %v", len(attempts), g.body["attemptCount"], g.body["usage"])
	}

	// A goal with no conflict: success at once, with needsClarification false.
	r := e.create(map[string]any{"goal": readme})
	if r["needsClarification"] != false || str(r, "status") != "success" || str(r, "clarificationStatus") != "skipped" || r["success"] != true {
		t.Fatalf("no-question job: %v", r)
	}
}

// Bad input: each case is a clear 4xx and changes nothing.
func TestBadInput_IsAClear4xxAndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	pending := str(e.create(map[string]any{"goal": hotFrozen}), "jobId")
	done := str(e.create(map[string]any{"goal": readme}), "jobId")
	confirm := str(e.create(map[string]any{"goal": "delete the build folder"}), "jobId")
	snapshot := func() []byte {
		var b bytes.Buffer
		b.Write(e.do("GET", "/jobs", nil).raw)
		b.Write(e.do("GET", "/jobs/"+pending, nil).raw)
		b.Write(e.do("GET", "/jobs/"+confirm, nil).raw)
		b.Write(e.do("GET", "/jobs/"+pending+"/events", nil).raw)
		b.Write(e.do("GET", "/jobs/"+done, nil).raw)
		return b.Bytes()
	}
	unknown := "01a1fc9a-0000-7000-8000-000000000000"
	for _, c := range []struct {
		name, method, path string
		body               any
		header             []string
		status             int
		code, msg          string
		check              func(t *testing.T, r response)
	}{
		{name: "MalformedJSON", method: "POST", path: "/jobs", body: `{"goal": "x"`, status: 400, code: "bad_request", msg: "not valid JSON"},
		{name: "SyntaxError", method: "POST", path: "/jobs", body: `{"goal": x}`, status: 400, code: "bad_request", msg: "not valid JSON"},
		{name: "TwoMiBBody", method: "POST", path: "/jobs", body: `{"goal": "` + strings.Repeat("x", 2<<20) + `"}`, status: 413, code: "too_large", msg: "larger than 1048576 bytes"},
		{name: "NonUTF8Body", method: "POST", path: "/jobs", body: []byte("{\"goal\": \"\xff\xfe\"}"), status: 400, code: "bad_request", msg: "not valid UTF-8"},
		{name: "UnknownField", method: "POST", path: "/jobs", body: `{"goal": "x", "colour": "red"}`, status: 400, code: "bad_request", msg: `unknown field "colour"`},
		{name: "WrongType", method: "POST", path: "/jobs", body: `{"goal": 42}`, status: 400, code: "bad_request", msg: `"goal" must be a string`},
		{name: "NotAnObject", method: "POST", path: "/jobs", body: `["hot"]`, status: 400, code: "bad_request", msg: "must be a JSON object"},
		{name: "NullBody", method: "POST", path: "/jobs", body: `null`, status: 400, code: "bad_request", msg: "null"},
		{name: "EmptyBody", method: "POST", path: "/jobs", body: ``, status: 400, code: "bad_request", msg: "empty"},
		{name: "TrailingData", method: "POST", path: "/jobs", body: `{"goal": "x"} {"goal": "y"}`, status: 400, code: "bad_request", msg: "after its JSON object"},
		{name: "NotJSONContentType", method: "POST", path: "/jobs", body: `{"goal": "x"}`, header: []string{"Content-Type", "text/plain"}, status: 415, code: "unsupported_media_type", msg: "application/json"},
		{name: "WhiteSpaceGoal", method: "POST", path: "/jobs", body: map[string]any{"goal": " \n\t "}, status: 422, code: "invalid", msg: "goal is empty"},
		{name: "NoGoal", method: "POST", path: "/jobs", body: `{}`, status: 422, code: "invalid", msg: "goal is empty"},
		{name: "UnknownProfile", method: "POST", path: "/jobs", body: map[string]any{"goal": "x", "profile": "nope"}, status: 422, code: "invalid", msg: `profile "nope" is unknown`},
		{name: "UnknownMode", method: "POST", path: "/jobs", body: map[string]any{"goal": "x", "mode": "auto"}, status: 422, code: "invalid", msg: "mode"},
		{name: "GoalAndOtherPrompt", method: "POST", path: "/jobs", body: map[string]any{"goal": "x", "prompt": "y"}, status: 422, code: "invalid", msg: "as goal or as prompt (the older name), not both"},
		{name: "BadIdempotencyKey", method: "POST", path: "/jobs", body: map[string]any{"goal": readme}, header: []string{"Idempotency-Key", "two words"}, status: 400, code: "bad_request", msg: "Idempotency-Key"},
		{name: "UnknownID", method: "GET", path: "/jobs/" + unknown, status: 404, code: "not_found", msg: unknown},
		{name: "AnswerUnknownID", method: "POST", path: "/jobs/" + unknown + "/clarification", body: map[string]any{"answer": "hot"}, status: 404, code: "not_found", msg: unknown},
		{name: "EventsUnknownID", method: "GET", path: "/jobs/" + unknown + "/events", status: 404, code: "not_found", msg: unknown},
		{name: "AnswerNotPending", method: "POST", path: "/jobs/" + done + "/clarification", body: map[string]any{"answer": "hot"}, status: 409, code: "conflict", msg: "status is success",
			check: func(t *testing.T, r response) {
				if str(obj(r.body, "job"), "status") != "success" {
					t.Errorf("409 without the job's state: %s", r.raw)
				}
			}},
		// A CONFIRM question: its answers are yes or no whatever the
		// interpreter allows (a SELECT_ONE may take other text).
		{name: "AnswerNotAllowed", method: "POST", path: "/jobs/" + confirm + "/clarification", body: map[string]any{"answer": "lukewarm"}, status: 422, code: "invalid", msg: "not yes or no",
			check: func(t *testing.T, r response) {
				if !slices.Equal(strs(r.body["allowed"]), []string{"yes", "no"}) {
					t.Errorf("allowed: %s", r.raw)
				}
			}},
		{name: "EmptyAnswer", method: "POST", path: "/jobs/" + pending + "/clarification", body: map[string]any{"answer": ""}, status: 422, code: "invalid", msg: "answer is empty",
			check: func(t *testing.T, r response) {
				if !slices.Equal(strs(r.body["allowed"]), []string{"hot", "frozen"}) {
					t.Errorf("allowed: %s", r.raw)
				}
			}},
		{name: "AnswerWrongType", method: "POST", path: "/jobs/" + pending + "/clarification", body: `{"answer": ["hot"]}`, status: 422, code: "invalid", msg: `is a list where one value is expected`},
		{name: "ReportOnManagedJob", method: "POST", path: "/jobs/" + pending + "/report", body: map[string]any{"error": "gave up"}, status: 409, code: "conflict", msg: "only gate-mode jobs"},
		{name: "CancelWithUnknownField", method: "POST", path: "/jobs/" + pending + "/cancel", body: `{"force": true}`, status: 400, code: "bad_request", msg: `unknown field "force"`},
		{name: "CancelDoneJob", method: "POST", path: "/jobs/" + done + "/cancel", status: 409, code: "conflict", msg: "cannot cancel"},
		{name: "ListBadLimit", method: "GET", path: "/jobs?limit=0", status: 400, code: "bad_request", msg: "limit"},
		{name: "ListBadStatus", method: "GET", path: "/jobs?status=nope", status: 400, code: "bad_request", msg: "not a job status"},
		{name: "ListBadCursor", method: "GET", path: "/jobs?cursor=nope", status: 400, code: "bad_request", msg: "cursor"},
		{name: "EventsBadAfter", method: "GET", path: "/jobs/" + pending + "/events?after=-1", status: 400, code: "bad_request", msg: "after"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot()
			r := e.do(c.method, c.path, c.body, c.header...)
			wantError(t, r, c.status, c.code, c.msg)
			if c.check != nil {
				c.check(t, r)
			}
			if after := snapshot(); !bytes.Equal(before, after) {
				t.Errorf("the request changed the jobs:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	if g := e.do("GET", "/jobs/"+pending, nil); str(g.body, "status") != "pending" {
		t.Fatalf("the pending job moved: %s", g.raw)
	}
}

// Rule 2 over HTTP: of N concurrent answers exactly one wins; the others
// get 409 with the job's state.
func TestRule2_ConcurrentAnswersExactlyOneWins(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": hotFrozen}), "jobId")
	const n = 12
	statuses := make([]int, n)
	bodies := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			bodies[i] = e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": []string{"hot", "frozen"}[i%2]})
			statuses[i] = bodies[i].status
		})
	}
	wg.Wait()
	won := 0
	for _, st := range statuses {
		if st == http.StatusOK {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("%d answers won: %v", won, statuses)
	}
	for _, r := range bodies {
		if r.status == http.StatusConflict && obj(r.body, "job") == nil {
			t.Fatalf("409 without the job: %s", r.raw)
		}
		if r.status != http.StatusOK && r.status != http.StatusConflict {
			t.Fatalf("unexpected %d %s", r.status, r.raw)
		}
	}
	if n := count(e.eventTypes(id), "answered"); n != 1 {
		t.Fatalf("%d answered events", n)
	}
}

func TestCancelAndDecline(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})

	id := str(e.create(map[string]any{"goal": hotFrozen}), "jobId")
	c := e.do("POST", "/jobs/"+id+"/cancel", nil)
	if c.status != http.StatusOK || str(c.body, "status") != "cancelled" || c.body["success"] != false {
		t.Fatalf("cancel: %d %s", c.status, c.raw)
	}
	wantError(t, e.do("POST", "/jobs/"+id+"/cancel", `{}`), http.StatusConflict, "conflict", "status is cancelled")

	id = str(e.create(map[string]any{"goal": hotFrozen}), "jobId")
	d := e.do("POST", "/jobs/"+id+"/decline", `{}`)
	if d.status != http.StatusOK || str(d.body, "clarificationStatus") != "answered" || str(d.body, "clarificationSource") != "default" {
		t.Fatalf("decline: %d %s", d.status, d.raw)
	}
	if _, ok := d.body["needsClarification"]; ok || str(d.body, "status") == "pending" {
		t.Fatalf("decline asked again: %s", d.raw)
	}
}

func TestListJobs_FiltersAndPages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var ids []string
	for range 3 {
		ids = append(ids, str(e.create(map[string]any{"goal": readme, "sessionId": "s1"}), "jobId"))
	}
	pending := str(e.create(map[string]any{"goal": hotFrozen, "sessionId": "s2"}), "jobId")

	p1 := e.do("GET", "/jobs?limit=3", nil)
	jobs, _ := p1.body["jobs"].([]any)
	if p1.status != http.StatusOK || len(jobs) != 3 || str(p1.body, "nextCursor") == "" {
		t.Fatalf("page 1: %s", p1.raw)
	}
	if str(jobs[0].(map[string]any), "jobId") != pending {
		t.Fatalf("not newest first: %s", p1.raw)
	}
	p2 := e.do("GET", "/jobs?limit=3&cursor="+str(p1.body, "nextCursor"), nil)
	jobs2, _ := p2.body["jobs"].([]any)
	if len(jobs2) != 1 || str(jobs2[0].(map[string]any), "jobId") != ids[0] || p2.body["nextCursor"] != "" {
		t.Fatalf("page 2: %s", p2.raw)
	}
	if js, _ := e.do("GET", "/jobs?status=pending", nil).body["jobs"].([]any); len(js) != 1 {
		t.Fatalf("status filter: %d jobs", len(js))
	}
	if js, _ := e.do("GET", "/jobs?sessionId=s1", nil).body["jobs"].([]any); len(js) != 3 {
		t.Fatalf("session filter: %d jobs", len(js))
	}
	for _, j := range jobs {
		if _, ok := j.(map[string]any)["needsClarification"]; ok {
			t.Fatalf("a listed job carries needsClarification: %v", j)
		}
	}
}

func TestSessionHistory_ListsAnsweredQuestions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	if h := e.do("GET", "/sessions/bob/history", nil); h.status != 200 || len(h.body["entries"].([]any)) != 0 {
		t.Fatalf("empty history: %d %s", h.status, h.raw)
	}
	id := str(e.create(map[string]any{"goal": hotFrozen, "sessionId": "bob"}), "jobId")
	e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "frozen"})
	h := e.do("GET", "/sessions/bob/history", nil)
	entries, _ := h.body["entries"].([]any)
	if len(entries) != 1 || str(entries[0].(map[string]any), "answer") != "frozen" || str(entries[0].(map[string]any), "jobId") != id {
		t.Fatalf("history: %s", h.raw)
	}
	// The repeat guard answers the same question in the same session.
	again := e.create(map[string]any{"goal": hotFrozen, "sessionId": "bob"})
	if again["needsClarification"] != false || str(again, "clarificationSource") != "history" {
		t.Fatalf("repeat guard over HTTP: %v", again)
	}
}

func TestRoutes_UnknownIs404AndWrongMethodIs405(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	wantError(t, e.do("GET", "/nope", nil), http.StatusNotFound, "not_found", "no route for GET /nope")
	r := e.do("DELETE", "/jobs/abc", nil)
	wantError(t, r, http.StatusMethodNotAllowed, "method_not_allowed", "DELETE is not allowed")
	if !strings.Contains(r.header.Get("Allow"), "GET") {
		t.Fatalf("Allow: %q", r.header.Get("Allow"))
	}
}

func TestHealthz_ChecksTheStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	if r := e.do("GET", "/healthz", nil); r.status != http.StatusOK || string(r.raw) != "{\"ok\":true}\n" {
		t.Fatalf("healthz: %d %s", r.status, r.raw)
	}
	e.store.Close()
	r := e.do("GET", "/healthz", nil)
	if r.status != http.StatusServiceUnavailable || r.body["ok"] != false {
		t.Fatalf("healthz on a closed store: %d %s", r.status, r.raw)
	}
	// The cause is logged at error level with the underlying error.
	eventually(t, "an error log line", func() bool {
		return strings.Contains(e.logs.String(), "level=ERROR") && strings.Contains(e.logs.String(), `route="GET /healthz"`)
	})
}

func TestLogging_OneLinePerRequestWithRouteStatusAndJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := str(e.create(map[string]any{"goal": readme}), "jobId")
	e.do("GET", "/jobs/"+id, nil)
	eventually(t, "two request lines", func() bool { return strings.Count(e.logs.String(), "msg=\"http request\"") == 2 })
	lines := strings.Split(strings.TrimSpace(e.logs.String()), "\n")
	for i, want := range []string{`route="POST /jobs" path=/jobs status=201`, `route="GET /jobs/{id}" path=/jobs/` + id + ` status=200`} {
		if !strings.Contains(lines[i], "level=INFO") || !strings.Contains(lines[i], want) || !strings.Contains(lines[i], "job="+id) || !strings.Contains(lines[i], "duration=") {
			t.Errorf("line %d: %s\nwant %s and job=%s", i, lines[i], want, id)
		}
	}
}

// The job view's success is false exactly for the failed statuses.
func TestJobView_SuccessFalseForFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{interp: askonce.InterpreterFunc(func(_ context.Context, _ *askonce.Request) (*askonce.Response, error) {
		return nil, errors.New("model unavailable")
	})})
	j := e.create(map[string]any{"goal": readme})
	if str(j, "status") != "failed" || j["success"] != false || !strings.Contains(str(j, "error"), "model unavailable") {
		t.Fatalf("failed job: %v", j)
	}
}

// A client still sending a body over the limit (here 12 MiB, under the
// bound) can send it all and then read the 413, instead of a reset
// connection: the server reads and discards the rest before it answers
// and closes.
func TestBodyOverTheLimitIs413ForAClientStillSending(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	body := []byte(`{"goal": "` + strings.Repeat("x", 12<<20) + `"}`)
	for i := range 10 {
		conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /jobs HTTP/1.1\r\nHost: askonce\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		sent := make(chan error, 1)
		go func() {
			var err error
			for rest := body; len(rest) > 0 && err == nil; rest = rest[min(len(rest), 64<<10):] {
				_, err = conn.Write(rest[:min(len(rest), 64<<10)])
			}
			sent <- err
		}()
		if err := <-sent; err != nil {
			t.Fatalf("try %d: sending the body: %v; want it taken and discarded", i, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Fatalf("try %d: %v; want the 413", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("try %d: %d, want 413", i, resp.StatusCode)
		}
	}
}

// A pending job's response carries no result: the question's fields say
// everything (seed 003 FR-8); the output that asked stays in the attempt
// record of GET /jobs/{id}.
func TestPendingResponseCarriesNoResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	j := e.create(map[string]any{"goal": hotFrozen})
	if _, ok := j["result"]; ok || str(j, "status") != "pending" {
		t.Fatalf("create: status %q result %v; want pending without result", str(j, "status"), j["result"])
	}
	g := e.do("GET", "/jobs/"+str(j, "jobId"), nil)
	if _, ok := g.body["result"]; ok {
		t.Fatalf("GET of the pending job: result %v; want none", g.body["result"])
	}
	attempts, _ := g.body["attempts"].([]any)
	if len(attempts) != 1 || !strings.Contains(str(attempts[0].(map[string]any), "raw"), `"question"`) {
		t.Fatalf("attempts %v; want the one that asked, with its output", g.body["attempts"])
	}
}

// docs/protocol.md maps the names of the seeds' responses to the API's,
// and every name it maps to is a field of the job the API answers.
func TestProtocolDocMapsTheSeedsNamesToTheAPIs(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	e := newEnv(t, envOptions{})
	job := e.create(map[string]any{"goal": hotFrozen})
	for seed, api := range map[string]string{
		"`status: 'clarification_required'`": "`needsClarification`",
		"`dagId`":                            "`jobId`",
		"`clarificationQuery`":               "`clarificationQuestion`",
		"`clarification_question`":           "`clarificationQuestion`",
		"`needs_clarification`":              "`needsClarification`",
	} {
		if !strings.Contains(doc, seed+" → "+api) && !strings.Contains(doc, seed+" is "+api) {
			t.Errorf("docs/protocol.md does not map %s to %s", seed, api)
		}
		if _, ok := job[strings.Trim(api, "`")]; !ok {
			t.Errorf("the pending job has no field %s: %v", api, job)
		}
	}
}
