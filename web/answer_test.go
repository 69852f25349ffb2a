package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/web"
)

// linkSite is the pages over an engine that hands out answer links: a
// real SQLite file (whose link secret keys them), a real loopback
// listener and a clock the test moves.
type linkSite struct {
	srv    *httptest.Server
	engine *askonce.Engine
	offset atomic.Int64 // added to the wall clock, in nanoseconds
}

type linkOptions struct {
	interp        askonce.Interpreter // default: the rules interpreter
	failedLookups int
}

func newLinkSite(t *testing.T, o linkOptions) *linkSite {
	t.Helper()
	s := &linkSite{engine: newEngine(t, o.interp)}
	s.engine.Now = func() time.Time { return time.Now().Add(time.Duration(s.offset.Load())) }
	s.srv = httptest.NewServer(web.New(web.Config{Engine: s.engine, FailedLookups: o.failedLookups}))
	t.Cleanup(func() { s.srv.Close(); s.engine.Drain(context.Background()) })
	return s
}

// advance moves the site's clock forward.
func (s *linkSite) advance(d time.Duration) { s.offset.Add(int64(d)) }

// ask creates a job that asks and returns it with its answer link's path.
func (s *linkSite) ask(t *testing.T, goal string, files ...string) (*askonce.Job, string) {
	t.Helper()
	j, err := s.engine.Create(context.Background(), askonce.CreateRequest{Goal: goal, Files: files, Profile: profileOf[goal]})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != askonce.StatusPending {
		t.Fatalf("goal %q: status %s, want pending", goal, j.Status)
	}
	return j, "/a/" + s.engine.AnswerToken(j)
}

// response is a fetched page.
type response struct {
	status int
	header http.Header
	body   string
}

var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (s *linkSite) do(t *testing.T, req *http.Request) response {
	t.Helper()
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, string(b)}
}

func (s *linkSite) get(t *testing.T, path string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.do(t, req)
}

// post sends form to path; header holds extra headers (name, value).
func (s *linkSite) post(t *testing.T, path string, form url.Values, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return s.do(t, req)
}

func mustContain(t *testing.T, r response, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(r.body, w) {
			t.Errorf("page (status %d) lacks %q:\n%s", r.status, w, r.body)
		}
	}
}

// Goals the rules interpreter asks about, one per question type.
const (
	selectGoal  = "hot frozen cheese" // SELECT_ONE hot / frozen, allowOther
	confirmGoal = "delete the cache"  // CONFIRM
	targetGoal  = "summarise the file"
	freeGoal    = "make a mod" // FREE_TEXT, no default: the minecraft-mod profile's opt-in vague check
)

// profileOf is the profile a goal is asked under (the default when none).
var profileOf = map[string]string{freeGoal: "minecraft-mod"}

var targetFiles = []string{"a.md", "docs/b.md"}

// TestAnswerPage checks the answer page at /a/{token}, one behaviour per subtest.
func TestAnswerPage(t *testing.T) {
	t.Parallel()
	t.Run("ShowsTheControlOfEachQuestionType", testAnswerPageShowsTheControlOfEachQuestionType)
	t.Run("HeadersForbidCachingFramingReferrersAndInlineScript", testAnswerPageHeadersForbidCachingFramingReferrersAndInlineScript)
	t.Run("InvalidAnswerIs422WithTheAllowedValuesAndKeepsTheForm", testAnswerPageInvalidAnswerIs422WithTheAllowedValuesAndKeepsTheForm)
	t.Run("AnswerLeadsToTheOutcomeWithThePlan", testAnswerPageAnswerLeadsToTheOutcomeWithThePlan)
	t.Run("PlanTreeNestsTasksUnderTheirDependencies", testAnswerPagePlanTreeNestsTasksUnderTheirDependencies)
	t.Run("FailureShowsTheJobsExactError", testAnswerPageFailureShowsTheJobsExactError)
	t.Run("DeadLinkIs410SayingWhichAndWhen", testAnswerPageDeadLinkIs410SayingWhichAndWhen)
	t.Run("OutcomeIsVisibleOnlyWithinTheWindowAfterTheAnswer", testAnswerPageOutcomeIsVisibleOnlyWithinTheWindowAfterTheAnswer)
	t.Run("OutcomeOfALiveLinkRedirectsToTheForm", testAnswerPageOutcomeOfALiveLinkRedirectsToTheForm)
	t.Run("UnknownTokenIs404WithoutSayingWhetherItExisted", testAnswerPageUnknownTokenIs404WithoutSayingWhetherItExisted)
	t.Run("UnknownTokensPastTheLimitAre429WhileValidLinksStillOpen", testAnswerPageUnknownTokensPastTheLimitAre429WhileValidLinksStillOpen)
	t.Run("PostFromAnotherOriginIsRefused", testAnswerPagePostFromAnotherOriginIsRefused)
	t.Run("OversizedFormIs413AndChangesNothing", testAnswerPageOversizedFormIs413AndChangesNothing)
	t.Run("HostileTextIsEscaped", testAnswerPageHostileTextIsEscaped)
	t.Run("DontRememberKeepsTheAnswerOutOfMemory", testAnswerPageDontRememberKeepsTheAnswerOutOfMemory)
	t.Run("ChoiceParameterPreselectsTheOptionAndAnswersNothing", testAnswerPageChoiceParameterPreselectsTheOptionAndAnswersNothing)
}

func testAnswerPageShowsTheControlOfEachQuestionType(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	cases := []struct {
		name, goal string
		files      []string
		typ        askonce.QuestionType
		kind       string
		wants      []string
	}{
		{"SELECT_ONE is a radio list with Other", selectGoal, nil, askonce.QuestionSelectOne, "Pick one, or answer in your own words",
			[]string{`type="radio" name="answer" value="hot"`, `type="radio" name="answer" value="frozen"`, `id="other-radio"`, `name="other"`}},
		{"CONFIRM is Yes and No buttons", confirmGoal, nil, askonce.QuestionConfirm, "Yes or no",
			[]string{`name="answer" value="yes"`, `name="answer" value="no"`}},
		{"TARGET_FILE is a filterable file list and a path field", targetGoal, targetFiles, askonce.QuestionTargetFile, "Which file? Pick one, or give a path inside the project",
			[]string{`data-file="a.md"`, `value="docs/b.md"`, `id="file-filter"`, `name="path"`}},
		{"FREE_TEXT is a textarea with a byte counter", freeGoal, nil, askonce.QuestionFreeText, "Answer in your own words (at most 4096 bytes)",
			[]string{`<textarea id="free-text" name="answer"`, `id="byte-count"`, "/ 4096 bytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, link := s.ask(t, c.goal, c.files...)
			if j.Question.Type != c.typ {
				t.Fatalf("goal %q asks %s, want %s", c.goal, j.Question.Type, c.typ)
			}
			r := s.get(t, link)
			if r.status != http.StatusOK {
				t.Fatalf("status %d, want 200:\n%s", r.status, r.body)
			}
			mustContain(t, r, c.wants...)
			// People read what the question asks in words, once; the
			// type's code is the API's.
			if strings.Contains(r.body, string(c.typ)) {
				t.Errorf("the page shows the internal code %s", c.typ)
			}
			if n := strings.Count(r.body, c.kind); n != 1 {
				t.Errorf("the page says %q %d times, want once", c.kind, n)
			}
			mustContain(t, r, `name="action" value="decline"`, `name="action" value="cancel"`,
				`<strong class="job-title">`+j.Title+`</strong>`, `src="/assets/answer.js"`)
			if d := j.Question.Default; d != "" {
				mustContain(t, r, `<strong class="question-default">`+d+`</strong>`, "(default)")
			}
		})
	}
}

func testAnswerPageHeadersForbidCachingFramingReferrersAndInlineScript(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	_, link := s.ask(t, freeGoal)
	_, used := s.ask(t, freeGoal)
	if r := s.post(t, used, url.Values{"answer": {"write the notes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("answer: %d %s", r.status, r.body)
	}
	for _, path := range []string{link, link + "/outcome.json", used, used + "/outcome", used + "/outcome.json", "/a/nope", "/a/x/y/z"} {
		r := s.get(t, path)
		h := r.header
		if h.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s (%d): Cache-Control %q, want no-store", path, r.status, h.Get("Cache-Control"))
		}
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
		if h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("GET %s: X-Frame-Options %q, Referrer-Policy %q", path, h.Get("X-Frame-Options"), h.Get("Referrer-Policy"))
		}
	}
	if r := s.post(t, link, url.Values{"answer": {" "}}); r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("POST 422: Cache-Control %q", r.header.Get("Cache-Control"))
	}
}

func testAnswerPageInvalidAnswerIs422WithTheAllowedValuesAndKeepsTheForm(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	t.Run("TARGET_FILE path outside the project", func(t *testing.T) {
		_, link := s.ask(t, targetGoal, targetFiles...)
		r := s.post(t, link, url.Values{"answer": {"docs/b.md"}, "path": {"../secret"}})
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d, want 422:\n%s", r.status, r.body)
		}
		mustContain(t, r, `role="alert"`, "leaves the project root", "Allowed answers",
			"<li><code>a.md</code></li>", "<li><code>docs/b.md</code></li>",
			`value="docs/b.md" checked`, `name="path" id="path" value="../secret"`)
	})
	t.Run("CONFIRM neither yes nor no", func(t *testing.T) {
		_, link := s.ask(t, confirmGoal)
		r := s.post(t, link, url.Values{"answer": {"perhaps"}})
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d, want 422:\n%s", r.status, r.body)
		}
		mustContain(t, r, "is not yes or no", "<li><code>yes</code></li>", "<li><code>no</code></li>", `value="yes"`)
	})
	t.Run("FREE_TEXT over 4 KiB", func(t *testing.T) {
		j, link := s.ask(t, freeGoal)
		long := strings.Repeat("é", 2100) // 4200 bytes
		r := s.post(t, link, url.Values{"answer": {long}})
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d, want 422", r.status)
		}
		mustContain(t, r, "the limit is 4096", ">"+long+"</textarea>", `<span id="byte-used">4200</span>`)
		got, err := s.engine.Get(context.Background(), "", j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != askonce.StatusPending {
			t.Errorf("after an invalid answer the job is %s, want still pending", got.Status)
		}
	})
	t.Run("SELECT_ONE Other kept", func(t *testing.T) {
		_, link := s.ask(t, selectGoal)
		r := s.post(t, link, url.Values{"answer": {""}, "other": {"\u200b"}})
		if r.status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d, want 422", r.status)
		}
		mustContain(t, r, "<li><code>hot</code></li>", "other text of your own")
	})
}

// waitJob waits for the job's background planning to end.
func (s *linkSite) waitJob(t *testing.T, id string) *askonce.Job {
	t.Helper()
	if err := s.engine.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	j, err := s.engine.Get(context.Background(), "", id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func testAnswerPageAnswerLeadsToTheOutcomeWithThePlan(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	cases := []struct {
		name, goal string
		files      []string
		form       url.Values
		answer     string
	}{
		{"SELECT_ONE option", selectGoal, nil, url.Values{"answer": {"frozen"}}, "frozen"},
		{"SELECT_ONE other", selectGoal, nil, url.Values{"answer": {""}, "other": {"lukewarm"}}, "lukewarm"},
		{"CONFIRM", confirmGoal, nil, url.Values{"answer": {"yes"}}, "yes"},
		{"TARGET_FILE file", targetGoal, targetFiles, url.Values{"answer": {"docs/b.md"}, "action": {"answer"}}, "docs/b.md"},
		{"TARGET_FILE typed path", targetGoal, targetFiles, url.Values{"answer": {"a.md"}, "path": {"src/c.md"}}, "src/c.md"},
		{"FREE_TEXT", freeGoal, nil, url.Values{"answer": {"write the release notes"}, "action": {"answer"}}, "write the release notes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, link := s.ask(t, c.goal, c.files...)
			r := s.post(t, link, c.form)
			if r.status != http.StatusSeeOther || r.header.Get("Location") != link+"/outcome" {
				t.Fatalf("POST: %d Location %q, want 303 to %s/outcome:\n%s", r.status, r.header.Get("Location"), link, r.body)
			}
			got := s.waitJob(t, j.ID)
			if got.Status != askonce.StatusSuccess || got.Answer.String() != c.answer {
				t.Fatalf("job %s answer %q, want success with %q (error %q)", got.Status, got.Answer, c.answer, got.Error)
			}
			r = s.get(t, link+"/outcome")
			if r.status != http.StatusOK {
				t.Fatalf("outcome: %d", r.status)
			}
			mustContain(t, r, `<h1 id="outcome-heading">Planned</h1>`, `class="tree plan-tree"`, `<strong class="outcome-answer">`+c.answer+`</strong>`)
			for _, task := range got.Plan.Tasks {
				mustContain(t, r, `<code class="task-id">`+task.ID+`</code>`)
			}
			var o struct {
				Status string `json:"status"`
				Done   bool   `json:"done"`
				HTML   string `json:"html"`
			}
			r = s.get(t, link+"/outcome.json")
			if err := json.Unmarshal([]byte(r.body), &o); err != nil || r.status != http.StatusOK {
				t.Fatalf("outcome.json: %d %v %s", r.status, err, r.body)
			}
			if o.Status != "success" || !o.Done || !strings.Contains(o.HTML, "plan-tree") {
				t.Errorf("outcome.json: %+v", o)
			}
		})
	}
}

// script is an interpreter that asks q first and plans p after the answer.
func script(q askonce.Question, p askonce.Plan, fail string) askonce.Interpreter {
	return askonce.InterpreterFunc(func(_ context.Context, req *askonce.Request) (*askonce.Response, error) {
		var out any = map[string]any{"title": "<b>hostile</b> title", "question": q}
		if req.Reason != askonce.ReasonInitial {
			if fail != "" {
				return nil, askonce.Errorf(askonce.EINTERNAL, "%s", fail)
			}
			out = map[string]any{"plan": p}
		}
		raw, err := json.Marshal(out)
		return &askonce.Response{Raw: raw}, err
	})
}

func testAnswerPagePlanTreeNestsTasksUnderTheirDependencies(t *testing.T) {
	t.Parallel()
	plan := askonce.Plan{Tasks: []askonce.Task{
		{ID: "test", Title: "Test it", DependsOn: []string{"build", "fetch"}},
		{ID: "fetch", Title: "Fetch the sources", DependsOn: []string{}},
		{ID: "build", Title: "Build", Instruction: "go build ./...", DependsOn: []string{"fetch"}},
	}}
	s := newLinkSite(t, linkOptions{interp: script(askonce.Question{Type: askonce.QuestionFreeText, Text: "Which?"}, plan, "")})
	j, link := s.ask(t, "build and test")
	s.post(t, link, url.Values{"answer": {"all"}})
	s.waitJob(t, j.ID)
	r := s.get(t, link+"/outcome")
	// fetch is the root; build sits under it; test under build, its first dependency.
	mustContain(t, r, `<li class="task" data-task="fetch"><code class="task-id">fetch</code> <strong class="task-title">Fetch the sources</strong><ul class="tree"><li class="task" data-task="build">`,
		`<span class="muted task-after">after <code>fetch</code></span><div class="muted task-instruction">go build ./...</div><ul class="tree"><li class="task" data-task="test">`,
		`after <code>build</code>, <code>fetch</code>`)
}

func testAnswerPageFailureShowsTheJobsExactError(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{interp: script(askonce.Question{Type: askonce.QuestionFreeText, Text: "Which?"}, askonce.Plan{}, "model <unavailable> & gone")})
	j, link := s.ask(t, "anything")
	s.post(t, link, url.Values{"answer": {"x"}})
	got := s.waitJob(t, j.ID)
	if got.Status != askonce.StatusFailed || got.Error == "" {
		t.Fatalf("job %s error %q, want failed", got.Status, got.Error)
	}
	r := s.get(t, link+"/outcome")
	mustContain(t, r, "Planning failed", `<pre class="error failure">`+htmlEscape(got.Error)+`</pre>`)
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func testAnswerPageDeadLinkIs410SayingWhichAndWhen(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	ctx := context.Background()

	answered, aLink := s.ask(t, confirmGoal)
	s.post(t, aLink, url.Values{"answer": {"yes"}})
	answeredJob := s.waitJob(t, answered.ID)

	declined, dLink := s.ask(t, targetGoal, targetFiles...)
	if r := s.post(t, dLink, url.Values{"action": {"decline"}}); r.status != http.StatusSeeOther {
		t.Fatalf("decline: %d %s", r.status, r.body)
	}
	declinedJob := s.waitJob(t, declined.ID)

	cancelled, cLink := s.ask(t, freeGoal)
	if r := s.post(t, cLink, url.Values{"action": {"cancel"}}); r.status != http.StatusSeeOther {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	cancelledJob, err := s.engine.Get(ctx, "", cancelled.ID)
	if err != nil || cancelledJob.Status != askonce.StatusCancelled {
		t.Fatalf("cancelled job: %v %v", cancelledJob, err)
	}
	if r := s.get(t, cLink+"/outcome"); !strings.Contains(r.body, "The job was cancelled") {
		t.Errorf("outcome of a cancel: %d\n%s", r.status, r.body)
	}

	swept, sLink := s.ask(t, freeGoal)   // no default: expires
	overdue, oLink := s.ask(t, freeGoal) // past its expiry, not swept yet
	s.advance(askonce.DefaultQuestionTTL + time.Minute)
	if _, err := s.engine.ExpireDue(ctx); err != nil {
		t.Fatal(err)
	}
	_ = overdue

	cases := []struct {
		name, link string
		wants      []string
	}{
		{"answered", aLink, []string{"already answered", "by a person", "Answered at", fmtTime(*answeredJob.AnsweredAt)}},
		{"declined", dLink, []string{"was declined", "Declined at", fmtTime(*declinedJob.AnsweredAt)}},
		{"cancelled", cLink, []string{"was cancelled", "Cancelled at", fmtTime(cancelledJob.UpdatedAt)}},
		{"expired by the sweep", sLink, []string{"expired", "Expired at", fmtTime(*swept.Question.ExpiresAt)}},
		{"expired before the sweep", oLink, []string{"expired", "Expired at", fmtTime(*overdue.Question.ExpiresAt)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := s.get(t, c.link)
			if r.status != http.StatusGone {
				t.Fatalf("GET: status %d, want 410:\n%s", r.status, r.body)
			}
			mustContain(t, r, c.wants...)
			if strings.Contains(r.body, "<form") {
				t.Errorf("a dead link shows a form:\n%s", r.body)
			}
			if r := s.post(t, c.link, url.Values{"answer": {"yes"}}); r.status != http.StatusGone {
				t.Errorf("POST: status %d, want 410", r.status)
			}
		})
	}
	got, err := s.engine.Get(ctx, "", overdue.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != askonce.StatusPending && got.Status != askonce.StatusExpired {
		t.Errorf("a POST to an expired link changed the job to %s", got.Status)
	}
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func testAnswerPageOutcomeIsVisibleOnlyWithinTheWindowAfterTheAnswer(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	j, link := s.ask(t, confirmGoal)
	s.post(t, link, url.Values{"answer": {"no"}})
	s.waitJob(t, j.ID)
	if r := s.get(t, link); r.status != http.StatusGone || !strings.Contains(r.body, link+"/outcome") {
		t.Fatalf("used link inside the window: %d, want 410 linking the outcome:\n%s", r.status, r.body)
	}
	s.advance(web.OutcomeWindow + time.Second)
	for _, p := range []string{link + "/outcome", link + "/outcome.json"} {
		r := s.get(t, p)
		if r.status != http.StatusGone || strings.Contains(r.body, "plan-tree") {
			t.Errorf("GET %s after the window: %d, want 410 without the plan:\n%s", p, r.status, r.body)
		}
	}
	if r := s.get(t, link); strings.Contains(r.body, "/outcome") {
		t.Errorf("the 410 after the window still links the outcome:\n%s", r.body)
	}
}

func testAnswerPageOutcomeOfALiveLinkRedirectsToTheForm(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	_, link := s.ask(t, confirmGoal)
	r := s.get(t, link+"/outcome")
	if r.status != http.StatusSeeOther || r.header.Get("Location") != link {
		t.Errorf("outcome of a pending question: %d %q, want 303 to the form", r.status, r.header.Get("Location"))
	}
}

func testAnswerPageUnknownTokenIs404WithoutSayingWhetherItExisted(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	_, link := s.ask(t, confirmGoal)
	real := strings.TrimPrefix(link, "/a/")
	swap := "A"
	if real[0] == 'A' {
		swap = "B"
	}
	flipped := "/a/" + swap + real[1:] // one character off a real token
	var bodies []string
	for _, p := range []string{flipped, "/a/" + strings.Repeat("A", 43), "/a/short", "/a/%3Cscript%3E"} {
		r := s.get(t, p)
		if r.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, r.status)
		}
		bodies = append(bodies, r.body)
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("404 pages differ:\n%s\n---\n%s", bodies[0], b)
		}
	}
	mustContain(t, response{body: bodies[0]}, "not valid")
}

func testAnswerPageUnknownTokensPastTheLimitAre429WhileValidLinksStillOpen(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{failedLookups: 3})
	_, link := s.ask(t, confirmGoal)
	for i := 0; i < 3; i++ {
		if r := s.get(t, "/a/"+strings.Repeat("B", 43)); r.status != http.StatusNotFound {
			t.Fatalf("failure %d: %d, want 404", i+1, r.status)
		}
	}
	for _, p := range []string{"/a/" + strings.Repeat("C", 43), "/a/" + strings.Repeat("D", 43) + "/outcome.json"} {
		r := s.get(t, p)
		if r.status != http.StatusTooManyRequests {
			t.Fatalf("GET %s past the limit: %d, want 429", p, r.status)
		}
		if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Errorf("Retry-After %q", ra)
		}
		mustContain(t, r, "Too many attempts")
	}
	// The same address, a valid token: the guesses before it do not count.
	if r := s.get(t, link); r.status != http.StatusOK {
		t.Fatalf("a valid link from an address past the limit: %d, want 200", r.status)
	}
	if r := s.post(t, link, url.Values{"answer": {"yes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("answering through a valid link from an address past the limit: %d, want 303\n%s", r.status, r.body)
	}
	s.advance(time.Minute)
	if r := s.get(t, "/a/"+strings.Repeat("E", 43)); r.status != http.StatusNotFound {
		t.Errorf("an unknown token after the window: %d, want 404", r.status)
	}
}

func testAnswerPagePostFromAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	j, link := s.ask(t, confirmGoal)
	for _, h := range [][]string{{"Origin", "http://evil.example"}, {"Origin", "http://" + strings.TrimPrefix(s.srv.URL, "http://") + ".evil.example"}, {"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Site", "same-site"}} {
		r := s.post(t, link, url.Values{"answer": {"yes"}}, h...)
		if r.status != http.StatusForbidden {
			t.Errorf("%s: %s: %d, want 403", h[0], h[1], r.status)
		}
	}
	got, err := s.engine.Get(context.Background(), "", j.ID)
	if err != nil || got.Status != askonce.StatusPending {
		t.Fatalf("after the refused posts: %v %v, want still pending", got.Status, err)
	}
	// What a browser sends from the page itself under Referrer-Policy: no-referrer.
	if r := s.post(t, link, url.Values{"answer": {"yes"}}, "Origin", "null", "Sec-Fetch-Site", "same-origin"); r.status != http.StatusSeeOther {
		t.Errorf("same origin: %d, want 303:\n%s", r.status, r.body)
	}
}

func testAnswerPageOversizedFormIs413AndChangesNothing(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	j, link := s.ask(t, freeGoal)
	r := s.post(t, link, url.Values{"answer": {strings.Repeat("x", 70<<10)}})
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", r.status)
	}
	if got := s.waitJob(t, j.ID); got.Status != askonce.StatusPending {
		t.Errorf("job %s, want pending", got.Status)
	}
}

func testAnswerPageHostileTextIsEscaped(t *testing.T) {
	t.Parallel()
	q := askonce.Question{Type: askonce.QuestionSelectOne, Text: hostile, Options: []string{`<script>alert(2)</script>`, "b\u202egnp.exe"}, Default: "b\u202egnp.exe", AllowOther: true}
	plan := askonce.Plan{Tasks: []askonce.Task{{ID: "<i>x</i>", Title: hostile, Instruction: `"><svg onload=alert(3)>`, DependsOn: []string{}}}}
	s := newLinkSite(t, linkOptions{interp: script(q, plan, "")})
	j, link := s.ask(t, "goal "+hostile)
	r := s.get(t, link)
	mustContain(t, r, "&lt;img src=x onerror=alert(1)&gt;", "&lt;script&gt;alert(2)&lt;/script&gt;", "&lt;b&gt;hostile&lt;/b&gt; title", "b&lt;U&#43;202E&gt;gnp.exe")
	// The option's bidi control stays only in the submitted value, which is not shown.
	shown := strings.ReplaceAll(r.body, "value=\"b\u202egnp.exe\"", "")
	for _, bad := range []string{"<img", "<script>alert", "<b>hostile", "\u202e"} {
		if strings.Contains(shown, bad) {
			t.Errorf("form page holds %q raw", bad)
		}
	}
	s.post(t, link, url.Values{"answer": {`<script>alert(2)</script>`}})
	s.waitJob(t, j.ID)
	r = s.get(t, link+"/outcome")
	mustContain(t, r, "&lt;img src=x onerror=alert(1)&gt;", "&lt;i&gt;x&lt;/i&gt;", "&#34;&gt;&lt;svg onload=alert(3)&gt;")
	for _, bad := range []string{"<img", "<svg", "<script>alert", "<i>x"} {
		if strings.Contains(r.body, bad) {
			t.Errorf("outcome page holds %q raw", bad)
		}
	}
}
