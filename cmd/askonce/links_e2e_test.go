package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/askonce/askonce/dispatch"
	"github.com/askonce/askonce/webhook"
)

// TestAnswerLinks: answer links: built from --public-url or --addr, and
// never in a log or a stored response.
func TestAnswerLinks(t *testing.T) {
	t.Parallel()
	t.Run("StoredIdempotentResponsesHoldNoToken", answerLinksStoredIdempotentResponsesHoldNoToken)
	t.Run("AccessLogNeverContainsTheToken", answerLinksAccessLogNeverContainsTheToken)
	t.Run("DefaultToAddr", answerLinksDefaultToAddr)
}

// The access log never holds an answer token: a pending job's answer page
// and a path under it are requested, and the server's whole output is
// searched for the token.
func answerLinksAccessLogNeverContainsTheToken(t *testing.T) {
	t.Parallel()
	const public = "https://askonce.example.test/prefix"
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"), "--public-url", public+"/", "--log-level", "debug")
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	link := str(r.body, "answerUrl")
	tok, ok := strings.CutPrefix(link, public+"/a/")
	if r.status != 201 || str(r.body, "status") != "pending" || !ok || len(tok) != 43 {
		t.Fatalf("create: %d answerUrl %q; want a pending job with %s/a/<43 characters>", r.status, link, public)
	}
	for p, want := range map[string]int{"/a/" + tok: http.StatusOK, "/a/" + tok + "/decline": http.StatusNotFound} {
		if g := in.do("GET", p, nil); g.status != want {
			t.Errorf("GET %s: %d, want %d", p, g.status, want)
		}
	}
	id := str(r.body, "jobId")
	// The link reaches every client: jobs show (table and JSON) and run --json.
	out, errs, code := runCLI(t, "", nil, "jobs", "show", "--server", in.base, "--json", id)
	if code != 0 || !strings.Contains(out, `"answerUrl":"`+link+`"`) && !strings.Contains(out, `"answerUrl": "`+link+`"`) {
		t.Errorf("jobs show --json: exit %d %s%s; want answerUrl %s", code, out, errs, link)
	}
	out, errs, code = runCLI(t, "", nil, "jobs", "show", "--server", in.base, id)
	if code != 0 || !strings.Contains(out, "Answer link") || !strings.Contains(out, link) {
		t.Errorf("jobs show: exit %d %s%s; want the answer link", code, out, errs)
	}
	// run --json left pending prints the job, and its error names the link.
	out, errs, _ = runCLI(t, "", nil, "run", "--no-input", "--json", "--server", in.base, "hot frozen cheese")
	var v struct {
		Status    string `json:"status"`
		AnswerURL string `json:"answerUrl"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Status != "pending" || !strings.HasPrefix(v.AnswerURL, public+"/a/") {
		t.Fatalf("run --json: %v %s%s; want a pending job with its answerUrl", err, out, errs)
	}
	if !strings.Contains(errs, "or open "+v.AnswerURL) {
		t.Errorf("run left pending: %s; want it to name the answer link", errs)
	}
	// The log has every line of the requests above once it has the line
	// of a request made after them all: the server writes its lines in
	// order, and they reach the test through a pipe.
	marker := "/log-marker-" + id
	if resp, err := http.Get(in.base + marker); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	eventually(t, "the access-log line of "+marker, func() bool { return strings.Contains(in.logs.String(), "path="+marker) })
	logs := in.logs.String()
	if strings.Contains(logs, tok) || strings.Contains(logs, strings.TrimPrefix(v.AnswerURL, public+"/a/")) {
		t.Fatalf("the server's output holds an answer token:\n%s", logs)
	}
	if !strings.Contains(logs, "path=/a/{token}") {
		t.Errorf("no access-log line for the link request:\n%s", logs)
	}
}

// Without --public-url, links are built from --addr.
func answerLinksDefaultToAddr(t *testing.T) {
	t.Parallel()
	in := start(t, nil, "--db", filepath.Join(t.TempDir(), "a.db"))
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	if link := str(r.body, "answerUrl"); !strings.HasPrefix(link, in.base+"/a/") {
		t.Fatalf("answerUrl %q, want %s/a/<token>", link, in.base)
	}
}

// TestNotifyWebhook: --notify-webhook: signed question events, sent once,
// across restarts.
func TestNotifyWebhook(t *testing.T) {
	t.Parallel()
	t.Run("HearsAskedAndResolvedSigned", notifyWebhookHearsAskedAndResolvedSigned)
	t.Run("NotificationQueuedBeforeARestartIsSentOnItsFirstTry", notifyWebhookNotificationQueuedBeforeARestartIsSentOnItsFirstTry)
}

// --notify-webhook: the receiver gets question.asked with the job's own
// answer link and question.resolved, both signed.
func notifyWebhookHearsAskedAndResolvedSigned(t *testing.T) {
	t.Parallel()
	const secret = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM="
	var mu sync.Mutex
	got := map[string][]byte{}
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(secret, r.Header, body, time.Minute); err != nil {
			t.Errorf("Verify: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[r.Header.Get("webhook-id")]; dup {
			t.Errorf("%s delivered twice", r.Header.Get("webhook-id"))
		}
		got[r.Header.Get("webhook-id")] = body
	}))
	defer rcv.Close()
	in := start(t, []string{"ASKONCE_NOTIFY_SECRET=" + secret}, "--db", filepath.Join(t.TempDir(), "a.db"), "--notify-webhook", rcv.URL)
	r := in.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese"})
	id, link := str(r.body, "jobId"), str(r.body, "answerUrl")
	if link == "" {
		t.Fatalf("create: %s", r.raw)
	}
	if a := in.do("POST", "/jobs/"+id+"/cancel", nil); a.status != 200 {
		t.Fatalf("cancel: %d %s", a.status, a.raw)
	}
	received := func() (asked, resolved []byte) {
		mu.Lock()
		defer mu.Unlock()
		return got[id+":question.asked"], got[id+":question.resolved"]
	}
	eventually(t, "both notifications", func() bool { a, r := received(); return a != nil && r != nil })
	asked, resolved := received()
	var a dispatch.AskedEvent
	var res dispatch.ResolvedEvent
	if err := json.Unmarshal(asked, &a); err != nil || a.JobID != id || a.Question.Text == "" {
		t.Errorf("question.asked %s: %v", asked, err)
	}
	// Sent before or after the cancel: the link is the job's while it
	// was pending, absent once it was not.
	if a.AnswerURL != "" && a.AnswerURL != link {
		t.Errorf("question.asked answerUrl %q, want %q", a.AnswerURL, link)
	}
	if err := json.Unmarshal(resolved, &res); err != nil || res.Status != "cancelled" || res.Type != "question.resolved" {
		t.Errorf("question.resolved %s: %v", resolved, err)
	}
}

// Question notifications queued by a process that died are sent by the
// next one as soon as it starts, on their first try: the worker renders
// the answer link with an engine that is wired before River runs. The
// first process's receiver holds every request it gets, so the
// notifications beyond its workers stay queued, untried, until the
// restart; the second one's retries would wait an hour, so a try spent on
// a panic would never arrive in time.
func notifyWebhookNotificationQueuedBeforeARestartIsSentOnItsFirstTry(t *testing.T) {
	t.Parallel()
	const secret = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM="
	db := filepath.Join(t.TempDir(), "a.db")
	held := make(chan struct{})
	var mu sync.Mutex
	seenFirst := map[string]bool{}
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seenFirst[r.Header.Get("webhook-id")] = true
		mu.Unlock()
		select {
		case <-held:
		case <-r.Context().Done():
		}
	}))
	defer first.Close()
	defer close(held)
	got := map[string]int{}
	second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(secret, r.Header, body, time.Minute); err != nil {
			t.Errorf("Verify: %v", err)
		}
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		mu.Unlock()
	}))
	defer second.Close()

	env := []string{"ASKONCE_NOTIFY_SECRET=" + secret}
	a := start(t, env, "--db", db, "--notify-webhook", first.URL, "--delivery-backoff", "1h")
	var ids []string
	for i := range 12 {
		r := a.do("POST", "/jobs", map[string]any{"goal": "hot frozen cheese", "sessionId": fmt.Sprintf("s%d", i)})
		if r.status != 201 || str(r.body, "status") != "pending" {
			t.Fatalf("create: %d %s", r.status, r.raw)
		}
		ids = append(ids, str(r.body, "jobId"))
	}
	eventually(t, "the first process to hold some notifications", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seenFirst) > 0
	})
	a.stop(syscall.SIGKILL)

	b := start(t, env, "--db", db, "--notify-webhook", second.URL, "--delivery-backoff", "1h")
	mu.Lock()
	var untried []string
	for _, id := range ids {
		if !seenFirst[id+":question.asked"] {
			untried = append(untried, id+":question.asked")
		}
	}
	mu.Unlock()
	if len(untried) == 0 {
		t.Fatal("every notification was tried before the kill; nothing was left queued")
	}
	within(t, 20*time.Second, "the queued notifications to be sent", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, id := range untried {
			if got[id] == 0 {
				return false
			}
		}
		return true
	})
	for _, id := range untried {
		if got[id] != 1 {
			t.Errorf("%s sent %d times, want once", id, got[id])
		}
	}
	if logs := b.logs.String(); strings.Contains(logs, "panic") {
		t.Fatalf("the restarted server panicked:\n%s", logs)
	}
}
