package email

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
)

// Any valid typed answer, stored and read back, is shown in the outcome
// mail as a person reads it.
func TestAnyValidTypedAnswerIsShownTheSameInTheOutcomeMail(t *testing.T) {
	t.Parallel()
	answertest.Check(t, func(t *rapid.T, env *answertest.Env, j *askonce.Job, a askonce.Answer) {
		text, _, err := newOutcomeView(j).render()
		if err != nil {
			t.Fatal(err)
		}
		if want := "Answered: “" + a.String() + "”."; !strings.Contains(text, want) {
			t.Fatalf("outcome mail:\n%s\nwant %q", text, want)
		}
	})
}
