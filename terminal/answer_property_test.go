package terminal

import (
	"context"
	"testing"

	"pgregory.net/rapid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
)

// Any valid typed answer, stored and read back over the HTTP API as the
// terminal reads it, is shown as a person reads it, and its typed value
// reads back as the very same answer.
func TestAnyValidTypedAnswerReadsBackTheSameInTheTerminal(t *testing.T) {
	t.Parallel()
	answertest.Check(t, func(t *rapid.T, env *answertest.Env, j *askonce.Job, a askonce.Answer) {
		d, err := env.Client.Get(context.Background(), j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := answerText(&d.JobView); got != a.String() {
			t.Fatalf("shown %q; want %q", got, a.String())
		}
		back, err := askonce.ParseAnswerJSON(d.ClarificationValue)
		if err == nil {
			back, err = askonce.ValidateAnswer(j.Question, back)
		}
		if err != nil || !back.Equal(a) {
			t.Fatalf("clarificationValue %s read back %s, %v; want %s", d.ClarificationValue, back.JSON(), err, a.JSON())
		}
	})
}
