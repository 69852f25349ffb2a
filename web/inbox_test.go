package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/auth"
	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/web"
)

const (
	askingGoal   = "hot frozen cheese"               // the rules interpreter asks a SELECT_ONE question
	planningGoal = "write the README then add tests" // plans two tasks, one after the other
	hostile      = `<img src=x onerror=alert(1)>`
	keyAlpha     = "key-alpha-0123456789"
	keyBeta      = "key-beta-9876543210"
)

// inboxSite is the inbox (and the JSON API beside it, for the browser
// tests) on a real loopback listener over a real SQLite file and the
// rules interpreter. With keys, keyAlpha is tenant alpha and keyBeta
// tenant beta.
type inboxSite struct {
	t      *testing.T
	srv    *httptest.Server
	engine *askonce.Engine

	pollOnce sync.Once
	polled   chan struct{} // closed once the first GET /ui/updates was answered
}

func newInboxSite(t *testing.T, withKeys, useTLS bool) *inboxSite {
	t.Helper()
	eng := newEngine(t, nil)
	eng.LinkSecret = nil // links are switched on by the test that needs them
	var keys *auth.Keys
	var err error
	if withKeys {
		keys, err = auth.LoadKeys(strings.NewReader("alpha " + auth.HashKey(keyAlpha) + " name=alice\nbeta " + auth.HashKey(keyBeta) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
	}
	s := &inboxSite{t: t, engine: eng, polled: make(chan struct{})}
	pages := web.New(web.Config{Engine: eng, Keys: keys})
	api := server.New(server.Config{Engine: eng, Keys: keys})
	mux := http.NewServeMux()
	for _, p := range web.Patterns {
		mux.Handle(p, pages)
	}
	mux.Handle("/", api)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mux.ServeHTTP(w, r)
		if r.URL.Path == "/ui/updates" {
			s.pollOnce.Do(func() { close(s.polled) })
		}
	})
	if useTLS {
		s.srv = httptest.NewTLSServer(h)
	} else {
		s.srv = httptest.NewServer(h)
	}
	t.Cleanup(func() { s.srv.Close(); eng.Drain(context.Background()) })
	return s
}

// create makes a job of tenant ("" is the default tenant) and fails the
// test on error.
func (s *inboxSite) create(tenant, session, goal string) *askonce.Job {
	s.t.Helper()
	j, err := s.engine.Create(context.Background(), askonce.CreateRequest{TenantID: tenant, SessionID: session, Goal: goal})
	if err != nil {
		s.t.Fatalf("create %q: %v", goal, err)
	}
	return j
}

// reply is one response with its body read.
type reply struct {
	*http.Response
	body string
}

// do sends one request without following redirects. form, when non-nil,
// is posted; header holds name, value pairs.
func (s *inboxSite) do(method, path string, form url.Values, cookies []*http.Cookie, header ...string) reply {
	s.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.srv.URL+path, body)
	if err != nil {
		s.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	client := *s.srv.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return reply{resp, string(b)}
}

func (s *inboxSite) get(path string, cookies ...*http.Cookie) reply {
	s.t.Helper()
	return s.do("GET", path, nil, cookies)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrfOf returns the CSRF token of the first form on the page.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf field on the page:\n%s", page)
	}
	return m[1]
}

func cookieNamed(cs []*http.Cookie, name string) *http.Cookie {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// login signs in with key and returns the session cookie.
func (s *inboxSite) login(key string) *http.Cookie {
	s.t.Helper()
	form := s.get("/ui/login")
	csrf := cookieNamed(form.Cookies(), "askonce_csrf")
	if form.StatusCode != http.StatusOK || csrf == nil {
		s.t.Fatalf("GET /ui/login: %d, cookies %v", form.StatusCode, form.Cookies())
	}
	r := s.do("POST", "/ui/login", url.Values{"key": {key}, "csrf": {csrfOf(s.t, form.body)}}, []*http.Cookie{csrf}, "Origin", s.srv.URL)
	sess := cookieNamed(r.Cookies(), "askonce_session")
	if r.StatusCode != http.StatusSeeOther || sess == nil {
		s.t.Fatalf("POST /ui/login: %d, cookies %v\n%s", r.StatusCode, r.Cookies(), r.body)
	}
	return sess
}

func wantStatus(t *testing.T, r reply, status int) {
	t.Helper()
	if r.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d\n%s", r.Request.Method, r.Request.URL.Path, r.StatusCode, status, r.body)
	}
}

// TestInbox checks the inbox at /ui, one behaviour per subtest.
func TestInbox(t *testing.T) {
	t.Parallel()
	t.Run("JobPageShowsCandidatesEscapedAndCounted", testInboxJobPageShowsCandidatesEscapedAndCounted)
	t.Run("ListsPendingQuestionsOldestFirstThenRecentJobs", testInboxListsPendingQuestionsOldestFirstThenRecentJobs)
	t.Run("FiltersByStatusAndSession", testInboxFiltersByStatusAndSession)
	t.Run("BadQueryIsA400Page", testInboxBadQueryIsA400Page)
	t.Run("UnknownJobOrPageIsA404Page", testInboxUnknownJobOrPageIsA404Page)
	t.Run("PagesFollowTheEngineCursor", testInboxPagesFollowTheEngineCursor)
	t.Run("HostileTextRendersAsText", testInboxHostileTextRendersAsText)
	t.Run("PagesCarryTheSecurityHeaders", testInboxPagesCarryTheSecurityHeaders)
	t.Run("JobPageShowsQuestionAttemptsEventsAndPlanTree", testInboxJobPageShowsQuestionAttemptsEventsAndPlanTree)
	t.Run("UpdatesStateChangesWhenAQuestionArrives", testInboxUpdatesStateChangesWhenAQuestionArrives)
	t.Run("WithKeysAsksForAKeyFirst", testInboxWithKeysAsksForAKeyFirst)
	t.Run("SessionCookieHoldsARandomIDNeverTheKey", testInboxSessionCookieHoldsARandomIDNeverTheKey)
	t.Run("ShowsOnlyTheSignedInTenantsJobs", testInboxShowsOnlyTheSignedInTenantsJobs)
	t.Run("SessionOlderThanItsTTLGoesToTheLoginPage", testInboxSessionOlderThanItsTTLGoesToTheLoginPage)
	t.Run("SignedInTenantCancelsItsOwnJob", testInboxSignedInTenantCancelsItsOwnJob)
	t.Run("LogoutEndsTheSession", testInboxLogoutEndsTheSession)
	t.Run("FormPostsWithoutSameOriginOrTokenAre403", testInboxFormPostsWithoutSameOriginOrTokenAre403)
	t.Run("JobPageLinksThePendingQuestionsAnswerPage", testInboxJobPageLinksThePendingQuestionsAnswerPage)
	t.Run("SignedInAnswerOnTheAnswerPageRecordsTheKeysName", testInboxSignedInAnswerOnTheAnswerPageRecordsTheKeysName)
	t.Run("JobPageShowsRecipientsAndWhoAnswered", testInboxJobPageShowsRecipientsAndWhoAnswered)
}

func testInboxListsPendingQuestionsOldestFirstThenRecentJobs(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	older := s.create("", "s1", askingGoal+" first")
	newer := s.create("", "s2", askingGoal+" second")
	done := s.create("", "s3", planningGoal)
	if older.Status != askonce.StatusPending || newer.Status != askonce.StatusPending || done.Status != askonce.StatusSuccess {
		t.Fatalf("fixture: statuses %s %s %s", older.Status, newer.Status, done.Status)
	}
	r := s.get("/ui")
	wantStatus(t, r, http.StatusOK)
	pending := r.body[strings.Index(r.body, `id="pending-h"`):strings.Index(r.body, `id="jobs-h"`)]
	io, in := strings.Index(pending, "/ui/jobs/"+older.ID), strings.Index(pending, "/ui/jobs/"+newer.ID)
	if io < 0 || in < 0 || io > in {
		t.Fatalf("pending section lists the older question at %d and the newer at %d; want older first:\n%s", io, in, pending)
	}
	if strings.Contains(pending, done.ID) {
		t.Fatalf("the pending section lists the successful job %s", done.ID)
	}
	for _, want := range []string{older.Question.Text, "Pick one", "expires", "waiting"} {
		if !strings.Contains(pending, escaped(want)) {
			t.Fatalf("pending section lacks %q:\n%s", want, pending)
		}
	}
	recent := r.body[strings.Index(r.body, `id="jobs-h"`):]
	for _, j := range []*askonce.Job{older, newer, done} {
		if !strings.Contains(recent, "/ui/jobs/"+j.ID) {
			t.Fatalf("recent jobs lack %s:\n%s", j.ID, recent)
		}
	}
	if strings.Index(recent, done.ID) > strings.Index(recent, older.ID) {
		t.Fatalf("recent jobs are not newest first")
	}
}

// escaped escapes s as html/template escapes text.
func escaped(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func testInboxFiltersByStatusAndSession(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	asking := s.create("", "alpha-session", askingGoal)
	planned := s.create("", "beta-session", planningGoal)
	cases := []struct {
		query      string
		shown, not *askonce.Job
	}{
		{"?status=success", planned, asking},
		{"?session=alpha-session", asking, planned},
		{"?status=pending&session=beta-session", nil, planned},
	}
	for _, c := range cases {
		r := s.get("/ui" + c.query)
		wantStatus(t, r, http.StatusOK)
		recent := r.body[strings.Index(r.body, `id="jobs-h"`):]
		if c.shown != nil && !strings.Contains(recent, c.shown.ID) {
			t.Errorf("%s: recent jobs lack %s", c.query, c.shown.ID)
		}
		if strings.Contains(recent, c.not.ID) {
			t.Errorf("%s: recent jobs show %s (status %s, session %s)", c.query, c.not.ID, c.not.Status, c.not.SessionID)
		}
	}
}

func testInboxBadQueryIsA400Page(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	for _, q := range []string{"?status=bogus", "?status=%3Cb%3E", "?cursor=not-a-cursor", "?session=" + strings.Repeat("x", 300)} {
		r := s.get("/ui" + q)
		wantStatus(t, r, http.StatusBadRequest)
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(r.body, "Bad request") {
			t.Errorf("%s: not the 400 page: %s\n%s", q, r.Header.Get("Content-Type"), r.body)
		}
		if strings.Contains(r.body, "<b>") {
			t.Errorf("%s: the status is not escaped:\n%s", q, r.body)
		}
	}
	r := s.get("/ui/updates?status=bogus")
	wantStatus(t, r, http.StatusBadRequest)
}

func testInboxUnknownJobOrPageIsA404Page(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	for _, p := range []string{"/ui/jobs/no-such-job", "/ui/nothing-here"} {
		r := s.get(p)
		wantStatus(t, r, http.StatusNotFound)
		if !strings.Contains(r.body, "Not found") || r.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: not the 404 page with its headers:\n%v\n%s", p, r.Header, r.body)
		}
	}
}

func testInboxPagesFollowTheEngineCursor(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	var ids []string
	for range 52 {
		ids = append(ids, s.create("", "", planningGoal).ID)
	}
	first := s.get("/ui")
	wantStatus(t, first, http.StatusOK)
	m := regexp.MustCompile(`href="(/ui\?cursor=[^"]+)" rel="next"`).FindStringSubmatch(first.body)
	if m == nil {
		t.Fatalf("52 jobs and no next page link:\n%s", first.body)
	}
	second := s.get(strings.ReplaceAll(m[1], "&amp;", "&"))
	wantStatus(t, second, http.StatusOK)
	for i, id := range ids {
		onFirst, onSecond := strings.Contains(first.body, id), strings.Contains(second.body, id)
		if onFirst == onSecond {
			t.Fatalf("job %d (%s): on the first page %v, on the second %v; want exactly one", i, id, onFirst, onSecond)
		}
	}
	if !strings.Contains(second.body, "newest") {
		t.Fatalf("the second page has no link back to the first")
	}
}

func testInboxHostileTextRendersAsText(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	j := s.create("", hostile, hostile+" "+askingGoal)
	for _, p := range []string{"/ui", "/ui/jobs/" + j.ID, "/ui?session=" + url.QueryEscape(hostile)} {
		r := s.get(p)
		wantStatus(t, r, http.StatusOK)
		if strings.Contains(r.body, "<img") {
			t.Errorf("%s: the goal's markup is in the page:\n%s", p, r.body)
		}
		if !strings.Contains(r.body, "&lt;img src=x onerror=alert(1)&gt;") {
			t.Errorf("%s: the goal is not shown as text:\n%s", p, r.body)
		}
	}
}

func testInboxPagesCarryTheSecurityHeaders(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	j := s.create("", "", askingGoal)
	for _, p := range []string{"/ui", "/ui/jobs/" + j.ID, "/ui/jobs/nope"} {
		r := s.get(p)
		h := r.Header
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", p, csp)
		}
		if h.Get("X-Frame-Options") != "DENY" || h.Get("Cache-Control") != "no-store" || h.Get("Referrer-Policy") != "same-origin" {
			t.Errorf("%s: headers %v", p, h)
		}
		if !strings.Contains(r.body, `<meta name="referrer" content="same-origin">`) {
			t.Errorf("%s: the page's referrer policy is not same-origin (its posts would carry Origin: null)", p)
		}
	}
}

func testInboxJobPageShowsQuestionAttemptsEventsAndPlanTree(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	j := s.create("", "sess", askingGoal)
	r := s.get("/ui/jobs/" + j.ID)
	wantStatus(t, r, http.StatusOK)
	for _, want := range []string{j.Goal, j.Question.Text, "Pick one", "Cancel this job", "created", "asked", "first try"} {
		if !strings.Contains(r.body, escaped(want)) {
			t.Errorf("pending job page lacks %q", want)
		}
	}
	for _, o := range j.Question.Options {
		if !strings.Contains(r.body, escaped(o)) {
			t.Errorf("pending job page lacks option %q", o)
		}
	}
	answered, _, err := s.engine.Act(context.Background(), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(j.Question.Options[0])})
	if err != nil {
		t.Fatal(err)
	}
	r = s.get("/ui/jobs/" + j.ID)
	wantStatus(t, r, http.StatusOK)
	for _, want := range []string{`answered <strong class="answer-source">by a person</strong>`, escaped(j.Question.Options[0]), "answered"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("answered job page lacks %q", want)
		}
	}
	if answered.Status.Terminal() && strings.Contains(r.body, "Cancel this job") {
		t.Errorf("a %s job offers Cancel", answered.Status)
	}

	p := s.create("", "", planningGoal)
	if p.Plan == nil || len(p.Plan.Tasks) < 2 {
		t.Fatalf("fixture: %q planned %+v", planningGoal, p.Plan)
	}
	r = s.get("/ui/jobs/" + p.ID)
	wantStatus(t, r, http.StatusOK)
	// A task that depends on another is drawn inside that task's item.
	dependent := 0
	for _, task := range p.Plan.Tasks {
		if len(task.DependsOn) == 0 {
			continue
		}
		dependent++
		dep := task.DependsOn[len(task.DependsOn)-1]
		tree := regexp.MustCompile(`(?s)<span class="task-id">` + regexp.QuoteMeta(escaped(dep)) + `</span>.*?<ul class="tree" role="group"><li role="treeitem"><span class="task-id">` + regexp.QuoteMeta(escaped(task.ID)) + `</span>.*?\(after ` + regexp.QuoteMeta(escaped(strings.Join(task.DependsOn, ", "))) + `\)`)
		if !tree.MatchString(r.body) {
			t.Errorf("task %s is not drawn under %s with its dependencies named:\n%s", task.ID, dep, r.body)
		}
	}
	if dependent == 0 {
		t.Fatalf("fixture: no task of %q depends on another: %+v", planningGoal, p.Plan.Tasks)
	}
}

func testInboxUpdatesStateChangesWhenAQuestionArrives(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	state := func(path string) string {
		r := s.get(path)
		wantStatus(t, r, http.StatusOK)
		var body struct{ State string }
		if err := json.Unmarshal([]byte(r.body), &body); err != nil || body.State == "" {
			t.Fatalf("%s: %v %q", path, err, r.body)
		}
		return body.State
	}
	before := state("/ui/updates")
	if again := state("/ui/updates"); again != before {
		t.Fatalf("the state changed with nothing happening: %s then %s", before, again)
	}
	j := s.create("", "", askingGoal)
	if after := state("/ui/updates"); after == before {
		t.Fatalf("a new pending question left the state at %s", after)
	}
	jobBefore := state("/ui/updates?job=" + j.ID)
	if _, _, err := s.engine.Act(context.Background(), askonce.Act{Do: askonce.ActCancel, ID: j.ID}); err != nil {
		t.Fatal(err)
	}
	if after := state("/ui/updates?job=" + j.ID); after == jobBefore {
		t.Fatalf("cancelling the job left its page state at %s", after)
	}
	wantStatus(t, s.get("/ui/updates?job=nope"), http.StatusNotFound)
}

func testInboxWithKeysAsksForAKeyFirst(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, true, false)
	j := s.create("alpha", "", askingGoal)
	for _, p := range []string{"/ui", "/ui/jobs/" + j.ID} {
		r := s.get(p)
		if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/ui/login" {
			t.Errorf("%s without a session: %d to %q, want 303 to /ui/login", p, r.StatusCode, r.Header.Get("Location"))
		}
	}
	wantStatus(t, s.get("/ui/updates"), http.StatusUnauthorized)
	wantStatus(t, s.get("/ui", &http.Cookie{Name: "askonce_session", Value: keyAlpha}), http.StatusSeeOther)

	form := s.get("/ui/login")
	wantStatus(t, form, http.StatusOK)
	r := s.do("POST", "/ui/login", url.Values{"key": {"wrong"}, "csrf": {csrfOf(t, form.body)}}, form.Cookies(), "Origin", s.srv.URL)
	wantStatus(t, r, http.StatusUnauthorized)
	if cookieNamed(r.Cookies(), "askonce_session") != nil || !strings.Contains(r.body, "not valid") {
		t.Fatalf("a wrong key got a session or no message: %v\n%s", r.Cookies(), r.body)
	}
}

func testInboxSessionCookieHoldsARandomIDNeverTheKey(t *testing.T) {
	t.Parallel()
	for _, useTLS := range []bool{false, true} {
		s := newInboxSite(t, true, useTLS)
		c := s.login(keyAlpha)
		if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/ui" || c.Secure != useTLS {
			t.Errorf("TLS %v: cookie %+v; want HttpOnly, SameSite=Strict, Path=/ui, Secure only over TLS", useTLS, c)
		}
		raw, err := rawBase64(c.Value)
		if err != nil || len(raw) != 32 {
			t.Errorf("session id %q is not 256 bits of base64url: %v", c.Value, err)
		}
		if strings.Contains(c.Value, keyAlpha) || strings.Contains(c.Value, auth.HashKey(keyAlpha)) {
			t.Errorf("the session cookie carries the key: %q", c.Value)
		}
		if again := s.login(keyAlpha); again.Value == c.Value {
			t.Errorf("two sign-ins got the same session id")
		}
		wantStatus(t, s.get("/ui", c), http.StatusOK)
	}
}

func testInboxShowsOnlyTheSignedInTenantsJobs(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, true, false)
	a := s.create("alpha", "", askingGoal+" for alpha")
	b := s.create("beta", "", askingGoal+" for beta")
	ca, cb := s.login(keyAlpha), s.login(keyBeta)
	for _, c := range []struct {
		cookie       *http.Cookie
		tenant       string
		mine, theirs *askonce.Job
	}{{ca, "alpha", a, b}, {cb, "beta", b, a}} {
		r := s.get("/ui", c.cookie)
		wantStatus(t, r, http.StatusOK)
		if !strings.Contains(r.body, c.mine.ID) || strings.Contains(r.body, c.theirs.ID) || strings.Contains(r.body, c.theirs.Goal) {
			t.Errorf("%s's inbox: has own job %v, has the other tenant's %v", c.tenant, strings.Contains(r.body, c.mine.ID), strings.Contains(r.body, c.theirs.ID))
		}
		if !strings.Contains(r.body, "tenant <strong>"+c.tenant+"</strong>") {
			t.Errorf("%s's inbox does not say whose it is", c.tenant)
		}
		wantStatus(t, s.get("/ui/jobs/"+c.theirs.ID, c.cookie), http.StatusNotFound)
		wantStatus(t, s.get("/ui/updates?job="+c.theirs.ID, c.cookie), http.StatusNotFound)
		page := s.get("/ui/jobs/"+c.mine.ID, c.cookie)
		wantStatus(t, page, http.StatusOK)
		// Cancelling the other tenant's job with one's own valid token is
		// a 404 and leaves it pending.
		r = s.do("POST", "/ui/jobs/"+c.theirs.ID+"/cancel", url.Values{"csrf": {csrfOf(t, page.body)}}, []*http.Cookie{c.cookie}, "Origin", s.srv.URL)
		wantStatus(t, r, http.StatusNotFound)
		if j, err := s.engine.Get(context.Background(), c.theirs.TenantID, c.theirs.ID); err != nil || j.Status != askonce.StatusPending {
			t.Fatalf("the other tenant's job after a cross-tenant cancel: %v %v", j, err)
		}
	}
}

// A session lasts web.SessionTTL from its sign-in: after that the inbox
// sends the browser to the login page and its posts change nothing.
func testInboxSessionOlderThanItsTTLGoesToTheLoginPage(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, true, false)
	var offset atomic.Int64
	s.engine.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	j := s.create("alpha", "", askingGoal)
	c := s.login(keyAlpha)
	offset.Store(int64(web.SessionTTL - time.Minute))
	page := s.get("/ui/jobs/"+j.ID, c)
	wantStatus(t, page, http.StatusOK)
	offset.Store(int64(web.SessionTTL + time.Minute))
	for _, p := range []string{"/ui", "/ui/jobs/" + j.ID} {
		r := s.get(p, c)
		if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/ui/login" {
			t.Errorf("%s with a session older than its TTL: %d to %q, want 303 to /ui/login", p, r.StatusCode, r.Header.Get("Location"))
		}
	}
	r := s.do("POST", "/ui/jobs/"+j.ID+"/cancel", url.Values{"csrf": {csrfOf(t, page.body)}}, []*http.Cookie{c}, "Origin", s.srv.URL)
	wantStatus(t, r, http.StatusForbidden)
	if got, err := s.engine.Get(context.Background(), "alpha", j.ID); err != nil || got.Status != askonce.StatusPending {
		t.Fatalf("after a cancel with an expired session the job is %v (%v), want pending", got.Status, err)
	}
}

// A signed-in tenant other than the default cancels its own job from the
// job page.
func testInboxSignedInTenantCancelsItsOwnJob(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, true, false)
	j := s.create("beta", "", askingGoal)
	c := s.login(keyBeta)
	page := s.get("/ui/jobs/"+j.ID, c)
	wantStatus(t, page, http.StatusOK)
	r := s.do("POST", "/ui/jobs/"+j.ID+"/cancel", url.Values{"csrf": {csrfOf(t, page.body)}}, []*http.Cookie{c}, "Origin", s.srv.URL)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("beta cancels its own job: %d\n%s", r.StatusCode, r.body)
	}
	if got, err := s.engine.Get(context.Background(), "beta", j.ID); err != nil || got.Status != askonce.StatusCancelled {
		t.Fatalf("beta's job after its cancel: %v (%v), want cancelled", got.Status, err)
	}
}

func testInboxLogoutEndsTheSession(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, true, false)
	c := s.login(keyAlpha)
	page := s.get("/ui", c)
	wantStatus(t, page, http.StatusOK)
	r := s.do("POST", "/ui/logout", url.Values{"csrf": {csrfOf(t, page.body)}}, []*http.Cookie{c}, "Origin", s.srv.URL)
	wantStatus(t, r, http.StatusSeeOther)
	if cleared := cookieNamed(r.Cookies(), "askonce_session"); cleared == nil || cleared.MaxAge >= 0 {
		t.Errorf("logout did not clear the cookie: %v", r.Cookies())
	}
	wantStatus(t, s.get("/ui", c), http.StatusSeeOther)
}

func testInboxFormPostsWithoutSameOriginOrTokenAre403(t *testing.T) {
	t.Parallel()
	open := newInboxSite(t, false, false)
	keyed := newInboxSite(t, true, false)

	j := open.create("", "", askingGoal)
	page := open.get("/ui/jobs/" + j.ID)
	wantStatus(t, page, http.StatusOK)
	csrfCookie := cookieNamed(page.Cookies(), "askonce_csrf")
	if csrfCookie == nil || !csrfCookie.HttpOnly || csrfCookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("the open inbox set no strict double-submit cookie: %v", page.Cookies())
	}
	token := csrfOf(t, page.body)
	if token != csrfCookie.Value {
		t.Fatalf("the form's token %q is not the cookie's %q", token, csrfCookie.Value)
	}
	cancel := "/ui/jobs/" + j.ID + "/cancel"
	evil := "http://evil.example"
	cases := []struct {
		name    string
		form    url.Values
		cookies []*http.Cookie
		header  []string
	}{
		{"no Origin and no Referer", url.Values{"csrf": {token}}, []*http.Cookie{csrfCookie}, nil},
		{"Origin of another site", url.Values{"csrf": {token}}, []*http.Cookie{csrfCookie}, []string{"Origin", evil}},
		{"Origin null", url.Values{"csrf": {token}}, []*http.Cookie{csrfCookie}, []string{"Origin", "null"}},
		{"Referer of another site", url.Values{"csrf": {token}}, []*http.Cookie{csrfCookie}, []string{"Referer", evil + "/ui"}},
		{"Origin of another site with our Referer", url.Values{"csrf": {token}}, []*http.Cookie{csrfCookie}, []string{"Origin", evil, "Referer", open.srv.URL + "/ui"}},
		{"no token", url.Values{}, []*http.Cookie{csrfCookie}, []string{"Origin", open.srv.URL}},
		{"no cookie", url.Values{"csrf": {token}}, nil, []string{"Origin", open.srv.URL}},
		{"neither cookie nor token", url.Values{}, nil, []string{"Origin", open.srv.URL}},
		{"token not the cookie's", url.Values{"csrf": {token + "x"}}, []*http.Cookie{csrfCookie}, []string{"Origin", open.srv.URL}},
	}
	for _, c := range cases {
		r := open.do("POST", cancel, c.form, c.cookies, c.header...)
		if r.StatusCode != http.StatusForbidden || !strings.Contains(r.body, "Forbidden") {
			t.Errorf("cancel with %s: %d, want the 403 page\n%s", c.name, r.StatusCode, r.body)
		}
	}
	if got, err := open.engine.Get(context.Background(), "", j.ID); err != nil || got.Status != askonce.StatusPending {
		t.Fatalf("after the refused posts the job is %v (%v), want pending", got.Status, err)
	}
	// Same origin by Referer alone (a browser that sends no Origin) and
	// the right token: accepted.
	r := open.do("POST", cancel, url.Values{"csrf": {token}}, []*http.Cookie{csrfCookie}, "Referer", open.srv.URL+"/ui/jobs/"+j.ID)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("a same-origin cancel with its token: %d\n%s", r.StatusCode, r.body)
	}
	if got, err := open.engine.Get(context.Background(), "", j.ID); err != nil || got.Status != askonce.StatusCancelled {
		t.Fatalf("after the cancel the job is %v (%v)", got.Status, err)
	}

	// Login and logout need the origin and the token too; a session's
	// token is not the double-submit cookie.
	form := keyed.get("/ui/login")
	loginToken := csrfOf(t, form.body)
	for name, r := range map[string]reply{
		"login without Origin":  keyed.do("POST", "/ui/login", url.Values{"key": {keyAlpha}, "csrf": {loginToken}}, form.Cookies()),
		"login from elsewhere":  keyed.do("POST", "/ui/login", url.Values{"key": {keyAlpha}, "csrf": {loginToken}}, form.Cookies(), "Origin", evil),
		"login without a token": keyed.do("POST", "/ui/login", url.Values{"key": {keyAlpha}}, form.Cookies(), "Origin", keyed.srv.URL),
	} {
		if r.StatusCode != http.StatusForbidden || cookieNamed(r.Cookies(), "askonce_session") != nil {
			t.Errorf("%s: %d, cookies %v; want 403 and no session", name, r.StatusCode, r.Cookies())
		}
	}
	sess := keyed.login(keyAlpha)
	kj := keyed.create("alpha", "", askingGoal)
	r = keyed.do("POST", "/ui/jobs/"+kj.ID+"/cancel", url.Values{"csrf": {loginToken}}, append(form.Cookies(), sess), "Origin", keyed.srv.URL)
	wantStatus(t, r, http.StatusForbidden)
	r = keyed.do("POST", "/ui/logout", url.Values{}, []*http.Cookie{sess}, "Origin", keyed.srv.URL)
	wantStatus(t, r, http.StatusForbidden)
	wantStatus(t, keyed.get("/ui", sess), http.StatusOK)
}

func rawBase64(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(s)
}

func testInboxJobPageLinksThePendingQuestionsAnswerPage(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	s.engine.LinkSecret = []byte("0123456789abcdef0123456789abcdef")
	j := s.create("", "", askingGoal)
	r := s.get("/ui/jobs/" + j.ID)
	wantStatus(t, r, http.StatusOK)
	if want := s.engine.AnswerURL("", j); want == "" || !strings.Contains(r.body, `href="`+want+`"`) {
		t.Fatalf("job page of a pending job has no link to %q:\n%s", want, r.body)
	}
}

// A person signed in to the inbox who answers on the answer page it links
// to is recorded as the name of the key they signed in with; signed in to
// another tenant, or with an unnamed key, or not at all, the answer still
// counts (the link is what lets anyone answer) and names no one.
func testInboxSignedInAnswerOnTheAnswerPageRecordsTheKeysName(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, true, false)
	s.engine.LinkSecret = []byte("0123456789abcdef0123456789abcdef")
	form := s.get("/ui/login")
	r := s.do("POST", "/ui/login", url.Values{"key": {keyAlpha}, "csrf": {csrfOf(t, form.body)}}, form.Cookies(), "Origin", s.srv.URL)
	var answerCookie *http.Cookie
	for _, c := range r.Cookies() {
		if c.Name == "askonce_session" && c.Path == "/a/" {
			answerCookie = c
		}
	}
	if answerCookie == nil || !answerCookie.HttpOnly || answerCookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("sign-in set no HttpOnly, SameSite=Strict session cookie for /a/: %v", r.Cookies())
	}
	beta := s.login(keyBeta)
	for _, c := range []struct {
		name    string
		tenant  string
		cookies []*http.Cookie
		want    string
	}{
		{"SignedInWithANamedKey", "alpha", []*http.Cookie{answerCookie}, "alice"},
		{"SignedInToAnotherTenant", "alpha", []*http.Cookie{{Name: "askonce_session", Value: beta.Value}}, ""},
		{"SignedInWithAnUnnamedKey", "beta", []*http.Cookie{{Name: "askonce_session", Value: beta.Value}}, ""},
		{"NotSignedIn", "alpha", nil, ""},
	} {
		j := s.create(c.tenant, "", askingGoal)
		link := s.engine.AnswerURL("", j)
		r := s.do("POST", link, url.Values{"answer": {"hot"}, "action": {"answer"}}, c.cookies, "Origin", s.srv.URL)
		if r.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: answer: %d\n%s", c.name, r.StatusCode, r.body)
		}
		got, err := s.engine.Get(context.Background(), c.tenant, j.ID)
		if err != nil || got.AnsweredVia != askonce.ViaWeb || got.AnsweredBy != c.want {
			t.Errorf("%s: %v answeredVia %q answeredBy %q; want web, %q", c.name, err, got.AnsweredVia, got.AnsweredBy, c.want)
		}
	}
}
