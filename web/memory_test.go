package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// answeredIn has tenant answer the asking goal in a job of project
// (memory scope project) and returns the job; it fails the test unless
// the answer commits.
func (s *inboxSite) answeredIn(tenant, project, answer string) *askonce.Job {
	s.t.Helper()
	ctx := context.Background()
	j, err := s.engine.Create(ctx, askonce.CreateRequest{TenantID: tenant, SessionID: "first-" + project, Goal: askingGoal,
		Memory: askonce.Memory{Scope: askonce.MemoryProject, Project: project}})
	if err != nil || j.Status != askonce.StatusPending {
		s.t.Fatalf("create: %v %v", j, err)
	}
	if _, _, err := s.engine.Act(ctx, askonce.Act{Do: askonce.ActAnswer, TenantID: tenant, ID: j.ID, Answer: askonce.TextAnswer(answer)}); err != nil {
		s.t.Fatal(err)
	}
	return j
}

// The memory page lists a project's remembered answers (its text
// escaped) and Forget forgets one; another tenant's viewer sees nothing
// of them and cannot forget them.
func TestMemoryPage_ListsAndForgetsOnlyTheViewersTenant(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, true, false)
	project := "shop" + hostile
	first := s.answeredIn("alpha", project, "frozen")
	alpha, beta := s.login(keyAlpha), s.login(keyBeta)
	path := "/ui/memory?" + url.Values{"scope": {"project"}, "project": {project}}.Encode()

	if inbox := s.get("/ui", alpha); !strings.Contains(inbox.body, `href="/ui/memory"`) {
		t.Errorf("the inbox does not link the memory page")
	}
	page := s.get(path, alpha)
	wantStatus(t, page, http.StatusOK)
	if !strings.Contains(page.body, first.ID) || !strings.Contains(page.body, html.EscapeString(project)) || strings.Contains(page.body, hostile) {
		t.Fatalf("alpha's memory page lacks the entry or shows the project unescaped:\n%s", page.body)
	}
	if other := s.get(path, beta); !strings.Contains(other.body, "Nothing is remembered here") || strings.Contains(other.body, first.ID) {
		t.Fatalf("beta sees alpha's memory:\n%s", other.body)
	}

	hash := askonce.QuestionHash(first.Question.Text)
	form := url.Values{"scope": {"project"}, "project": {project}, "hash": {hash}}
	form.Set("csrf", csrfOf(t, s.get(path, beta).body))
	wantStatus(t, s.do("POST", "/ui/memory/forget", form, []*http.Cookie{beta}, "Origin", s.srv.URL), http.StatusNotFound)
	if again := s.get(path, alpha); !strings.Contains(again.body, first.ID) {
		t.Fatalf("beta's forget removed alpha's entry")
	}

	form.Set("csrf", csrfOf(t, page.body))
	r := s.do("POST", "/ui/memory/forget", form, []*http.Cookie{alpha}, "Origin", s.srv.URL)
	wantStatus(t, r, http.StatusSeeOther)
	if after := s.get(r.Header.Get("Location"), alpha); !strings.Contains(after.body, "Forgotten.") || strings.Contains(after.body, first.ID) {
		t.Fatalf("after Forget:\n%s", after.body)
	}
	j, err := s.engine.Create(context.Background(), askonce.CreateRequest{TenantID: "alpha", SessionID: "second", Goal: askingGoal,
		Memory: askonce.Memory{Scope: askonce.MemoryProject, Project: project}})
	if err != nil || j.Status != askonce.StatusPending {
		t.Fatalf("after Forget the next job is %v (%v), want pending", j.Status, err)
	}
}

// A job answered from memory says so on its page.
func TestJobPage_SaysWhichMemoryAnswered(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	first := s.answeredIn("", "shop", "frozen")
	j, err := s.engine.Create(context.Background(), askonce.CreateRequest{SessionID: "second", Goal: askingGoal,
		Memory: askonce.Memory{Scope: askonce.MemoryProject, Project: "shop"}})
	if err != nil {
		t.Fatal(err)
	}
	page := s.get("/ui/jobs/" + j.ID)
	want := html.EscapeString(`answered from project "shop" memory, just now, job ` + first.ID)
	if !strings.Contains(page.body, want) {
		t.Fatalf("job page lacks %q:\n%s", want, page.body)
	}
}

// The answer page of a project job offers "don't remember this"; ticked,
// the answer stays out of the project's memory.
func testAnswerPageDontRememberKeepsTheAnswerOutOfMemory(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, linkOptions{})
	shop := askonce.Memory{Scope: askonce.MemoryProject, Project: "shop"}
	ctx := context.Background()
	j, err := s.engine.Create(ctx, askonce.CreateRequest{Goal: selectGoal, SessionID: "a", Memory: shop})
	if err != nil {
		t.Fatal(err)
	}
	link := "/a/" + s.engine.AnswerToken(j)
	mustContain(t, s.get(t, link), `name="dont_remember"`, "Don’t remember this", "project “shop”")
	if r := s.post(t, link, url.Values{"answer": {"frozen"}, "dont_remember": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("POST: %d\n%s", r.status, r.body)
	}
	s.waitJob(t, j.ID)
	list, err := s.engine.Memory(ctx, askonce.MemoryFilter{Scope: askonce.MemoryProject, Project: "shop"})
	if err != nil || len(list) != 0 {
		t.Fatalf("project memory %+v (%v), want nothing", list, err)
	}
	// A session job's page offers nothing to forget.
	_, plain := s.ask(t, selectGoal)
	if strings.Contains(s.get(t, plain).body, "dont_remember") {
		t.Errorf("a session job's answer page offers don't remember")
	}
}
