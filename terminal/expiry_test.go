package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

// Rule 17: the terminal says plainly when a default answered because
// nobody did, and when the job expired without one, in the result of a
// run and in jobs show.
func TestRule17_ResultAndDetailSayNobodyAnsweredAndWhatBecameOfIt(t *testing.T) {
	for _, c := range []struct {
		name string
		view client.JobView
	}{
		{"default used", client.JobView{Status: askonce.StatusSuccess, ClarificationStatus: askonce.ClarificationAnswered,
			ClarificationAnswer: "no", ClarificationSource: askonce.SourceTimeout,
			ExpiryNote: "Nobody answered within 24h; the default “no” was used."}},
		{"expired", client.JobView{Status: askonce.StatusExpired, ClarificationStatus: askonce.ClarificationAsked,
			Error: "the question expired without an answer", ExpiryNote: "Nobody answered within 24h, and the question had no default; the job expired."}},
	} {
		var res, detail bytes.Buffer
		printResult(&res, &c.view)
		printDetail(&detail, &client.JobDetail{JobView: c.view})
		if !strings.Contains(res.String(), "  "+c.view.ExpiryNote+"\n") {
			t.Errorf("%s: result\n%s\ndoes not say %q", c.name, res.String(), c.view.ExpiryNote)
		}
		if !strings.Contains(detail.String(), "Expiry") || !strings.Contains(detail.String(), c.view.ExpiryNote) {
			t.Errorf("%s: jobs show\n%s\ndoes not say %q", c.name, detail.String(), c.view.ExpiryNote)
		}
	}
}
