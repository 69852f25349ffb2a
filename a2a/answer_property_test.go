package a2a

import (
	"encoding/json"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"pgregory.net/rapid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
	"github.com/askonce/askonce/internal/jobview"
)

// Any valid typed answer, stored and read back, is the task's answer
// message as A2A sends it: its text is the answer as a person reads it,
// and its data part, read back as a data part answer is, is the very
// same typed answer.
func TestAnyValidTypedAnswerReadsBackTheSameFromTheTaskHistory(t *testing.T) {
	t.Parallel()
	answertest.Check(t, func(t *rapid.T, env *answertest.Env, j *askonce.Job, a askonce.Answer) {
		h := historyOf(j)
		b, err := json.Marshal(h[len(h)-1])
		if err != nil {
			t.Fatal(err)
		}
		var m sdk.Message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if got := textOf(&m); got != a.String() {
			t.Fatalf("text %q; want %q", got, a.String())
		}
		content := dataOf(&m)
		if inner, ok := content["answer"].(map[string]any); ok {
			content = inner
		}
		back, err := askonce.ValidateAnswer(j.Question, jobview.AnswerFrom(j.Question, content))
		if err != nil || !back.Equal(a) {
			t.Fatalf("data %s read back %s, %v; want %s", b, back.JSON(), err, a.JSON())
		}
	})
}
