package slack_test

import (
	"testing"
	"time"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/slack"
)

// Rule 17: the settled message says plainly that nobody answered and
// what became of the question, the default escaped for mrkdwn.
func TestRule17_SettledMessageSaysNobodyAnsweredAndWhatBecameOfIt(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	exp := at.Add(24 * time.Hour)
	q := &askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which bowl?", Options: []string{"<b>bowl</b>", "glass bowl"}, ExpiresAt: &exp}
	timedOut := &askonce.Job{Status: askonce.StatusSuccess, ClarificationStatus: askonce.ClarificationAnswered,
		Answer: askonce.AnswerOf(askonce.OptionValue("<b>bowl</b>")), AnswerSource: askonce.SourceTimeout, Question: q, CreatedAt: at}
	expired := &askonce.Job{Status: askonce.StatusExpired, ClarificationStatus: askonce.ClarificationAsked, Question: q, CreatedAt: at}
	for _, c := range []struct {
		j    *askonce.Job
		want string
	}{
		{timedOut, "⌛ Nobody answered within 24h; the default “&lt;b&gt;bowl&lt;/b&gt;” was used."},
		{expired, "⌛ Nobody answered within 24h, and the question had no default; the job expired."},
	} {
		if got := slack.Settled(c.j); got != c.want {
			t.Errorf("Settled = %q, want %q", got, c.want)
		}
	}
}
