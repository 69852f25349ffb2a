package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce/server"
	"github.com/askonce/askonce/sqlite"
)

const publicURL = "https://askonce.example.test/base"

// withLinks gives the engine the database's link secret and the server a
// public URL.
func withLinks(mount func(*http.ServeMux)) func(*server.Config) {
	return func(c *server.Config) {
		c.Engine.LinkSecret = c.Engine.Store.(*sqlite.Store).LinkSecret()
		c.PublicURL = publicURL + "/"
		c.Mount = mount
	}
}

func TestAnswerURLIsPresentOnlyWhilePendingAndBuiltFromPublicURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{interp: questioner{askOther}, config: withLinks(nil)})
	j := e.create(map[string]any{"goal": hotFrozen})
	id := str(j, "jobId")
	stored, err := e.engine.Get(t.Context(), "", id)
	if err != nil {
		t.Fatal(err)
	}
	want := publicURL + "/a/" + e.engine.AnswerToken(stored)
	if e.engine.AnswerToken(stored) == "" || str(j, "answerUrl") != want {
		t.Fatalf("create: answerUrl %q, want %q", str(j, "answerUrl"), want)
	}
	if g := e.do("GET", "/jobs/"+id, nil); str(g.body, "answerUrl") != want {
		t.Errorf("GET: answerUrl %q, want %q", str(g.body, "answerUrl"), want)
	}
	l := e.do("GET", "/jobs?status=pending", nil)
	jobs, _ := l.body["jobs"].([]any)
	if len(jobs) != 1 || str(jobs[0].(map[string]any), "answerUrl") != want {
		t.Errorf("list: %s", l.raw)
	}
	a := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"})
	if _, ok := a.body["answerUrl"]; a.status != http.StatusOK || ok {
		t.Fatalf("answer: %d %s; want 200 without answerUrl", a.status, a.raw)
	}
	if g := e.do("GET", "/jobs/"+id, nil); g.body["answerUrl"] != nil {
		t.Errorf("GET after the answer: answerUrl %v", g.body["answerUrl"])
	}
	// A conflict's job is a view too: no link once the job left pending.
	c := e.do("POST", "/jobs/"+id+"/clarification", map[string]any{"answer": "hot"})
	if job := obj(c.body, "job"); c.status != http.StatusConflict || job == nil || job["answerUrl"] != nil {
		t.Errorf("second answer: %d %s", c.status, c.raw)
	}
}

func TestAnswerURLIsAbsentWithoutLinkSecret(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{interp: questioner{askOther}})
	j := e.create(map[string]any{"goal": hotFrozen})
	if str(j, "status") != "pending" || j["answerUrl"] != nil {
		t.Fatalf("create without a link secret: %v", j)
	}
}

func TestAccessLogNeverContainsAnswerToken(t *testing.T) {
	t.Parallel()
	mount := func(mux *http.ServeMux) {
		mux.HandleFunc("GET /a/{token}", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusTeapot)
		})
	}
	e := newEnv(t, envOptions{interp: questioner{askOther}, config: withLinks(mount)})
	j := e.create(map[string]any{"goal": hotFrozen})
	stored, err := e.engine.Get(t.Context(), "", str(j, "jobId"))
	if err != nil {
		t.Fatal(err)
	}
	tok := e.engine.AnswerToken(stored)
	if tok == "" {
		t.Fatal("no token")
	}
	// The mounted route, a path under it that nothing serves, a path
	// that cleans to it, and another method.
	for _, r := range []struct{ method, path string }{
		{"GET", "/a/" + tok}, {"GET", "/a/" + tok + "/more"}, {"GET", "/ui/../a/" + tok}, {"POST", "/a/" + tok},
	} {
		req, err := http.NewRequest(r.method, e.srv.URL+r.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = r.path // send the path as written, uncleaned
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	logs := e.logs.String()
	if strings.Contains(logs, tok) {
		t.Fatalf("the access log holds the token:\n%s", logs)
	}
	if n := strings.Count(logs, "path=/a/{token}"); n != 4 {
		t.Errorf("%d log lines with path=/a/{token}, want 4:\n%s", n, logs)
	}
	// The mounted handler is logged under its own pattern, with its status.
	if !strings.Contains(logs, `route="GET /a/{token}" path=/a/{token} status=418`) {
		t.Errorf("no access-log line of the mounted handler:\n%s", logs)
	}
}

func TestMountedHandlersShareMetrics(t *testing.T) {
	t.Parallel()
	mount := func(mux *http.ServeMux) {
		mux.HandleFunc("GET /ui", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("inbox")) })
	}
	e := newEnv(t, envOptions{config: withLinks(mount)})
	if r := e.do("GET", "/ui", nil); r.status != http.StatusOK || string(r.raw) != "inbox" {
		t.Fatalf("GET /ui: %d %s", r.status, r.raw)
	}
	m := e.do("GET", "/metrics", nil)
	if !strings.Contains(string(m.raw), `route="GET /ui"`) {
		t.Errorf("metrics have no series of the mounted route:\n%s", m.raw)
	}
}

// A mounted path asked with a method it is not served for is 405 with its
// methods in Allow, as the API's own paths are (GET /slack/interactions
// was 404).
func TestMountedPathWithAnotherMethodIs405(t *testing.T) {
	t.Parallel()
	mount := func(mux *http.ServeMux) {
		mux.HandleFunc("POST /slack/interactions", func(w http.ResponseWriter, r *http.Request) {})
	}
	e := newEnv(t, envOptions{config: withLinks(mount)})
	r := e.do("GET", "/slack/interactions", nil)
	wantError(t, r, http.StatusMethodNotAllowed, "method_not_allowed", "GET is not allowed on /slack/interactions")
	if r.header.Get("Allow") != "POST" {
		t.Fatalf("Allow: %q, want POST", r.header.Get("Allow"))
	}
}

func TestOpenAPIDocumentsAnswerURL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	r := e.do("GET", "/openapi.json", nil)
	schemas := obj(obj(r.body, "components"), "schemas")
	props := obj(obj(schemas, "JobView"), "properties")
	if p := obj(props, "answerUrl"); p == nil || p["type"] != "string" {
		t.Fatalf("JobView.answerUrl in the OpenAPI document: %v (schemas %v)", p, len(schemas))
	}
}
