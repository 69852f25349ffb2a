package mcp_test

import (
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/askonce/askonce"
	"github.com/askonce/askonce/answertest"
	"github.com/askonce/askonce/internal/jobview"
	"github.com/askonce/askonce/mcp"
)

// Any valid typed answer, stored and read back, is the job the tools
// return: its answer is the answer as a person reads it, and its
// answerValue, as a client decodes it and read back as form content is,
// is the very same typed answer.
func TestAnyValidTypedAnswerReadsBackTheSameFromTheToolResult(t *testing.T) {
	t.Parallel()
	answertest.Check(t, func(t *rapid.T, env *answertest.Env, j *askonce.Job, a askonce.Answer) {
		b, err := json.Marshal(jobview.JobOf(j, ""))
		if err != nil {
			t.Fatal(err)
		}
		var res mcp.JobResult
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if res.Answer != a.String() {
			t.Fatalf("answer %q; want %q", res.Answer, a.String())
		}
		content, ok := res.AnswerValue.(map[string]any)
		if !ok {
			content = map[string]any{"answer": res.AnswerValue}
		}
		back, err := askonce.ValidateAnswer(j.Question, jobview.AnswerFrom(j.Question, content))
		if err != nil || !back.Equal(a) {
			t.Fatalf("answerValue of %s read back %s, %v; want %s", b, back.JSON(), err, a.JSON())
		}
	})
}
