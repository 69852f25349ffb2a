package slack_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
	"github.com/askonce/askonce/slack"
)

// Any valid typed answer, stored and read back, is shown in the settled
// message as a person reads it, escaped for mrkdwn.
func TestAnyValidTypedAnswerIsShownTheSameInTheSettledMessage(t *testing.T) {
	t.Parallel()
	answertest.Check(t, func(t *rapid.T, env *answertest.Env, j *askonce.Job, a askonce.Answer) {
		if got, want := slack.Settled(j), "✅ Answered “"+slack.Escape(a.String())+"”."; got != want {
			t.Fatalf("settled %q; want %q", got, want)
		}
	})
}
