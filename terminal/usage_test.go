package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/client"
)

// jobs show says "no model tokens" for a job whose interpreter used none
// (the rules interpreter calls no model), and the counts otherwise.
func TestJobsShowSaysNoModelTokensWhenNoneWereUsed(t *testing.T) {
	for _, c := range []struct {
		usage askonce.Usage
		want  string
	}{
		{askonce.Usage{}, "no model tokens"},
		{askonce.Usage{PromptTokens: 120, CompletionTokens: 30, CostUSD: 0.0012}, "120 prompt + 30 completion tokens, $0.0012"},
	} {
		var b bytes.Buffer
		d := &client.JobDetail{}
		d.JobID, d.Status, d.Usage = "j1", askonce.StatusSuccess, c.usage
		printDetail(&b, d)
		line := ""
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "Usage") {
				line = strings.TrimSpace(strings.TrimPrefix(l, "Usage"))
			}
		}
		if line != c.want {
			t.Errorf("usage %+v: the Usage row says %q, want %q\n%s", c.usage, line, c.want, b.String())
		}
	}
}
