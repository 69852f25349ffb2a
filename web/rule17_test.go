package web_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// Rule 17 on the web: once the sweep found a question nobody answered,
// its dead answer link and the inbox's job page say plainly that the
// default answered, or that there was none and the job expired.
func TestRule17_DeadLinkAndJobPageSayNobodyAnsweredAndWhatBecameOfIt(t *testing.T) {
	t.Parallel()
	const (
		defaultUsed = "Nobody answered within 24h; the default “no” was used."
		noDefault   = "Nobody answered within 24h, and the question had no default; the job expired."
	)
	links := newLinkSite(t, linkOptions{})
	inbox := newInboxSite(t, false, false)
	var offset atomic.Int64
	inbox.engine.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }

	ctx := context.Background()
	del, delLink := links.ask(t, confirmGoal)
	free, freeLink := links.ask(t, freeGoal)
	delJob := inbox.create("", "s", confirmGoal)
	bowl, err := inbox.engine.Create(ctx, askonce.CreateRequest{Goal: "put the soup in the bowl and microwave it", Candidates: []string{"metal bowl", "glass bowl"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range []*askonce.Job{del, free, delJob, bowl} {
		if j.Status != askonce.StatusPending {
			t.Fatalf("%q: status %s, want pending", j.Goal, j.Status)
		}
	}
	links.advance(askonce.DefaultQuestionTTL)
	offset.Add(int64(askonce.DefaultQuestionTTL))
	for _, e := range []*askonce.Engine{links.engine, inbox.engine} {
		if n, err := e.ExpireDue(ctx); n != 2 || err != nil {
			t.Fatalf("expired %d, %v; want 2", n, err)
		}
	}

	for _, c := range []struct{ link, want string }{{delLink, defaultUsed}, {freeLink, noDefault}} {
		r := links.get(t, c.link)
		if r.status != http.StatusGone {
			t.Fatalf("GET %s: %d, want 410", c.link, r.status)
		}
		mustContain(t, r, "This question expired", c.want)
	}
	for _, c := range []struct {
		j    *askonce.Job
		want string
	}{{delJob, defaultUsed}, {bowl, noDefault}} {
		r := inbox.get("/ui/jobs/" + c.j.ID)
		wantStatus(t, r, http.StatusOK)
		if want := `<dd class="expiry-note">` + c.want + `</dd>`; !strings.Contains(r.body, want) {
			t.Errorf("job page of %q lacks %s:\n%s", c.j.Goal, want, r.body)
		}
	}
}
