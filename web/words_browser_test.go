package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// The pages a person reads say in words what the API says in codes: the
// inbox, job pages (asking, planned, answered), the memory pages and
// answer pages show no question type, reason, mode, hard cap or status
// code, no "$0.0000" and no "1 attempts", in Chromium's visible text.
func testBrowserPagesSayItInWordsNotCodesWithPlurals(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newLinkSite(t, linkOptions{})
	s.engine.NoBuilder = true
	ctx := context.Background()
	sel, selLink := s.ask(t, selectGoal)
	file, fileLink := s.ask(t, targetGoal, targetFiles...)
	conf, confLink := s.ask(t, confirmGoal)
	planned, err := s.engine.Create(ctx, askonce.CreateRequest{Goal: "write the changelog then tag the release"})
	if err != nil || planned.Status != askonce.StatusSuccess || planned.AttemptCount != 1 {
		t.Fatalf("fixture: the planned job is %+v (%v), want one attempt's success", planned, err)
	}
	shop := askonce.Memory{Scope: askonce.MemoryProject, Project: "shop"}
	asked, err := s.engine.Create(ctx, askonce.CreateRequest{Goal: selectGoal, Memory: shop})
	if err != nil {
		t.Fatal(err)
	}
	answered, _, err := s.engine.Act(ctx, askonce.Act{Do: askonce.ActAnswer, ID: asked.ID, Answer: askonce.TextAnswer("hot")})
	if err != nil || answered.Status != askonce.StatusSuccess || answered.AttemptCount != 2 {
		t.Fatalf("fixture: the answered job is %+v (%v), want two attempts' success", answered, err)
	}
	everyone, err := s.engine.Create(ctx, askonce.CreateRequest{Goal: selectGoal, Memory: askonce.Memory{Scope: askonce.MemoryTenant}})
	if err != nil || everyone.Status != askonce.StatusPending {
		t.Fatalf("fixture: the tenant-memory job is %+v (%v), want pending", everyone, err)
	}
	everyoneLink := "/a/" + s.engine.AnswerToken(everyone)
	pages := []string{"/ui/jobs/" + everyone.ID, everyoneLink, "/ui", "/ui/jobs/" + sel.ID, "/ui/jobs/" + file.ID, "/ui/jobs/" + conf.ID,
		"/ui/jobs/" + planned.ID, "/ui/jobs/" + answered.ID, "/ui/memory", "/ui/memory?scope=project&project=shop",
		"/ui/memory?scope=tenant", selLink, fileLink, confLink}
	browserScript(t, s.srv.URL, "words", "PAGES="+strings.Join(pages, " "),
		"SELECT_JOB=/ui/jobs/"+sel.ID, "FILE_JOB=/ui/jobs/"+file.ID, "CONFIRM_JOB=/ui/jobs/"+conf.ID,
		"PLANNED_JOB=/ui/jobs/"+planned.ID, "EVERYONE_LINK="+everyoneLink, "ANSWERED_JOB=/ui/jobs/"+answered.ID)
}
