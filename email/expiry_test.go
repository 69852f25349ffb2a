package email

import (
	"strings"
	"testing"
	"time"

	"github.com/askonce/askonce"
)

// expiredJob is a gate job whose agent asked with the default def, left
// unanswered until the sweep: answered by the default (a timeout) when
// def is set, else expired.
func expiredJob(t *testing.T, def string) *askonce.Job {
	t.Helper()
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	exp := at.Add(24 * time.Hour)
	j := &askonce.Job{ID: "0195d3c1-0000-7000-8000-000000000002", Title: "Soup", Goal: "microwave the soup", Mode: askonce.ModeGate,
		Status: askonce.StatusPlanning, ClarificationStatus: askonce.ClarificationNone, CreatedAt: at}
	q := askonce.Question{Type: askonce.QuestionSelectOne, Text: "Which bowl?", Options: []string{"metal bowl", def, "glass bowl"}, Default: def, ExpiresAt: &exp}
	if def == "" {
		q.Options = []string{"metal bowl", "glass bowl"}
	}
	for _, in := range []askonce.Input{askonce.Asked{Question: q}, askonce.Expire{}} {
		var err error
		if j, _, err = askonce.Step(j, in, exp); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// Rule 17: the outcome mail says plainly that nobody answered and what
// became of the question, the default escaped in the HTML part.
func TestRule17_OutcomeMailSaysNobodyAnsweredAndWhatBecameOfIt(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ def, text, html string }{
		{"<b>bowl</b>", "Nobody answered within 24h; the default “<b>bowl</b>” was used.", "Nobody answered within 24h; the default “&lt;b&gt;bowl&lt;/b&gt;” was used."},
		{"", "Nobody answered within 24h, and the question had no default; the job expired.", "Nobody answered within 24h, and the question had no default; the job expired."},
	} {
		text, html, err := newOutcomeView(expiredJob(t, c.def)).render()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, c.text) {
			t.Errorf("text part lacks %q:\n%s", c.text, text)
		}
		if !strings.Contains(html, c.html) || strings.Contains(html, "<b>bowl") {
			t.Errorf("HTML part lacks %q, escaped:\n%s", c.html, html)
		}
	}
}
