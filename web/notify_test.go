package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/askonce/askonce"
)

// The inbox's job page shows whom the question goes to and who answered
// it where, as text.
func testInboxJobPageShowsRecipientsAndWhoAnswered(t *testing.T) {
	t.Parallel()
	s := newInboxSite(t, false, false)
	j, err := s.engine.Create(context.Background(), askonce.CreateRequest{Goal: askingGoal,
		Notify: &askonce.Recipients{Slack: &askonce.SlackRecipient{Channel: "C0123ABCD"}, Email: []string{"ann@example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	by := askonce.Answerer{Via: askonce.ViaMCP, By: hostile}
	if _, _, err := s.engine.Act(askonce.WithAnswerer(context.Background(), by), askonce.Act{Do: askonce.ActAnswer, ID: j.ID, Answer: askonce.TextAnswer(j.Question.Options[0])}); err != nil {
		t.Fatal(err)
	}
	r := s.get("/ui/jobs/" + j.ID)
	wantStatus(t, r, http.StatusOK)
	for _, want := range []string{
		`<dt>Notify</dt><dd class="notify">Slack <code>C0123ABCD</code> · email ann@example.com</dd>`,
		`via <strong class="answered-via">mcp</strong> by <strong class="answered-by">&lt;img src=x onerror=alert(1)&gt;</strong>`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("job page lacks %s", want)
		}
	}
	if strings.Contains(r.body, "<img") {
		t.Error("the answerer's markup is in the page")
	}
}
