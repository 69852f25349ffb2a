package web_test

import (
	"testing"

	"github.com/askonce/askonce"
)

// TestBrowserDemo is the inbox and a job page as a newcomer meets them,
// from readable jobs (no test fixtures' markup): it checks the badges at
// 1280 px and, with -screenshots, makes docs/img/inbox.png and job.png:
//
//	go test ./web -run TestBrowserDemo -screenshots
func TestBrowserDemo(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newInboxSite(t, false, false)
	for _, j := range []struct{ session, goal string }{
		{"kitchen", "hot frozen cheese"},                        // Pick one
		{"ops", "delete the build folder"},                      // Yes or no
		{"ops", "deploy the api to staging or production"},      // Pick one
		{"release", "write the changelog then tag the release"}, // planned
	} {
		s.create("", j.session, j.goal)
	}
	planned := s.create("", "docs", "write the README then add tests")
	if planned.Status != askonce.StatusSuccess {
		t.Fatalf("fixture: %q is %s, want success", planned.Goal, planned.Status)
	}
	browserScript(t, s.srv.URL, "demo", "PLANNED_JOB="+planned.ID)
}
