package web_test

import (
	"context"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

func testBrowserInboxShowsANewQuestionLiveAndKeyboardReachesIt(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newInboxSite(t, false, false)
	hostileJob := s.create("", "", hostile+" "+askingGoal)
	planned := s.create("", "docs", planningGoal)
	const liveGoal = "serve the hot frozen cheese at the party"
	created := make(chan error, 1)
	go func() {
		select {
		case <-s.polled:
		case <-time.After(60 * time.Second):
			created <- nil
			return
		}
		// The page's script has polled and been answered: the question
		// arrives while the page is open, in a later poll.
		j, err := s.engine.Create(context.Background(), askonce.CreateRequest{SessionID: "party", Goal: liveGoal})
		if err == nil && j.Status != askonce.StatusPending {
			t.Errorf("fixture: %q is %s, want pending", liveGoal, j.Status)
		}
		created <- err
	}()
	browserScript(t, s.srv.URL, "inbox_live", "HOSTILE_JOB="+hostileJob.ID, "PLANNED_JOB="+planned.ID, "LIVE_GOAL="+liveGoal)
	if err := <-created; err != nil {
		t.Fatal(err)
	}
}

func testBrowserInboxLoginShowsOnlyThatTenantsJobs(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	s := newInboxSite(t, true, false)
	mine := s.create("alpha", "", askingGoal)
	theirs := s.create("beta", "", planningGoal)
	browserScript(t, s.srv.URL, "inbox_login", "KEY="+keyAlpha, "MINE="+mine.ID, "THEIRS="+theirs.ID)
}
